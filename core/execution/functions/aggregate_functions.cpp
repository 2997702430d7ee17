// Aggregate built-ins: count, count(*), sum, total, avg, min, max, group_concat, string_concat,
// var_pop, var_samp, stddev_pop, stddev_samp. (json_group_array/json_group_object live with the
// JSON family.)
//
// Every aggregate skips NULL inputs. count(*) reaches step() with zero arguments. sum() keeps two
// accumulators that never mix before finish(): an exact one (int64, widening to BigInt) for
// integers and for reals that are safe integers, and a double one for everything else; the
// result is exact when no inexact input was seen, else the double sum of both (so the result
// does not depend on row order). Numeric text counts as its number; an input that names no
// number is skipped by sum, avg and the variance family and adds 0 to total(). The numeric aggregates support inverse() for sliding window frames.
#include <cmath>
#include <string>
#include <vector>

#include "core/common/bigint.h"
#include "core/common/value_limits.h"
#include "core/execution/functions/function_util.h"

namespace optic {

namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0;

// The number an aggregate input stands for, as the reference reads it (JavaScript's Number()):
// a number, a boolean as 1/0, text that is wholly a number (blank text is 0); nullopt for
// anything else (NULL never reaches here).
std::optional<Value> aggregateNumber(const Value& v) {
  if (v.isText() && v.asText().find_first_not_of(" \t\n\r\f\v") == std::string::npos) return Value::integer(0);
  return fn::numericValue(v);
}

// Exact integer accumulator: int64 until it overflows, then BigInt.
class ExactSum {
 public:
  void add(const Value& v, int sign) {
    // An integral REAL reaching here is within ±2^53 (isExactInput): it converts exactly.
    bool small = v.kind() == ValueKind::kInteger || v.kind() == ValueKind::kReal;
    if (small && !big_) {
      int64_t x = v.kind() == ValueKind::kInteger ? v.asInt() : static_cast<int64_t>(v.asReal()), r;
      bool overflow = sign > 0 ? __builtin_add_overflow(small_, x, &r) : __builtin_sub_overflow(small_, x, &r);
      if (!overflow) {
        small_ = r;
        return;
      }
    }
    BigInt x = toBig(v);
    BigInt acc = big_ ? *big_ : BigInt(small_);
    big_ = sign > 0 ? acc + x : acc - x;
  }
  Value value() const { return big_ ? Value::fromBigInt(*big_) : Value::integer(small_); }
  double toDouble() const { return big_ ? big_->toDouble() : static_cast<double>(small_); }

 private:
  static BigInt toBig(const Value& v) {
    if (v.kind() == ValueKind::kInteger) return BigInt(v.asInt());
    if (v.kind() == ValueKind::kBigInt) return v.asBigInt();
    return *BigInt::fromDouble(v.asReal());
  }
  int64_t small_ = 0;
  std::optional<BigInt> big_;
};

bool isExactInput(const Value& n) {
  if (n.isInteger()) return true;
  double d = n.asReal();
  return std::isfinite(d) && d == std::trunc(d) && std::fabs(d) <= kMaxSafeInteger;
}

class SumState : public AggregateState {
 public:
  explicit SumState(bool total) : total_(total) {}
  void step(Args a) override { apply(a, 1); }
  bool inverse(Args a) override {
    apply(a, -1);
    return true;
  }
  Value finish() override {
    if (total_) return Value::real(exact_.toDouble() + inexact_);
    if (count_ == 0) return Value();
    if (inexactCount_ == 0) return exact_.value();
    return Value::real(exact_.toDouble() + inexact_);
  }

 private:
  void apply(Args a, int sign) {
    if (a[0].isNull()) return;
    // Input that names no number: total() adds 0, sum() skips it (all skipped is NULL).
    std::optional<Value> number = aggregateNumber(a[0]);
    if (!number && !total_) return;
    Value n = number.value_or(Value::integer(0));
    count_ += sign;
    if (isExactInput(n)) {
      exact_.add(n, sign);
    } else {
      inexact_ += sign * n.asReal();
      inexactCount_ += sign;
    }
  }
  bool total_;
  int64_t count_ = 0;
  int64_t inexactCount_ = 0;
  ExactSum exact_;
  double inexact_ = 0;
};

// count(x) counts non-NULL x; count(*) (no arguments) counts rows.
class CountState : public AggregateState {
 public:
  void step(Args a) override { count_ += counts(a) ? 1 : 0; }
  bool inverse(Args a) override {
    count_ -= counts(a) ? 1 : 0;
    return true;
  }
  Value finish() override { return Value::integer(count_); }

 private:
  static bool counts(Args a) { return a.empty() || !a[0].isNull(); }
  int64_t count_ = 0;
};

// Running moments for avg and the variance family.
class MomentState : public AggregateState {
 public:
  enum Kind { kAvg, kVarPop, kVarSamp, kStddevPop, kStddevSamp };
  explicit MomentState(Kind kind) : kind_(kind) {}
  void step(Args a) override { apply(a, 1); }
  bool inverse(Args a) override {
    apply(a, -1);
    return true;
  }
  Value finish() override {
    if (n_ == 0) return Value();
    double n = static_cast<double>(n_);
    switch (kind_) {
      case kAvg: return Value::real(sum_ / n);
      case kVarPop: return Value::real(popVariance());
      case kStddevPop: return deviation(popVariance());
      case kVarSamp:
        if (n_ < 2) return Value();
        return Value::real(sampleVariance());
      case kStddevSamp:
        if (n_ < 2) return Value();
        return deviation(sampleVariance());
    }
    return Value();
  }

