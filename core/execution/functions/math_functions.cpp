// Math built-ins: abs, round, floor, ceil/ceiling, trunc, sqrt, pow/power, exp, ln, log, log10,
// log2, sign, mod, pi, trigonometry, degrees, radians, clamp, greatest, least.
//
// Semantics follow the reference engine (JS Math): one number model, so a result that is
// integral is reported as an integer (numberResult); round() rounds half up (JS Math.round, so
// round(-2.5) = -2); sqrt of a negative and log of a non-positive yield NULL; mod by zero yields
// NULL. Every function propagates NULL. Integer inputs stay exact where the operation allows
// (abs, floor, ceil, round to >= 0 places, clamp, greatest, least).
#include <cmath>
#include <functional>

#include "core/common/bigint.h"
#include "core/execution/functions/function_util.h"

namespace optic {

namespace {

constexpr double kPi = 3.14159265358979323846;

using fn::numberResult;
using fn::numericArg;
using fn::numericValue;

// Wraps a double → double function as a one-argument NULL-propagating scalar. `domainOk`
// rejects inputs outside the function's domain (result NULL instead of NaN).
ScalarImpl unaryReal(double (*f)(double), bool (*domainOk)(double) = nullptr) {
  return [f, domainOk](Args a, FunctionContext&) -> Value {
    std::optional<double> x = numericArg(a[0]);
    if (!x) return Value();
    if (domainOk != nullptr && !domainOk(*x)) return Value();
    return numberResult(f(*x));
  };
}

bool nonNegative(double x) { return x >= 0; }
bool positive(double x) { return x > 0; }
bool unitRange(double x) { return x >= -1 && x <= 1; }

Value absValue(Args a, FunctionContext&) {
  std::optional<Value> v = numericValue(a[0]);
  if (!v) return Value();
  switch (v->kind()) {
    case ValueKind::kInteger:
      if (v->asInt() == INT64_MIN) return Value::fromBigInt(-BigInt(INT64_MIN));
      return Value::integer(v->asInt() < 0 ? -v->asInt() : v->asInt());
    case ValueKind::kBigInt:
      return v->asBigInt().sign() < 0 ? Value::fromBigInt(-v->asBigInt()) : *v;
    default:
      return Value::real(std::fabs(v->asReal()));
  }
}

// JS Math.round: round half toward +infinity.
double jsRound(double x) {
  if (!std::isfinite(x)) return x;
  double r = std::floor(x);
  if (x - r >= 0.5) r += 1;
  return r;
}

// round(x [, places]): NULL places count as 0; negative places round to tens, hundreds, …
Value roundValue(Args a, FunctionContext&) {
  std::optional<Value> v = numericValue(a[0]);
  if (!v) return Value();
  int64_t places = 0;
  if (a.size() > 1 && !a[1].isNull()) {
    std::optional<int64_t> p = fn::intArg(a[1]);
    if (!p) return Value();
    places = *p;
  }
  if (v->isInteger() && places >= 0) return *v;
  double x = v->toDouble();
  if (places > 300 || places < -300) return numberResult(places > 0 ? x : 0.0);
  double factor = std::pow(10.0, static_cast<double>(places));
  return numberResult(jsRound(x * factor) / factor);
}

// floor/ceil/trunc share one shape: integers pass through, reals go through `f`.
ScalarImpl integralRounding(double (*f)(double)) {
  return [f](Args a, FunctionContext&) -> Value {
    std::optional<Value> v = numericValue(a[0]);
    if (!v) return Value();
    if (v->isInteger()) return *v;
    return numberResult(f(v->asReal()));
  };
}

Value powValue(Args a, FunctionContext&) {
  std::optional<double> x = numericArg(a[0]);
  std::optional<double> y = numericArg(a[1]);
  if (!x || !y) return Value();
  return numberResult(std::pow(*x, *y));
}

// log(x) is the base-10 logarithm (SQLite); log(b, x) is log base b of x.
Value logValue(Args a, FunctionContext&) {
  if (a.size() == 1) {
    std::optional<double> x = numericArg(a[0]);
    if (!x || *x <= 0) return Value();
    return numberResult(std::log10(*x));
  }
  std::optional<double> b = numericArg(a[0]);
  std::optional<double> x = numericArg(a[1]);
  if (!b || !x || *b <= 0 || *b == 1 || *x <= 0) return Value();
  return numberResult(std::log(*x) / std::log(*b));
}

Value signValue(Args a, FunctionContext&) {
  std::optional<double> x = numericArg(a[0]);
  if (!x || std::isnan(*x)) return Value();
  return Value::integer(*x > 0 ? 1 : (*x < 0 ? -1 : 0));
}

// mod(a, b): the JS remainder (sign of the dividend); b = 0 yields NULL.
Value modValue(Args a, FunctionContext&) {
  std::optional<Value> x = numericValue(a[0]);
  std::optional<Value> y = numericValue(a[1]);
  if (!x || !y) return Value();
  if (x->kind() == ValueKind::kInteger && y->kind() == ValueKind::kInteger) {
    if (y->asInt() == 0) return Value();
    if (y->asInt() == -1) return Value::integer(0);
    return Value::integer(x->asInt() % y->asInt());
  }
  double d = y->toDouble();
  if (d == 0) return Value();
  return numberResult(std::fmod(x->toDouble(), d));
}

Value atan2Value(Args a, FunctionContext&) {
  std::optional<double> y = numericArg(a[0]);
  std::optional<double> x = numericArg(a[1]);
  if (!y || !x) return Value();
  return numberResult(std::atan2(*y, *x));
}

// clamp(v, lo, hi) = max(lo, min(hi, v)) as the reference computes it, compared by value, so
// with lo > hi the result is lo; any NULL yields NULL.
Value clampValue(Args a, FunctionContext&) {
  if (fn::anyNull(a)) return Value();
  std::optional<Value> v = numericValue(a[0]);
  std::optional<Value> lo = numericValue(a[1]);
  std::optional<Value> hi = numericValue(a[2]);
  if (!v || !lo || !hi) return Value();
  Value r = compareValues(*v, *hi) > 0 ? *hi : *v;
  return compareValues(r, *lo) < 0 ? *lo : r;
}

// greatest/least: NULLs are skipped; all-NULL yields NULL. `sign` picks the winner's side.
ScalarImpl extremum(int sign) {
  return [sign](Args a, FunctionContext&) -> Value {
    const Value* best = nullptr;
    for (const Value& v : a) {
      if (v.isNull()) continue;
      if (best == nullptr || compareValues(v, *best) * sign > 0) best = &v;
    }
    return best == nullptr ? Value() : *best;
  };
}

double degreesOf(double x) { return x * 180.0 / kPi; }
double radiansOf(double x) { return x * kPi / 180.0; }

}  // namespace

void registerMathFunctions(FunctionRegistry& r) {
  const LogicalType num = LogicalType::kNumeric;
  const LogicalType real = LogicalType::kReal;
  fn::addNumericScalar(r, "abs", 1, 1, absValue);
  fn::addNumericScalar(r, "round", 1, 2, roundValue);
  fn::addNumericScalar(r, "floor", 1, 1, integralRounding(std::floor));
  fn::addNumericScalar(r, "ceil", 1, 1, integralRounding(std::ceil));
  fn::addNumericScalar(r, "ceiling", 1, 1, integralRounding(std::ceil));
  fn::addScalar(r, "trunc", 1, 1, num, integralRounding(std::trunc));
  fn::addNumericScalar(r, "sqrt", 1, 1, unaryReal(std::sqrt, nonNegative));
  fn::addScalar(r, "pow", 2, 2, real, powValue);
  fn::addScalar(r, "power", 2, 2, real, powValue);
  fn::addScalar(r, "exp", 1, 1, real, unaryReal(std::exp));
  fn::addScalar(r, "ln", 1, 1, real, unaryReal(std::log, positive));
  fn::addScalar(r, "log", 1, 2, real, logValue);
  fn::addScalar(r, "log10", 1, 1, real, unaryReal(std::log10, positive));
  fn::addScalar(r, "log2", 1, 1, real, unaryReal(std::log2, positive));
  fn::addScalar(r, "sign", 1, 1, LogicalType::kInteger, signValue);
  fn::addScalar(r, "mod", 2, 2, num, modValue);
  fn::addScalar(r, "pi", 0, 0, real, [](Args, FunctionContext&) { return Value::real(kPi); });
  fn::addScalar(r, "sin", 1, 1, real, unaryReal(std::sin));
  fn::addScalar(r, "cos", 1, 1, real, unaryReal(std::cos));
  fn::addScalar(r, "tan", 1, 1, real, unaryReal(std::tan));
  fn::addScalar(r, "asin", 1, 1, real, unaryReal(std::asin, unitRange));
  fn::addScalar(r, "acos", 1, 1, real, unaryReal(std::acos, unitRange));
  fn::addScalar(r, "atan", 1, 1, real, unaryReal(std::atan));
  fn::addScalar(r, "atan2", 2, 2, real, atan2Value);
  fn::addScalar(r, "sinh", 1, 1, real, unaryReal(std::sinh));
  fn::addScalar(r, "cosh", 1, 1, real, unaryReal(std::cosh));
  fn::addScalar(r, "tanh", 1, 1, real, unaryReal(std::tanh));
  fn::addScalar(r, "degrees", 1, 1, real, unaryReal(degreesOf));
  fn::addScalar(r, "radians", 1, 1, real, unaryReal(radiansOf));
  fn::addNumericScalar(r, "clamp", 3, 3, clampValue, /*notNullResult=*/false);
  fn::addPickingScalar(r, "greatest", 1, -1, extremum(1), ScalarFunction::ReturnFrom::kCommonType);
  fn::addPickingScalar(r, "least", 1, -1, extremum(-1), ScalarFunction::ReturnFrom::kCommonType);
}

}  // namespace optic
