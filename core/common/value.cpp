// Value constructors and conversions that need the full BigInt / JsonDoc definitions.
// Invariant kept here: fromBigInt never produces kBigInt for a value that fits in int64.
#include "core/common/value.h"

#include <cmath>

#include "core/common/bigint.h"
#include "core/common/json.h"

namespace optic {

Value Value::fromBigInt(const BigInt& v) {
  if (v.fitsInt64()) return integer(v.toInt64());
  return Value(Rep(std::in_place_index<2>, std::make_shared<const BigInt>(v)));
}

Value Value::fromBigInt(std::shared_ptr<const BigInt> v) {
  if (v->fitsInt64()) return integer(v->toInt64());
  return Value(Rep(std::in_place_index<2>, std::move(v)));
}

Value Value::json(std::shared_ptr<const JsonDoc> v) {
  return Value(Rep(std::in_place_index<7>, std::move(v)));
}

double Value::toDouble() const {
  switch (kind()) {
    case ValueKind::kInteger: return static_cast<double>(asInt());
    case ValueKind::kBigInt: return asBigInt().toDouble();
    case ValueKind::kReal: return asReal();
    case ValueKind::kBoolean: return asBool() ? 1.0 : 0.0;
    default: return std::nan("");
  }
}

}  // namespace optic
