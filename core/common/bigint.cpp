// BigInt conversions. The arithmetic itself is boost's; this file only adds the conversions the
// engine needs with exact semantics (decimal parse/print, correctly rounded toDouble, exact
// comparison with doubles).
#include "core/common/bigint.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace optic {

std::optional<BigInt> BigInt::parse(std::string_view s) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == s.size()) return std::nullopt;
  Rep v = 0;
  // Accumulate 18 digits at a time: far fewer big multiplications than digit by digit.
  while (i < s.size()) {
    uint64_t chunk = 0, scale = 1;
    for (int n = 0; n < 18 && i < s.size(); ++n, ++i) {
      char c = s[i];
      if (c < '0' || c > '9') return std::nullopt;
      chunk = chunk * 10 + static_cast<uint64_t>(c - '0');
      scale *= 10;
    }
    v = v * scale + chunk;
  }
  if (neg) v = -v;
  return BigInt(std::move(v));
}

std::optional<BigInt> BigInt::fromDouble(double d) {
  if (!std::isfinite(d) || std::trunc(d) != d) return std::nullopt;
  int exp = 0;
  double mant = std::frexp(std::fabs(d), &exp);  // |d| = mant * 2^exp, mant in [0.5, 1)
  // 53 significant bits as an integer, then shift into place.
  int64_t m = static_cast<int64_t>(std::ldexp(mant, 53));
  Rep v = m;
  int shift = exp - 53;
  if (shift > 0) v <<= shift;
  else if (shift < 0) v >>= -shift;  // exact: d is integral, so the dropped bits are zero
  if (d < 0) v = -v;
  return BigInt(std::move(v));
}

// Decimal digits, 18 at a time (the remainders by 10^18, least significant first). By hand
// rather than boost's str(), whose formatting reaches libc++'s locale and iostream code: about
// 100 KB of the wasm for one conversion.
std::string BigInt::toString() const {
  constexpr uint64_t kChunk = 1'000'000'000'000'000'000ULL;
  Rep rest = v_ < 0 ? Rep(-v_) : v_;
  std::vector<uint64_t> chunks;
  do {
    chunks.push_back(static_cast<uint64_t>(rest % kChunk));
    rest /= kChunk;
  } while (rest != 0);
  std::string out = v_ < 0 ? "-" : "";
  out += std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    std::string digits = std::to_string(chunks[i]);
    out.append(18 - digits.size(), '0');
    out += digits;
  }
  return out;
}

bool BigInt::fitsInt64() const {
  static const Rep kMin = std::numeric_limits<int64_t>::min();
  static const Rep kMax = std::numeric_limits<int64_t>::max();
  return v_ >= kMin && v_ <= kMax;
}

int64_t BigInt::toInt64() const { return v_.convert_to<int64_t>(); }

double BigInt::toDouble() const {
  if (fitsInt64()) return static_cast<double>(toInt64());
  // strtod rounds correctly; boost's convert_to<double> is not guaranteed to.
  std::string s = toString();
  return std::strtod(s.c_str(), nullptr);
}

int BigInt::compareDouble(double d) const {
  if (std::isnan(d)) return -1;
  if (std::isinf(d)) return d > 0 ? -1 : 1;
  double t = std::trunc(d);
  auto whole = fromDouble(t);
  int c = compare(*whole);
  if (c != 0) return c;
  // Equal integral parts: the fractional part of d decides.
  if (d > t) return -1;
  if (d < t) return 1;
  return 0;
}

}  // namespace optic
