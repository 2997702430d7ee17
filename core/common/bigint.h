// BigInt: an immutable arbitrary-precision integer (boost::multiprecision::cpp_int inside).
//
// Used only for integers outside int64; Value keeps int64 inline and reaches for BigInt when
// arithmetic overflows or a literal/parse is too wide. Division and remainder truncate toward
// zero (the remainder takes the dividend's sign), matching JS BigInt semantics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/multiprecision/cpp_int.hpp>

namespace optic {

class BigInt {
 public:
  using Rep = boost::multiprecision::cpp_int;

  BigInt() = default;
  explicit BigInt(int64_t v) : v_(v) {}
  explicit BigInt(Rep v) : v_(std::move(v)) {}

  // Optional sign, then decimal digits only (no spaces, no exponent). nullopt otherwise.
  static std::optional<BigInt> parse(std::string_view decimal);
  // The exact integer value of a finite, integral double (e.g. 1e30). nullopt otherwise.
  static std::optional<BigInt> fromDouble(double d);

  std::string toString() const;
  bool fitsInt64() const;
  int64_t toInt64() const;  // valid only when fitsInt64()
  double toDouble() const;  // correctly rounded (nearest, ties to even)
  int sign() const { return v_.sign(); }
  const Rep& rep() const { return v_; }

  int compare(const BigInt& o) const { return v_ < o.v_ ? -1 : (v_ > o.v_ ? 1 : 0); }
  // Exact comparison against a double (NaN compares greater, like the value order puts NaN last).
  int compareDouble(double d) const;

  BigInt operator-() const { return BigInt(Rep(-v_)); }
  friend BigInt operator+(const BigInt& a, const BigInt& b) { return BigInt(Rep(a.v_ + b.v_)); }
  friend BigInt operator-(const BigInt& a, const BigInt& b) { return BigInt(Rep(a.v_ - b.v_)); }
  friend BigInt operator*(const BigInt& a, const BigInt& b) { return BigInt(Rep(a.v_ * b.v_)); }
  // Truncating; the divisor must be non-zero (callers map x/0 to NULL first).
  friend BigInt operator/(const BigInt& a, const BigInt& b) { return BigInt(Rep(a.v_ / b.v_)); }
  friend BigInt operator%(const BigInt& a, const BigInt& b) { return BigInt(Rep(a.v_ % b.v_)); }
  friend bool operator==(const BigInt& a, const BigInt& b) { return a.v_ == b.v_; }

 private:
  Rep v_;
};

}  // namespace optic
