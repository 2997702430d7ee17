// Built-in collations. Invariant: compareText(a, b, c) has the sign of
// memcmp(normalizeText(a, c), normalizeText(b, c)), so a key built from the normalised form
// orders exactly as the collation compares.
#include "core/common/collation.h"

#include <cstring>

#include "core/common/utf8.h"

namespace optic {

namespace {

bool equalsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

int compareBytes(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

std::string_view trimTrailingSpaces(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && s[n - 1] == ' ') --n;
  return s.substr(0, n);
}

// NOCASE without allocating: fold each character as it is read.
int compareNoCase(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[j]);
    if (x < 0x80 && y < 0x80) {
      if (x >= 'A' && x <= 'Z') x += 32;
      if (y >= 'A' && y <= 'Z') y += 32;
      if (x != y) return x < y ? -1 : 1;
      ++i, ++j;
      continue;
    }
    // Compare the folded characters through their UTF-8 bytes, which is what memcmp of the
    // normalised forms does.
    std::string fa, fb;
    size_t ni = utf8CharLength(a, i), nj = utf8CharLength(b, j);
    fa = utf8Lower(a.substr(i, ni));
    fb = utf8Lower(b.substr(j, nj));
    int c = compareBytes(fa, fb);
    if (c != 0) return c;
    i += ni, j += nj;
  }
  bool aDone = i >= a.size(), bDone = j >= b.size();
  return aDone && bDone ? 0 : (aDone ? -1 : 1);
}

}  // namespace

std::optional<Collation> collationFromName(std::string_view name) {
  if (equalsIgnoreAsciiCase(name, "binary")) return Collation::kBinary;
  if (equalsIgnoreAsciiCase(name, "nocase")) return Collation::kNoCase;
  if (equalsIgnoreAsciiCase(name, "rtrim")) return Collation::kRTrim;
  return std::nullopt;
}

std::string_view collationName(Collation c) {
  switch (c) {
    case Collation::kBinary: return "BINARY";
    case Collation::kNoCase: return "NOCASE";
    case Collation::kRTrim: return "RTRIM";
  }
  return "BINARY";
}

int compareText(std::string_view a, std::string_view b, Collation c) {
  switch (c) {
    case Collation::kBinary: return compareBytes(a, b);
    case Collation::kNoCase: return compareNoCase(a, b);
    case Collation::kRTrim: return compareBytes(trimTrailingSpaces(a), trimTrailingSpaces(b));
  }
  return compareBytes(a, b);
}

std::string normalizeText(std::string_view s, Collation c) {
  switch (c) {
    case Collation::kBinary: return std::string(s);
    case Collation::kNoCase: return utf8Lower(s);
    case Collation::kRTrim: return std::string(trimTrailingSpaces(s));
  }
  return std::string(s);
}

}  // namespace optic
