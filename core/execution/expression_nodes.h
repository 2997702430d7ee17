// The concrete BoundExpr nodes. Only the binder constructs them; everything else sees BoundExpr.
#pragma once

#include <unordered_set>

#include "core/execution/expression.h"
#include "core/execution/operator.h"

namespace optic {

class LiteralExpr final : public BoundExpr {
 public:
  explicit LiteralExpr(Value v) : value_(std::move(v)) { constant = true; }
  Value eval(const EvalContext&) const override { return value_; }
  const Value& value() const { return value_; }

 private:
  Value value_;
};

class ColumnExpr final : public BoundExpr {
 public:
  ColumnExpr(int depth, int index) : depth_(depth), index_(index) { correlated = depth > 0; }
  Value eval(const EvalContext& ctx) const override;
  int depth() const { return depth_; }
  int index() const { return index_; }

 private:
  int depth_;
  int index_;
};

class ParamExpr final : public BoundExpr {
 public:
  explicit ParamExpr(int slot) : slot_(slot) { constant = true; }
  Value eval(const EvalContext& ctx) const override;

 private:
  int slot_;  // 1-based
};

enum class ArithOp : uint8_t { kAdd, kSub, kMul, kDiv, kMod, kConcat };
class ArithExpr final : public BoundExpr {
 public:
  // `temporal`: an operand's declared type is DATE, TIME, DATETIME or TIMESPAN, so the operator
  // is temporal arithmetic when a value has a temporal shape (temporal_arithmetic.h).
  ArithExpr(ArithOp op, BoundExprPtr l, BoundExprPtr r, bool temporal = false)
      : op_(op), temporal_(temporal), l_(std::move(l)), r_(std::move(r)) {}
  Value eval(const EvalContext& ctx) const override;

 private:
  ArithOp op_;
  bool temporal_;
  BoundExprPtr l_, r_;
};

enum class TemporalOp : uint8_t;
TemporalOp temporalOpOf(ArithOp op);  // kConcat has no temporal form; callers exclude it

enum class UnaryOp : uint8_t { kNeg, kPlus, kBitNot, kNot };
class UnaryExpr final : public BoundExpr {
 public:
  UnaryExpr(UnaryOp op, BoundExprPtr e) : op_(op), e_(std::move(e)) {}
  Value eval(const EvalContext& ctx) const override;

 private:
  UnaryOp op_;
  BoundExprPtr e_;
};

enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
class CompareExpr final : public BoundExpr {
 public:
  // `coerce`: the operands' categories are reconciled as sqlCompare does; false when an operand's
  // type is unknown at plan time (ANY), which leaves nothing to key a conversion on, so the
  // values compare by storage class (compareValues).
  CompareExpr(CompareOp op, BoundExprPtr l, BoundExprPtr r, Collation c, bool coerce = true)
      : op_(op), l_(std::move(l)), r_(std::move(r)), coll_(c), coerce_(coerce) { type = LogicalType::kBoolean; }
  Value eval(const EvalContext& ctx) const override;
  CompareOp op() const { return op_; }
  const BoundExpr& left() const { return *l_; }
  const BoundExpr& right() const { return *r_; }
  Collation comparisonCollation() const { return coll_; }
  bool coerces() const { return coerce_; }  // sqlCompare (true) or compareValues (false)

 private:
  CompareOp op_;
  BoundExprPtr l_, r_;
  Collation coll_;
  bool coerce_;
};

enum class LogicOp : uint8_t { kAnd, kOr, kXor };
class LogicExpr final : public BoundExpr {
 public:
  LogicExpr(LogicOp op, BoundExprPtr l, BoundExprPtr r) : op_(op), l_(std::move(l)), r_(std::move(r)) {
    type = LogicalType::kBoolean;
  }
  Value eval(const EvalContext& ctx) const override;
  LogicOp op() const { return op_; }
  const BoundExpr& left() const { return *l_; }
  const BoundExpr& right() const { return *r_; }

 private:
  LogicOp op_;
  BoundExprPtr l_, r_;
};

class IsNullExpr final : public BoundExpr {
 public:
  IsNullExpr(BoundExprPtr e, bool negated) : e_(std::move(e)), negated_(negated) {
    type = LogicalType::kBoolean;
  }
  Value eval(const EvalContext& ctx) const override;

 private:
  BoundExprPtr e_;
  bool negated_;
};

// x IS [NOT] TRUE|FALSE: total, never NULL.
class IsBoolExpr final : public BoundExpr {
 public:
  IsBoolExpr(BoundExprPtr e, bool value, bool negated) : e_(std::move(e)), value_(value), negated_(negated) {
    type = LogicalType::kBoolean;
  }
  Value eval(const EvalContext& ctx) const override;

 private:
  BoundExprPtr e_;
  bool value_;
  bool negated_;
};

class BetweenExpr final : public BoundExpr {
 public:
  BetweenExpr(BoundExprPtr e, BoundExprPtr lo, BoundExprPtr hi, Collation clo, Collation chi, bool negated)
      : e_(std::move(e)), lo_(std::move(lo)), hi_(std::move(hi)), clo_(clo), chi_(chi), negated_(negated) {
    type = LogicalType::kBoolean;
  }
  Value eval(const EvalContext& ctx) const override;
  const BoundExpr& operand() const { return *e_; }
  const BoundExpr& low() const { return *lo_; }
  const BoundExpr& high() const { return *hi_; }
  Collation lowCollation() const { return clo_; }
  Collation highCollation() const { return chi_; }
  bool negated() const { return negated_; }

