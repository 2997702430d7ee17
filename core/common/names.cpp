// Names (names.h): ASCII case folding of identifiers.
#include "core/common/names.h"

namespace optic {
namespace {
char foldAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

void appendLowerName(std::string_view s, std::string& out) {
  for (char c : s) out += foldAscii(c);
}

std::string lowerName(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  appendLowerName(s, out);
  return out;
}

bool sameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (foldAscii(a[i]) != foldAscii(b[i])) return false;
  }
  return true;
}

}  // namespace optic
