// Storable text (storable_text.h).
#include "core/storage/storable_text.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "core/common/error.h"

namespace optic {

std::optional<UnpairedSurrogate> findUnpairedSurrogate(std::string_view s) {
  // Fast path: every surrogate encoding starts with 0xED.
  if (std::memchr(s.data(), 0xED, s.size()) == nullptr) return std::nullopt;
  size_t units = 0;
  for (size_t i = 0; i < s.size();) {
    uint8_t b = static_cast<uint8_t>(s[i]);
    size_t len = b < 0x80 ? 1 : b >= 0xF0 && b < 0xF8 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (b == 0xED && i + 2 < s.size()) {
      uint8_t b1 = static_cast<uint8_t>(s[i + 1]);
      uint8_t b2 = static_cast<uint8_t>(s[i + 2]);
      if (b1 >= 0xA0 && b1 <= 0xBF && b2 >= 0x80 && b2 <= 0xBF) {
        return UnpairedSurrogate{0xD000u | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu), units};
      }
    }
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return std::nullopt;
}

void requireStorableText(std::string_view what, std::string_view text) {
  std::optional<UnpairedSurrogate> hit = findUnpairedSurrogate(text);
  if (!hit) return;
  char cp[16];
  std::snprintf(cp, sizeof cp, "U+%04X", hit->codeUnit);
  fail(ErrorCode::kError, "cannot store " + std::string(what) + " containing an unpaired surrogate (" + cp +
                              " at offset " + std::to_string(hit->offset) + "): " + std::string(text));
}

void requireStorableRow(std::span<const Value> row) {
  for (const Value& v : row) {
    if (v.isText()) requireStorableText("text", v.asText());
  }
}

}  // namespace optic