 private:
  BoundExprPtr e_, lo_, hi_;
  Collation clo_, chi_;
  bool negated_;
};

class InListExpr final : public BoundExpr {
 public:
  InListExpr(BoundExprPtr e, std::vector<BoundExprPtr> list, Collation c, bool negated)
      : e_(std::move(e)), list_(std::move(list)), coll_(c), negated_(negated) {
    type = LogicalType::kBoolean;
  }
  Value eval(const EvalContext& ctx) const override;
  const BoundExpr& operand() const { return *e_; }
  const std::vector<BoundExprPtr>& items() const { return list_; }
  Collation collation() const { return coll_; }
  bool negated() const { return negated_; }

 private:
  BoundExprPtr e_;
  std::vector<BoundExprPtr> list_;
  Collation coll_;
  bool negated_;
};

// A subquery plan evaluated against the current row as its outer context. When the plan reads no
// outer row (uncorrelated) its rows are computed once per statement execution and cached.
class SubqueryRunner {
 public:
  SubqueryRunner(OperatorPtr plan, bool correlated) : plan_(std::move(plan)), correlated_(correlated) {}
  const std::vector<Row>& rows(const EvalContext& ctx) const;
  bool any(const EvalContext& ctx) const;  // EXISTS: stops at the first row

 private:
  OperatorPtr plan_;
  bool correlated_;
  mutable std::vector<Row> cache_;
  mutable const ExecState* cachedFor_ = nullptr;
  mutable uint64_t cachedRun_ = 0;
};

class ScalarSubqueryExpr final : public BoundExpr {
 public:
  explicit ScalarSubqueryExpr(SubqueryRunner r) : r_(std::move(r)) {}
  Value eval(const EvalContext& ctx) const override;

 private:
  SubqueryRunner r_;
};

class ExistsExpr final : public BoundExpr {
 public:
  ExistsExpr(SubqueryRunner r, bool negated) : r_(std::move(r)), negated_(negated) {
    type = LogicalType::kBoolean;
  }
  Value eval(const EvalContext& ctx) const override;

 private:
  SubqueryRunner r_;
  bool negated_;
};

class InSubqueryExpr final : public BoundExpr {
 public:
  InSubqueryExpr(BoundExprPtr e, SubqueryRunner r, Collation c, bool negated)
      : e_(std::move(e)), r_(std::move(r)), coll_(c), negated_(negated) {
    type = LogicalType::kBoolean;
  }
  Value eval(const EvalContext& ctx) const override;
  // Members compare under a semantic ordering (semanticComparand; `typed`: the subquery's column
  // is of that type). The probe is then a comparand too.
  void compareMembersAs(LogicalType ordering, bool typed) {
    memberOrdering_ = ordering;
    membersTyped_ = typed;
  }

 private:
  BoundExprPtr e_;
  SubqueryRunner r_;
  Collation coll_;
  bool negated_;
  LogicalType memberOrdering_ = LogicalType::kAny;
  bool membersTyped_ = false;
};

class FunctionExpr final : public BoundExpr {
 public:
  FunctionExpr(const ScalarFunction* fn, std::vector<BoundExprPtr> args) : fn_(fn), args_(std::move(args)) {}
  Value eval(const EvalContext& ctx) const override;
  // A picksArgument function over arguments of a semantic-ordering type compares them under it.
  void compareArgumentsAs(LogicalType ordering) { ordering_ = ordering; }

 private:
  // The picksArgument call under ordering_: the function runs over the comparands, and the
  // argument whose comparand it picked is returned.
  Value evalPicking(std::vector<Value>& args, const EvalContext& ctx) const;

  const ScalarFunction* fn_;
  std::vector<BoundExprPtr> args_;
  LogicalType ordering_ = LogicalType::kAny;
};

class CastExpr final : public BoundExpr {
 public:
  CastExpr(BoundExprPtr e, LogicalType to) : e_(std::move(e)), to_(to) { type = to; }
  Value eval(const EvalContext& ctx) const override;

 private:
  BoundExprPtr e_;
  LogicalType to_;
};

class CaseExpr final : public BoundExpr {
 public:
  struct When {
    BoundExprPtr when;
    BoundExprPtr then;
  };
  CaseExpr(BoundExprPtr operand, std::vector<When> whens, BoundExprPtr otherwise, Collation c)
      : operand_(std::move(operand)), whens_(std::move(whens)), else_(std::move(otherwise)), coll_(c) {}
  Value eval(const EvalContext& ctx) const override;

 private:
  BoundExprPtr operand_;
  std::vector<When> whens_;
  BoundExprPtr else_;
  Collation coll_;
};

enum class PatternKind : uint8_t { kLike, kGlob };
class PatternExpr final : public BoundExpr {
 public:
  PatternExpr(PatternKind k, BoundExprPtr e, BoundExprPtr pattern, BoundExprPtr escape, bool negated)
      : kind_(k), e_(std::move(e)), p_(std::move(pattern)), esc_(std::move(escape)), negated_(negated) {
    type = LogicalType::kBoolean;
  }
  Value eval(const EvalContext& ctx) const override;
  PatternKind kind() const { return kind_; }
  const BoundExpr& operand() const { return *e_; }
  const BoundExpr& pattern() const { return *p_; }
  bool hasEscape() const { return esc_ != nullptr; }
  bool negated() const { return negated_; }

 private:
  PatternKind kind_;
  BoundExprPtr e_, p_, esc_;
  bool negated_;
};

}  // namespace optic
