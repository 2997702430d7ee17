// Arithmetic over runtime values. Dispatch: both int64 → checked int64 ops (BigInt on overflow);
// a real involved → double ops (a non-finite result is NULL), except that an integral real meeting an integer past the JS
// safe range (|v| > 2^53 − 1, a bigint in the reference engine) promotes to exact integer
// arithmetic ("9007199254740993 * 2.0" is exact); otherwise exact BigInt ops.
#include "core/execution/arithmetic.h"

#include <cmath>

#include "core/common/bigint.h"
#include "core/common/temporal.h"
#include "core/common/value_limits.h"
#include "core/common/value_ops.h"

namespace optic {

namespace {

enum class Op { kAdd, kSub, kMul, kDiv, kMod };

constexpr int64_t kMaxSafe = 9007199254740991;  // 2^53 − 1

BigInt toBig(const Value& v) {
  if (v.kind() == ValueKind::kBigInt) return v.asBigInt();
  if (v.kind() == ValueKind::kInteger) return BigInt(v.asInt());
  return *BigInt::fromDouble(v.asReal());  // callers pass only integral reals
}

bool isIntegralReal(const Value& v) {
  return v.kind() == ValueKind::kReal && std::isfinite(v.asReal()) && std::trunc(v.asReal()) == v.asReal();
}

bool isBeyondSafe(const Value& v) {
  return v.kind() == ValueKind::kBigInt ||
         (v.kind() == ValueKind::kInteger && (v.asInt() > kMaxSafe || v.asInt() < -kMaxSafe));
}

// A real result that is not finite (overflow, Infinity or NaN operands) is NULL, as the
// reference's arithmetic maps it (runtime/emit/binary.ts: !Number.isFinite(result) → null).
Value finiteReal(double r) { return std::isfinite(r) ? Value::real(r) : Value::null(); }

Value realOp(Op op, double x, double y) {
  switch (op) {
    case Op::kAdd: return finiteReal(x + y);
    case Op::kSub: return finiteReal(x - y);
    case Op::kMul: return finiteReal(x * y);
    case Op::kDiv: return y == 0 ? Value::null() : finiteReal(x / y);
    case Op::kMod: return y == 0 ? Value::null() : finiteReal(std::fmod(x, y));
  }
  return Value::null();
}

Value bigOp(Op op, const BigInt& x, const BigInt& y) {
  switch (op) {
    case Op::kAdd: return Value::fromBigInt(x + y);
    case Op::kSub: return Value::fromBigInt(x - y);
    case Op::kMul: return Value::fromBigInt(x * y);
    case Op::kDiv: {
      if (y.sign() == 0) return Value::null();
      BigInt q = x / y;
      if (q * y == x) return Value::fromBigInt(q);  // exact quotients stay integers
      return finiteReal(x.toDouble() / y.toDouble());
    }
    case Op::kMod: return y.sign() == 0 ? Value::null() : Value::fromBigInt(x % y);
  }
  return Value::null();
}

Value intOp(Op op, int64_t x, int64_t y) {
  int64_t r;
  switch (op) {
    case Op::kAdd:
      if (!__builtin_add_overflow(x, y, &r)) return Value::integer(r);
      break;
    case Op::kSub:
      if (!__builtin_sub_overflow(x, y, &r)) return Value::integer(r);
      break;
    case Op::kMul:
      if (!__builtin_mul_overflow(x, y, &r)) return Value::integer(r);
      break;
    case Op::kDiv:
      if (y == 0) return Value::null();
      if (y == -1) break;  // INT64_MIN / -1 overflows: let BigInt do it
      if (x % y == 0) return Value::integer(x / y);
      return Value::real(static_cast<double>(x) / static_cast<double>(y));
    case Op::kMod:
      if (y == 0) return Value::null();
      return Value::integer(y == -1 ? 0 : x % y);
  }
  return bigOp(op, BigInt(x), BigInt(y));
}

Value binary(Op op, const Value& a, const Value& b) {
  if (a.kind() == ValueKind::kInteger && b.kind() == ValueKind::kInteger)
    return intOp(op, a.asInt(), b.asInt());
  if (a.isNull() || b.isNull()) return Value::null();
  Value x = toArithmeticOperand(a), y = toArithmeticOperand(b);
  if (x.kind() == ValueKind::kInteger && y.kind() == ValueKind::kInteger)
    return intOp(op, x.asInt(), y.asInt());
  bool xReal = x.kind() == ValueKind::kReal, yReal = y.kind() == ValueKind::kReal;
  if (xReal || yReal) {
    bool promote = (xReal && !yReal && isBeyondSafe(y) && isIntegralReal(x)) ||
                   (yReal && !xReal && isBeyondSafe(x) && isIntegralReal(y));
    if (!promote) return realOp(op, x.toDouble(), y.toDouble());
  }
  return bigOp(op, toBig(x), toBig(y));
}

// Unary operators read their operand as JavaScript's Number() does: non-numeric text (and blobs,
// JSON) is NULL rather than 0, but blank text is 0 (-'' is 0, ~'' is -1).
std::optional<Value> unaryOperand(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInteger:
    case ValueKind::kBigInt:
    case ValueKind::kReal: return v;
    case ValueKind::kBoolean: return Value::integer(v.asBool() ? 1 : 0);
    case ValueKind::kText:
      if (v.asText().find_first_not_of(" \t\n\r\f\v") == std::string::npos) return Value::integer(0);
      return parseNumber(v.asText());
    default: return std::nullopt;
  }
}

}  // namespace

