// Text forms of values (value_text.h).
#include "core/api/value_text.h"

#include "core/common/bigint.h"
#include "core/common/error.h"
#include "core/common/json.h"

namespace optic {

std::string integerText(const Value& v) {
  return v.kind() == ValueKind::kBigInt ? v.asBigInt().toString() : std::to_string(v.asInt());
}

std::optional<Value> integerFromText(std::string_view decimal) {
  std::optional<BigInt> b = BigInt::parse(decimal);
  if (!b) return std::nullopt;
  return Value::fromBigInt(*b);
}

std::string jsonValueText(const Value& v) { return serializeJson(v.asJson().doc); }

Value jsonValueFromText(std::string_view text) {
  std::shared_ptr<const JsonDoc> doc = parseJson(text);
  if (!doc) throw Error(ErrorCode::kMisuse, "malformed JSON value");
  return Value::json(std::move(doc));
}

}  // namespace optic
