// Private helpers shared by the built-in function families (core/execution/functions/*.cpp).
//
// Conventions every family follows:
//  - a function that propagates NULL checks its arguments first (anyNull) and returns NULL;
//  - numeric arguments are read through numericArg(), which accepts integers, reals, booleans
//    and numeric-looking text, and yields nullopt for anything else (the planner rejects
//    statically non-numeric arguments; at run time an unclassifiable value gives NULL);
//  - registration goes through the small add* wrappers so each table entry is one line.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "core/common/error.h"
#include "core/common/logical_type.h"
#include "core/common/value.h"
#include "core/common/value_ops.h"
#include "core/execution/function_registry.h"

namespace optic::fn {

inline bool anyNull(Args args) {
  for (const Value& v : args) {
    if (v.isNull()) return true;
  }
  return false;
}

// A number as double: integers, big integers, reals, booleans (0/1), numeric text.
inline std::optional<double> numericArg(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInteger:
    case ValueKind::kBigInt:
    case ValueKind::kReal:
    case ValueKind::kBoolean:
      return v.toDouble();
    case ValueKind::kText: {
      std::optional<Value> n = parseNumber(v.asText());
      if (n) return n->toDouble();
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

// The number a value stands for, keeping integers exact: integers stay, booleans become 0/1,
// numeric text is parsed. nullopt for non-numeric values.
inline std::optional<Value> numericValue(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInteger:
    case ValueKind::kBigInt:
    case ValueKind::kReal:
      return v;
    case ValueKind::kBoolean:
      return Value::integer(v.asBool() ? 1 : 0);
    case ValueKind::kText:
      return parseNumber(v.asText());
    default:
      return std::nullopt;
  }
}

// An integer argument (reals truncate toward zero); nullopt when not numeric or out of range.
inline std::optional<int64_t> intArg(const Value& v) {
  if (v.kind() == ValueKind::kInteger) return v.asInt();
  std::optional<double> d = numericArg(v);
  if (!d || std::isnan(*d)) return std::nullopt;
  double t = std::trunc(*d);
  if (t >= 9.2e18) return INT64_MAX;
  if (t <= -9.2e18) return INT64_MIN;
  return static_cast<int64_t>(t);
}

// A double result, reported as an integer when it is integral and fits: JS has one number type,
// and callers such as floor()/abs() must give the same value class for 2.0 and 2.
inline Value numberResult(double d) {
  if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9007199254740992.0) {
    return Value::integer(static_cast<int64_t>(d));
  }
  return Value::real(d);
}

// The text a string function works on: text as is, other non-NULL values rendered (§1.6).
inline std::string textArg(const Value& v) { return v.isText() ? v.asText() : toText(v); }

// Strict conversion as the conversion functions do it (§1.4): NULL passes, a failure is
// reported as "Cannot convert to <TYPE>: <detail>" (the reference wording).
inline Value convertOrThrow(const Value& v, LogicalType type) {
  if (v.isNull()) return v;
  try {
    return convertStrict(v, type);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kType) throw;
    throw Error(ErrorCode::kType, "Cannot convert to " + std::string(logicalTypeName(type)) + ": " + e.what());
  }
}

inline ScalarFunction scalar(std::string name, int minArgs, int maxArgs, LogicalType returnType, ScalarImpl impl) {
  ScalarFunction f;
  f.name = std::move(name);
  f.minArgs = minArgs;
  f.maxArgs = maxArgs;
  f.returnType = returnType;
  f.impl = std::move(impl);
  return f;
}

inline void addScalar(FunctionRegistry& r, std::string name, int minArgs, int maxArgs,
                      LogicalType returnType, ScalarImpl impl,
                      ScalarFunction::ReturnFrom from = ScalarFunction::ReturnFrom::kDeclared) {
  ScalarFunction f = scalar(std::move(name), minArgs, maxArgs, returnType, std::move(impl));
  f.returnFrom = from;
  r.addScalar(std::move(f));
}

// Same, for the math functions the planner gates on numeric arguments (the reference engine's
// abs, round, floor, ceil/ceiling, sqrt, clamp): the required arguments are gated, so round's
// optional digits argument is not (see ScalarFunction::numericArgs), and the static result
// type is the first argument's, as the reference infers it (abs of an INTEGER is INTEGER).
inline void addNumericScalar(FunctionRegistry& r, std::string name, int minArgs, int maxArgs, ScalarImpl impl,
                             bool notNullResult = true) {
  ScalarFunction f = scalar(std::move(name), minArgs, maxArgs, LogicalType::kAny, std::move(impl));
  f.numericArgs = minArgs;
  f.returnFrom = ScalarFunction::ReturnFrom::kFirstArgument;
  f.notNullResult = notNullResult;
  r.addScalar(std::move(f));
}

// Same, for a function whose result the reference declares not nullable (ScalarFunction::
// notNullResult): the string functions returning TEXT or INTEGER.
inline void addNotNullScalar(FunctionRegistry& r, std::string name, int minArgs, int maxArgs,
                             LogicalType returnType, ScalarImpl impl) {
  ScalarFunction f = scalar(std::move(name), minArgs, maxArgs, returnType, std::move(impl));
  f.notNullResult = true;
  r.addScalar(std::move(f));
}

// Same, for a function that compares its arguments and returns one of them (nullif, greatest,
// least; see ScalarFunction::picksArgument).
inline void addPickingScalar(FunctionRegistry& r, std::string name, int minArgs, int maxArgs, ScalarImpl impl,
                             ScalarFunction::ReturnFrom from) {
  ScalarFunction f = scalar(std::move(name), minArgs, maxArgs, LogicalType::kAny, std::move(impl));
  f.picksArgument = true;
  f.returnFrom = from;
  r.addScalar(std::move(f));
}

}  // namespace optic::fn
