// Digest (digest.h).
#include "core/common/digest.h"

#include <cstdint>
#include <cstdio>

namespace optic {

std::string textDigest(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a offset basis and prime
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string("hash:") + buf;
}

}  // namespace optic
