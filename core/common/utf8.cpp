// UTF-8 decoding, character counting and simple case mapping.
//
// Case mapping covers the scripts whose simple mapping is a fixed offset or an even/odd pair
// (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic); other code points map to themselves. The
// ASCII fast path keeps the common case allocation-light and branch-cheap.
#include "core/common/utf8.h"

namespace optic {

namespace {

// Length of a well-formed sequence at s[i], or 0 when the bytes there are not one.
size_t validSequenceLength(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t minCp;
  if (c >= 0xC2 && c <= 0xDF) { n = 2; minCp = 0x80; }
  else if (c >= 0xE0 && c <= 0xEF) { n = 3; minCp = 0x800; }
  else if (c >= 0xF0 && c <= 0xF4) { n = 4; minCp = 0x10000; }
  else return 0;
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < minCp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool isAscii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

}  // namespace

bool isValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = validSequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

size_t utf8CharLength(std::string_view s, size_t i) {
  size_t n = validSequenceLength(s, i);
  return n == 0 ? 1 : n;
}

size_t utf8Length(std::string_view s) {
  size_t count = 0;
  for (size_t i = 0; i < s.size(); i += utf8CharLength(s, i)) ++count;
  return count;
}

size_t utf8Offset(std::string_view s, size_t index) {
  size_t i = 0;
  while (index > 0 && i < s.size()) {
    i += utf8CharLength(s, i);
    --index;
  }
  return i < s.size() ? i : s.size();
}

std::string_view utf8Substr(std::string_view s, size_t start, size_t count) {
  size_t b = utf8Offset(s, start);
  size_t e = b;
  while (count > 0 && e < s.size()) {
    e += utf8CharLength(s, e);
    --count;
  }
  if (e > s.size()) e = s.size();
  return s.substr(b, e - b);
}

uint32_t utf8Decode(std::string_view s, size_t& i) {
  size_t n = validSequenceLength(s, i);
  if (n == 0) {
    ++i;
    return 0xFFFD;
  }
  unsigned char c = static_cast<unsigned char>(s[i]);
  uint32_t cp = n == 1 ? c : (c & (0x7F >> n));
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += n;
  return cp;
}

void utf8Append(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string utf8Sanitize(std::string_view bytes) {
  if (isValidUtf8(bytes)) return std::string(bytes);
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) utf8Append(out, utf8Decode(bytes, i));
  return out;
}

uint32_t toLowerCp(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
  if ((cp >= 0xC0 && cp <= 0xDE && cp != 0xD7)) return cp + 32;                  // Latin-1
  if (cp >= 0x100 && cp <= 0x17F && cp != 0x130 && cp != 0x131 && cp != 0x138 &&
      cp != 0x149 && cp != 0x17F) {                                               // Latin Ext-A
    bool oddPairs = (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E);
    if (oddPairs) return (cp & 1) ? cp + 1 : cp;
    if (cp == 0x178) return 0xFF;
    return (cp & 1) ? cp : cp + 1;
  }
  if (cp >= 0x391 && cp <= 0x3AB && cp != 0x3A2) return cp + 32;                  // Greek
  if (cp >= 0x410 && cp <= 0x42F) return cp + 32;                                 // Cyrillic
  if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
  return cp;
}

uint32_t toUpperCp(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') ? cp - 32 : cp;
  if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 32;
  if (cp == 0xFF) return 0x178;
  if (cp >= 0x100 && cp <= 0x17F && cp != 0x130 && cp != 0x131 && cp != 0x138 &&
      cp != 0x149 && cp != 0x17F && cp != 0x178) {
    bool oddPairs = (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E);
    if (oddPairs) return (cp & 1) ? cp : cp - 1;
    return (cp & 1) ? cp - 1 : cp;
  }
  if (cp >= 0x3B1 && cp <= 0x3CB && cp != 0x3C2) return cp - 32;
  if (cp == 0x3C2) return 0x3A3;  // final sigma
  if (cp >= 0x430 && cp <= 0x44F) return cp - 32;
  if (cp >= 0x450 && cp <= 0x45F) return cp - 80;
  return cp;
}

namespace {

std::string mapCase(std::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  if (isAscii(s)) {
    for (char c : s) {
      if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
      else if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
      out += c;
    }
    return out;
  }
  for (size_t i = 0; i < s.size();) {
    size_t n = validSequenceLength(s, i);
    if (n == 0) {  // keep invalid bytes as they are
      out += s[i++];
      continue;
    }
    uint32_t cp = utf8Decode(s, i);
    utf8Append(out, upper ? toUpperCp(cp) : toLowerCp(cp));
  }
  return out;
}

}  // namespace

std::string utf8Upper(std::string_view s) { return mapCase(s, true); }
std::string utf8Lower(std::string_view s) { return mapCase(s, false); }

}  // namespace optic