Value toArithmeticOperand(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
    case ValueKind::kInteger:
    case ValueKind::kBigInt:
    case ValueKind::kReal: return v;
    case ValueKind::kBoolean: return Value::integer(v.asBool() ? 1 : 0);
    case ValueKind::kText: {
      auto n = parseNumber(v.asText());
      return n ? std::move(*n) : Value::integer(0);
    }
    default: return Value::integer(0);
  }
}

Value add(const Value& a, const Value& b) { return binary(Op::kAdd, a, b); }
Value subtract(const Value& a, const Value& b) { return binary(Op::kSub, a, b); }
Value multiply(const Value& a, const Value& b) { return binary(Op::kMul, a, b); }
Value divide(const Value& a, const Value& b) { return binary(Op::kDiv, a, b); }
Value remainder(const Value& a, const Value& b) { return binary(Op::kMod, a, b); }

namespace {

// Text spelling an ISO duration ('PT1H', '-P1D') negates as a TIMESPAN, as the reference's unary
// minus does: the duration with its sign flipped.
std::optional<Value> negatedDuration(const Value& v) {
  if (!v.isText()) return std::nullopt;
  std::string_view s = v.asText();
  if (s.rfind("P", 0) != 0 && s.rfind("-P", 0) != 0) return std::nullopt;
  std::optional<Timespan> t = parseTimespan(s);
  if (!t) return std::nullopt;
  t->negative = !t->negative;
  return Value::text(formatTimespan(*t));
}

}  // namespace

Value negate(const Value& v) {
  if (std::optional<Value> d = negatedDuration(v)) return std::move(*d);
  auto n = unaryOperand(v);
  if (!n) return Value::null();
  switch (n->kind()) {
    case ValueKind::kInteger:
      if (n->asInt() != INT64_MIN) return Value::integer(-n->asInt());
      return Value::fromBigInt(-BigInt(n->asInt()));
    case ValueKind::kBigInt: return Value::fromBigInt(-n->asBigInt());
    default: return Value::real(-n->asReal());
  }
}

Value plus(const Value& v) {
  auto n = unaryOperand(v);
  return n ? std::move(*n) : Value::null();
}

Value bitNot(const Value& v) {
  auto n = unaryOperand(v);
  if (!n) return Value::null();
  switch (n->kind()) {
    case ValueKind::kInteger: return Value::integer(~n->asInt());  // ~x == -x-1, never overflows
    case ValueKind::kBigInt: return Value::fromBigInt(-n->asBigInt() - BigInt(1));
    default: {
      double d = std::trunc(n->asReal());
      if (!std::isfinite(d)) return Value::integer(-1);  // JS: ~Infinity === -1
      return Value::fromBigInt(-*BigInt::fromDouble(d) - BigInt(1));
    }
  }
}

Value concat(const Value& a, const Value& b) {
  if (a.isNull() || b.isNull()) return Value::null();
  auto joined = [](std::string_view left, std::string_view right) {
    requireValueFits(static_cast<double>(left.size()) + static_cast<double>(right.size()));
    std::string out;
    out.reserve(left.size() + right.size());
    out.append(left).append(right);
    return Value::text(std::move(out));
  };
  if (a.isText() && b.isText()) return joined(a.asText(), b.asText());
  return joined(toText(a), toText(b));
}

}  // namespace optic