 private:
  void apply(Args a, int sign) {
    if (a[0].isNull()) return;
    std::optional<Value> number = aggregateNumber(a[0]);
    if (!number) return;  // names no number: skipped, not counted
    double x = number->toDouble();
    n_ += sign;
    sum_ += sign * x;
    sumSq_ += sign * x * x;
  }
  // A rounding-negative variance has no deviation: NULL, as in the reference.
  static Value deviation(double variance) { return variance < 0 ? Value() : Value::real(std::sqrt(variance)); }
  // The reference's formulas (E[x²] − mean², and (Σx² − (Σx)²/n)/(n−1)); kept as they are so
  // results agree to the last digit.
  double popVariance() const {
    double n = static_cast<double>(n_), mean = sum_ / n;
    return sumSq_ / n - mean * mean;
  }
  double sampleVariance() const {
    double n = static_cast<double>(n_);
    return (sumSq_ - sum_ * sum_ / n) / (n - 1);
  }
  Kind kind_;
  int64_t n_ = 0;
  double sum_ = 0;
  double sumSq_ = 0;
};

// min/max under the total value order, the argument's collation and its type's semantic
// ordering (a JSON or TIMESPAN argument ranks by its comparand, and the winning value itself is
// returned); `sign` = -1 keeps the smallest, +1 the largest. Of equal values the first seen wins.
class ExtremumState : public AggregateState {
 public:
  ExtremumState(Collation collation, LogicalType argType, int sign)
      : collation_(collation), ordering_(hasSemanticOrdering(argType) ? argType : LogicalType::kAny), sign_(sign) {}
  void step(Args a) override {
    if (a[0].isNull()) return;
    Value key = ordering_ == LogicalType::kAny ? a[0] : semanticComparand(a[0], ordering_, true);
    if (!best_ || compareValues(key, bestKey_, collation_) * sign_ > 0) {
      best_ = a[0];
      bestKey_ = std::move(key);
    }
  }
  Value finish() override { return best_ ? *best_ : Value(); }

 private:
  Collation collation_;
  LogicalType ordering_;
  int sign_;
  std::optional<Value> best_;
  Value bestKey_;  // best_'s comparand
};

// group_concat(x[, sep]): the non-NULL values' text joined by one separator, the last non-NULL
// separator argument seen (a row whose value is NULL still sets it), ',' when none is; NULL
// when no value was seen.
class GroupConcatState : public AggregateState {
 public:
  void step(Args a) override {
    if (a.size() > 1 && !a[1].isNull()) separator_ = fn::textArg(a[1]);
    if (!a[0].isNull()) parts_.push_back(fn::textArg(a[0]));
  }
  Value finish() override { return parts_.empty() ? Value() : Value::text(join(parts_, separator_)); }

  static std::string join(const std::vector<std::string>& parts, const std::string& separator) {
    double bytes = static_cast<double>(separator.size()) * static_cast<double>(parts.size());
    for (const std::string& p : parts) bytes += static_cast<double>(p.size());
    requireValueFits(bytes);
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out += separator;
      out += parts[i];
    }
    return out;
  }

 private:
  std::string separator_ = ",";
  std::vector<std::string> parts_;
};

// string_concat(x): the text values joined by ',' ('' when there is none). Values that are not
// text after the aggregate argument coercion (numbers, numeric text, blobs) are skipped.
class StringConcatState : public AggregateState {
 public:
  void step(Args a) override {
    if (a[0].isText()) parts_.push_back(a[0].asText());
  }
  Value finish() override { return Value::text(GroupConcatState::join(parts_, ",")); }

 private:
  std::vector<std::string> parts_;
};

template <typename State, typename... CtorArgs>
void addAggregate(FunctionRegistry& r, std::string name, int minArgs, int maxArgs, LogicalType type,
                  CtorArgs... ctorArgs) {
  AggregateFunction f;
  f.name = std::move(name);
  f.minArgs = minArgs;
  f.maxArgs = maxArgs;
  f.returnType = type;
  f.coercesNumericText = f.name != "count" && f.name != "group_concat";
  f.create = [ctorArgs...](Collation collation, LogicalType argType) -> std::unique_ptr<AggregateState> {
    if constexpr (std::is_constructible_v<State, Collation, LogicalType, CtorArgs...>) {
      return std::make_unique<State>(collation, argType, ctorArgs...);
    } else if constexpr (std::is_constructible_v<State, Collation, CtorArgs...>) {
      return std::make_unique<State>(collation, ctorArgs...);
    } else {
      return std::make_unique<State>(ctorArgs...);
    }
  };
  r.addAggregate(std::move(f));
}

}  // namespace

void registerAggregateFunctions(FunctionRegistry& r) {
  const LogicalType real = LogicalType::kReal;
  addAggregate<CountState>(r, "count", 0, 1, LogicalType::kInteger);
  addAggregate<SumState>(r, "sum", 1, 1, LogicalType::kNumeric, false);
  addAggregate<SumState>(r, "total", 1, 1, real, true);
  addAggregate<MomentState>(r, "avg", 1, 1, real, MomentState::kAvg);
  addAggregate<MomentState>(r, "var_pop", 1, 1, real, MomentState::kVarPop);
  addAggregate<MomentState>(r, "var_samp", 1, 1, real, MomentState::kVarSamp);
  addAggregate<MomentState>(r, "stddev_pop", 1, 1, real, MomentState::kStddevPop);
  addAggregate<MomentState>(r, "stddev_samp", 1, 1, real, MomentState::kStddevSamp);
  addAggregate<ExtremumState>(r, "min", 1, 1, LogicalType::kAny, -1);
  addAggregate<ExtremumState>(r, "max", 1, 1, LogicalType::kAny, 1);
  addAggregate<GroupConcatState>(r, "group_concat", 1, 2, LogicalType::kText);
  addAggregate<StringConcatState>(r, "string_concat", 1, 1, LogicalType::kText);
}

}  // namespace optic
