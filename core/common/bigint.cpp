// BigInt conversions. The arithmetic itself is boost's; this file only adds the conversions the
// engine needs with exact semantics (decimal parse/print, correctly rounded toDouble, exact
// comparison with doubles).
#include "core/common/bigint.h"

#include <cmath>
#include <cstdlib>
#include <limits>

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

std::string BigInt::toString() const { return v_.str(); }

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
