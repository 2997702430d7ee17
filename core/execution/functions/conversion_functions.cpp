// Conversion built-ins: typeof() and the strict conversion functions integer(), real(), text(),
// boolean(), blob(), numeric() (sql-core.md §1.4, §1.7).
//
// The conversions are the write-path conversion (convertStrict) under the reference's function
// wording, "Cannot convert to <TYPE>: …"; unlike CAST they throw. typeof() is value-based: an
// integral double reports 'integer', booleans report 'integer', temporal text reports 'text'.
// The temporal conversions (date(), time(), datetime(), timespan()) live with the temporal
// family and json() with the JSON family.
#include <cmath>

#include "core/execution/functions/function_util.h"

namespace optic {

namespace {

const char* typeName(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return "null";
    case ValueKind::kInteger:
    case ValueKind::kBigInt:
    case ValueKind::kBoolean: return "integer";
    case ValueKind::kReal: {
      double d = v.asReal();
      return std::isfinite(d) && d == std::trunc(d) ? "integer" : "real";
    }
    case ValueKind::kText: return "text";
    case ValueKind::kBlob: return "blob";
    case ValueKind::kJson: return "json";
  }
  return "null";
}

ScalarImpl converter(LogicalType type) {
  return [type](Args a, FunctionContext&) { return fn::convertOrThrow(a[0], type); };
}

// blob(x): the UTF-8 bytes of x's text rendering; a JSON document is refused (CAST accepts it).
Value blobValue(Args a, FunctionContext&) {
  if (a[0].kind() == ValueKind::kJson) throw Error(ErrorCode::kType, "Cannot convert to BLOB: JSON value");
  return fn::convertOrThrow(a[0], LogicalType::kBlob);
}

}  // namespace

void registerConversionFunctions(FunctionRegistry& r) {
  fn::addScalar(r, "typeof", 1, 1, LogicalType::kText,
                [](Args a, FunctionContext&) { return Value::text(typeName(a[0])); });
  fn::addScalar(r, "integer", 1, 1, LogicalType::kInteger, converter(LogicalType::kInteger));
  fn::addScalar(r, "real", 1, 1, LogicalType::kReal, converter(LogicalType::kReal));
  fn::addScalar(r, "text", 1, 1, LogicalType::kText, converter(LogicalType::kText));
  fn::addScalar(r, "boolean", 1, 1, LogicalType::kBoolean, converter(LogicalType::kBoolean));
  fn::addScalar(r, "numeric", 1, 1, LogicalType::kNumeric, converter(LogicalType::kNumeric));
  fn::addScalar(r, "blob", 1, 1, LogicalType::kBlob, blobValue);
}

}  // namespace optic
