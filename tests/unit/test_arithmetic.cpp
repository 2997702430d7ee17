// Arithmetic: expected results from sql-core.md §1.5 and the corpus (03.7-bigint-mixed-arithmetic,
// 22-boundary-values).
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/bigint.h"
#include "core/common/json.h"
#include "core/common/value_ops.h"
#include "core/execution/arithmetic.h"

namespace optic {
namespace {

Value I(int64_t v) { return Value::integer(v); }
Value R(double v) { return Value::real(v); }
Value T(const char* s) { return Value::text(s); }
Value B(const char* digits) { return Value::fromBigInt(*BigInt::parse(digits)); }

// Result kind and canonical text together: "3" as integer differs from 3.5 as real.
void expectInt(const Value& v, const char* digits) {
  ASSERT_TRUE(v.isInteger()) << toText(v);
  EXPECT_EQ(toText(v), digits);
}
void expectReal(const Value& v, double d) {
  ASSERT_EQ(v.kind(), ValueKind::kReal) << toText(v);
  EXPECT_EQ(v.asReal(), d);
}

TEST(Arithmetic, IntegerBasics) {
  expectInt(add(I(1), I(2)), "3");
  expectInt(subtract(I(-9007199254740991), I(0)), "-9007199254740991");
  expectInt(multiply(I(-1), I(-1)), "1");
  expectInt(multiply(I(0), I(9007199254740991)), "0");
}

TEST(Arithmetic, OverflowPromotesExactly) {
  expectInt(add(I(INT64_MAX), I(1)), "9223372036854775808");
  EXPECT_EQ(add(I(INT64_MAX), I(1)).kind(), ValueKind::kBigInt);
  expectInt(subtract(I(INT64_MIN), I(1)), "-9223372036854775809");
  expectInt(multiply(I(INT64_MAX), I(INT64_MAX)), "85070591730234615847396907784232501249");
  // Results that fit again are plain integers (canonical numeric rule).
  Value back = subtract(add(I(INT64_MAX), I(1)), I(1));
  EXPECT_EQ(back.kind(), ValueKind::kInteger);
  EXPECT_EQ(back.asInt(), INT64_MAX);
  expectInt(divide(I(INT64_MIN), I(-1)), "9223372036854775808");
  expectInt(negate(I(INT64_MIN)), "9223372036854775808");
}

TEST(Arithmetic, TrueDivision) {
  expectReal(divide(I(1), I(2)), 0.5);
  expectReal(divide(I(7), I(2)), 3.5);
  expectInt(divide(I(6), I(2)), "3");
  expectInt(divide(I(-6), I(3)), "-2");
  expectReal(divide(I(10), I(3)), 10.0 / 3);
  expectReal(divide(I(10), R(2.5)), 4.0);
  expectReal(divide(R(10.0), I(4)), 2.5);
  EXPECT_TRUE(divide(I(1), I(0)).isNull());
  EXPECT_TRUE(divide(R(1.5), R(0.0)).isNull());
  EXPECT_TRUE(divide(B("99999999999999999999"), I(0)).isNull());
  expectInt(divide(B("20000000000000000000"), I(2)), "10000000000000000000");
}

TEST(Arithmetic, JsRemainder) {
  expectInt(remainder(I(-5), I(3)), "-2");
  expectInt(remainder(I(5), I(-3)), "2");
  expectReal(remainder(I(10), R(3.5)), 3.0);
  EXPECT_TRUE(remainder(I(5), I(0)).isNull());
  EXPECT_TRUE(remainder(R(5), R(0)).isNull());
  expectInt(remainder(I(INT64_MIN), I(-1)), "0");
}

TEST(Arithmetic, TextAndBooleanOperands) {
  expectInt(add(T("10"), T("20")), "30");
  expectInt(add(T("abc"), I(1)), "1");
  expectInt(add(T("3x"), I(1)), "1");
  expectInt(add(I(1), T("2")), "3");
  expectInt(add(Value::boolean(true), I(1)), "2");
  expectReal(add(T(" 1.5 "), I(1)), 2.5);
  EXPECT_TRUE(add(Value::null(), I(1)).isNull());
  EXPECT_TRUE(multiply(I(1), Value::null()).isNull());
}

TEST(Arithmetic, BigIntMixed) {
  // 03.7-bigint-mixed-arithmetic.
  Value big = I(9007199254740993);
  EXPECT_EQ(toText(add(big, R(1.5))), "9007199254740994");
  expectInt(add(big, I(1)), "9007199254740994");
  EXPECT_EQ(toText(subtract(big, R(0.5))), "9007199254740992");
  expectInt(multiply(big, R(2.0)), "18014398509481986");
  EXPECT_EQ(toText(add(R(1.5), big)), "9007199254740994");
  EXPECT_EQ(toText(divide(big, R(2.0))), "4503599627370496");
  expectInt(remainder(big, R(2.0)), "1");
  expectInt(add(big, big), "18014398509481986");
  expectInt(add(big, T("3")), "9007199254740996");
  expectInt(add(T("3"), big), "9007199254740996");
  expectInt(add(big, T("abc")), "9007199254740993");
  expectInt(add(big, Value::boolean(true)), "9007199254740994");
  EXPECT_EQ(toText(add(big, T("0.5"))), "9007199254740992");
  expectInt(add(B("99999999999999999999999999"), I(1)), "100000000000000000000000000");
}

TEST(Arithmetic, Reals) {
  expectReal(add(R(0.1), R(0.2)), 0.1 + 0.2);
  EXPECT_EQ(toText(add(R(0.1), R(0.2))), "0.30000000000000004");
  expectReal(add(I(1), R(1.5)), 2.5);
}

// A result that is not a finite number is NULL (the reference's binary arithmetic), whatever
// produced it: overflow, an infinite or NaN operand, an inexact big-integer quotient.
TEST(Arithmetic, NonFiniteResultsAreNull) {
  EXPECT_TRUE(multiply(R(1e308), I(10)).isNull());
  EXPECT_TRUE(add(R(1e308), R(1e308)).isNull());
  EXPECT_TRUE(subtract(R(-1e308), R(1e308)).isNull());
  EXPECT_TRUE(add(R(INFINITY), I(1)).isNull());
  EXPECT_TRUE(multiply(R(NAN), I(0)).isNull());
  EXPECT_TRUE(remainder(R(INFINITY), I(2)).isNull());
  EXPECT_TRUE(divide(R(1e308), R(0.5)).isNull());
  expectReal(multiply(R(1e307), I(10)), 1e308);
}

TEST(Arithmetic, Unary) {
  expectInt(negate(I(5)), "-5");
  expectReal(negate(R(1.5)), -1.5);
  expectInt(negate(T("7")), "-7");
  EXPECT_TRUE(negate(T("abc")).isNull());
  EXPECT_TRUE(plus(T("abc")).isNull());
  expectInt(plus(T("42")), "42");
  EXPECT_TRUE(bitNot(T("abc")).isNull());
  expectInt(bitNot(I(5)), "-6");
  // Blank text is 0 to a unary operator, as JavaScript's Number('') is.
  expectInt(negate(T("")), "0");
  expectInt(plus(T("  ")), "0");
  expectInt(bitNot(T("")), "-1");
  expectInt(bitNot(I(-1)), "0");
  expectInt(bitNot(I(INT64_MIN)), "9223372036854775807");
  expectInt(bitNot(B("9223372036854775808")), "-9223372036854775809");
  expectInt(bitNot(R(2.7)), "-3");
  EXPECT_TRUE(negate(Value::null()).isNull());
  expectInt(negate(B("9223372036854775808")), "-9223372036854775808");
  EXPECT_EQ(negate(B("9223372036854775808")).kind(), ValueKind::kInteger);
}

TEST(Arithmetic, Concat) {
  EXPECT_EQ(concat(T("a"), T("b")).asText(), "ab");
  EXPECT_EQ(concat(I(1), R(2.5)).asText(), "12.5");
  EXPECT_EQ(concat(Value::boolean(true), R(1.0)).asText(), "true1");
  EXPECT_EQ(concat(T("j="), Value::json(parseJson(R"({"a": [1]})"))).asText(), R"(j={"a":[1]})");
  EXPECT_TRUE(concat(T("a"), Value::null()).isNull());
  EXPECT_TRUE(concat(Value::null(), T("a")).isNull());
}

}  // namespace
}  // namespace optic
