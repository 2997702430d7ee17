// Collations: BINARY (default), NOCASE (ASCII/Unicode simple case fold), RTRIM (trailing spaces
// ignored). A collation compares two texts and can normalise a text so that memcmp of the
// normalised forms orders them as the collation does (the key codec relies on that).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace optic {

enum class Collation : uint8_t { kBinary, kNoCase, kRTrim };

// Case-insensitive lookup of "binary" / "nocase" / "rtrim"; nullopt for an unknown name.
std::optional<Collation> collationFromName(std::string_view name);
std::string_view collationName(Collation c);  // "BINARY", "NOCASE", "RTRIM"

int compareText(std::string_view a, std::string_view b, Collation c);  // <0, 0, >0
std::string normalizeText(std::string_view s, Collation c);          // key form

}  // namespace optic
