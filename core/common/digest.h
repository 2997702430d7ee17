// Digest: a short, stable fingerprint of a text (64-bit FNV-1a), for schema hashes and lens
// advisory acknowledgements that users copy into their DDL. Not cryptographic: it tells texts
// apart, it does not guard them.
#pragma once

#include <string>
#include <string_view>

namespace optic {

// "hash:" followed by 16 lower-case hex digits.
std::string textDigest(std::string_view text);

}  // namespace optic
