// Storable text: the store refuses text it cannot encode (store.md §2).
//
// A JS string may hold an unpaired UTF-16 surrogate; crossing into the engine it arrives as the
// three-byte sequence ED A0..BF 80..BF (Emscripten's stringToUTF8 encodes each lone surrogate on
// its own). That is not UTF-8, and folding it to U+FFFD would store something other than what
// was written, so identifiers, DDL text and text values bound for a store table are checked and
// refused with the spec's error before anything is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "core/common/value.h"

namespace optic {

struct UnpairedSurrogate {
  uint32_t codeUnit = 0;  // U+D800..U+DFFF
  size_t offset = 0;      // in UTF-16 code units, as the JS caller counts
};

std::optional<UnpairedSurrogate> findUnpairedSurrogate(std::string_view text);

// Throws Error "cannot store <what> containing an unpaired surrogate (U+D800 at offset 3): <text>".
void requireStorableText(std::string_view what, std::string_view text);
// Every text value of the row.
void requireStorableRow(std::span<const Value> row);

}  // namespace optic
