// Value: one cell of a row, the unit every layer passes around.
//
// Classes (sql-core.md §1.1): NULL, integer (int64 fast path, arbitrary precision beyond),
// real (double), text (UTF-8), blob (bytes), boolean (first-class, not 0/1) and JSON (a parsed
// document). Temporal values (DATE, TIME, DATETIME, TIMESPAN) are text at run time; their
// logical type is tracked by the planner, not by the cell.
//
// Invariants:
//  - an integer that fits in int64 is always held as kInteger with the int64 inline; kBigInt
//    holds only values outside int64 (Value::fromBigInt normalises). So two equal integers
//    always have the same representation.
//  - BigInt and JsonDoc are immutable and shared; copying a Value never deep-copies them.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace optic {

class BigInt;    // core/common/bigint.h (arbitrary precision integer)
struct JsonDoc;  // core/common/json.h (a parsed JSON document, key order kept)

using Bytes = std::vector<uint8_t>;

enum class ValueKind : uint8_t { kNull, kInteger, kBigInt, kReal, kText, kBlob, kBoolean, kJson };

class Value {
 public:
  Value() = default;  // NULL
  static Value null() { return Value(); }
  static Value integer(int64_t v) { return Value(Rep(std::in_place_index<1>, v)); }
  static Value fromBigInt(const BigInt& v);                 // normalises to kInteger when it fits
  static Value fromBigInt(std::shared_ptr<const BigInt> v); // same
  static Value real(double v) { return Value(Rep(std::in_place_index<3>, v)); }
  static Value text(std::string v) { return Value(Rep(std::in_place_index<4>, std::move(v))); }
  static Value blob(Bytes v) { return Value(Rep(std::in_place_index<5>, std::move(v))); }
  static Value boolean(bool v) { return Value(Rep(std::in_place_index<6>, v)); }
  static Value json(std::shared_ptr<const JsonDoc> v);

  // In-place assignment of a value of the named kind: the same as `*this = Value::real(v)`,
  // cheaper when this already holds that kind (no variant visit; text reuses its buffer).
  // For decoding many rows into one Row.
  void setNull() { rep_.emplace<0>(); }
  void setInteger(int64_t v) { setScalar<1>(v); }
  void setReal(double v) { setScalar<3>(v); }
  void setBoolean(bool v) { setScalar<6>(v); }
  void setText(std::string_view v) {
    if (std::string* s = std::get_if<4>(&rep_)) s->assign(v);
    else rep_.emplace<4>(v);
  }

  ValueKind kind() const { return static_cast<ValueKind>(rep_.index()); }
  bool isNull() const { return rep_.index() == 0; }
  bool isInteger() const { return rep_.index() == 1 || rep_.index() == 2; }  // int64 or big
  bool isNumeric() const { return isInteger() || rep_.index() == 3; }         // integer or real
  bool isText() const { return rep_.index() == 4; }

  // Accessors: valid only for the matching kind.
  int64_t asInt() const { return std::get<1>(rep_); }
  const BigInt& asBigInt() const { return *std::get<2>(rep_); }
  const std::shared_ptr<const BigInt>& bigIntPtr() const { return std::get<2>(rep_); }
  double asReal() const { return std::get<3>(rep_); }
  const std::string& asText() const { return std::get<4>(rep_); }
  const Bytes& asBlob() const { return std::get<5>(rep_); }
  bool asBool() const { return std::get<6>(rep_); }
  const JsonDoc& asJson() const { return *std::get<7>(rep_); }
  const std::shared_ptr<const JsonDoc>& jsonPtr() const { return std::get<7>(rep_); }

  // The nearest double of an integer, real or boolean (booleans are 0/1). NaN otherwise.
  double toDouble() const;

 private:
  using Rep = std::variant<std::monostate, int64_t, std::shared_ptr<const BigInt>, double,
                           std::string, Bytes, bool, std::shared_ptr<const JsonDoc>>;
  explicit Value(Rep r) : rep_(std::move(r)) {}
  template <size_t I, typename T>
  void setScalar(T v) {
    if (T* held = std::get_if<I>(&rep_)) *held = v;
    else rep_.template emplace<I>(v);
  }
  Rep rep_;
};

using Row = std::vector<Value>;

}  // namespace optic
