// Evaluation of the bound expression nodes (expression_nodes.h).
#include "core/execution/expression.h"

#include "core/execution/context.h"

#include "core/common/error.h"
#include "core/common/json.h"
#include "core/common/temporal.h"
#include "core/common/utf8.h"
#include "core/common/value_ops.h"
#include "core/execution/arithmetic.h"
#include "core/execution/expression_nodes.h"
#include "core/execution/functions/pattern.h"
#include "core/execution/temporal_arithmetic.h"

namespace optic {

ExecState engineExecState(Context& ctx, const std::vector<Value>* params) {
  ExecState st;
  st.ctx = &ctx;
  st.params = params;
  st.fn.randomState = ctx.randomState();
  st.fn.ctx = &ctx;
  st.runId = ctx.nextRunId();
  return st;
}

BoundExprPtr makeLiteral(Value v) { return std::make_unique<LiteralExpr>(std::move(v)); }

BoundExprPtr makeColumnRef(int depth, int index, LogicalType type) {
  auto e = std::make_unique<ColumnExpr>(depth, index);
  e->type = type;
  return e;
}

bool isTrue(const Value& v) {
  std::optional<bool> t = truthValue(v);
  return t.has_value() && *t;
}

bool isNumberLike(const Value& v) {
  return v.isNumeric() || v.kind() == ValueKind::kBoolean;
}

// Cross-category coercion (sql-core.md §1.9): a number compared with text converts the text to
// a number (non-numeric text counts as 0); JSON compared with text parses the text as JSON.
Value comparisonOperand(const Value& v, const Value& like) {
  if (isNumberLike(like) && v.isText()) {
    std::optional<Value> n = parseNumber(v.asText());
    return n ? *n : Value::integer(0);
  }
  if (like.kind() == ValueKind::kJson && v.isText()) {
    std::shared_ptr<const JsonDoc> doc = parseJson(v.asText());
    if (doc) return Value::json(std::move(doc));
  }
  return v;
}

namespace {

bool isNumericType(LogicalType t) {
  return t == LogicalType::kInteger || t == LogicalType::kReal || t == LogicalType::kNumeric ||
         t == LogicalType::kBoolean;
}

// A value conversion wrapped around an operand: it keeps the operand's static traits.
class OperandConversion : public BoundExpr {
 protected:
  explicit OperandConversion(BoundExprPtr e) : e_(std::move(e)) {
    type = e_->type;
    collation = e_->collation;
    collationRank = e_->collationRank;
    constant = e_->constant;
    correlated = e_->correlated;
    deterministic = e_->deterministic;
  }
  BoundExprPtr e_;
};

// comparisonOperand with a fixed partner category.
class CoerceKeyExpr final : public OperandConversion {
 public:
  CoerceKeyExpr(BoundExprPtr e, Value like) : OperandConversion(std::move(e)), like_(std::move(like)) {}
  Value eval(const EvalContext& ctx) const override { return comparisonOperand(e_->eval(ctx), like_); }

 private:
  Value like_;
};

}  // namespace

namespace {

class ComparandExpr final : public BoundExpr {
 public:
  ComparandExpr(BoundExprPtr e, LogicalType semantic)
      : e_(std::move(e)), semantic_(semantic), typed_(e_->type == semantic) {
    type = semantic;
    collation = e_->collation;
    collationRank = e_->collationRank;
    constant = e_->constant;
    correlated = e_->correlated;
    deterministic = e_->deterministic;
  }
  Value eval(const EvalContext& ctx) const override { return semanticComparand(e_->eval(ctx), semantic_, typed_); }

 private:
  BoundExprPtr e_;
  LogicalType semantic_;
  bool typed_;
};

}  // namespace

BoundExprPtr asComparand(BoundExprPtr e, LogicalType semantic) {
  return std::make_unique<ComparandExpr>(std::move(e), semantic);
}

BoundExprPtr orderingKey(BoundExprPtr e) {
  if (!hasSemanticOrdering(e->type)) return e;
  LogicalType t = e->type;
  return asComparand(std::move(e), t);
}

LogicalType comparisonOrdering(std::initializer_list<LogicalType> types) {
  LogicalType out = LogicalType::kAny;
  for (LogicalType t : types) {
    if (t == LogicalType::kJson) return t;
    if (t == LogicalType::kTimespan) out = t;
  }
  return out;
}

BoundExprPtr coerceKeyToward(BoundExprPtr key, LogicalType partner) {
  LogicalType semantic = comparisonOrdering({key->type, partner});
  if (semantic != LogicalType::kAny) return asComparand(std::move(key), semantic);
  if (!isTextLike(key->type)) return key;
  // As the comparison's plan-time rule casts TEXT toward a number type (expr_binder.cpp).
  if (key->type == LogicalType::kText && partner != LogicalType::kBoolean && isNumericType(partner)) {
    return std::make_unique<CastExpr>(std::move(key), partner);
  }
  if (isNumericType(partner)) return std::make_unique<CoerceKeyExpr>(std::move(key), Value::integer(0));
  return key;
}

TemporalOp temporalOpOf(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd: return TemporalOp::kAdd;
    case ArithOp::kSub: return TemporalOp::kSub;
    case ArithOp::kMul: return TemporalOp::kMul;
    case ArithOp::kDiv: return TemporalOp::kDiv;
    default: return TemporalOp::kMod;
  }
}

std::optional<int> sqlCompare(const Value& a, const Value& b, Collation c) {
  if (a.isNull() || b.isNull()) return std::nullopt;
  if (isNumberLike(a) != isNumberLike(b) || (a.kind() == ValueKind::kJson) != (b.kind() == ValueKind::kJson)) {
    return compareValues(comparisonOperand(a, b), comparisonOperand(b, a), c);
  }
  return compareValues(a, b, c);
}

Value ColumnExpr::eval(const EvalContext& ctx) const {
  const EvalContext* c = &ctx;
  for (int d = depth_; d > 0; --d) c = c->outer;
  return (*c->row)[index_];
}

Value ParamExpr::eval(const EvalContext& ctx) const {
  const std::vector<Value>* params = ctx.exec->params;
  if (!params || slot_ < 1 || static_cast<size_t>(slot_) > params->size()) return Value();
  return (*params)[slot_ - 1];
}

Value ArithExpr::eval(const EvalContext& ctx) const {
  Value a = l_->eval(ctx);
  Value b = r_->eval(ctx);
  if (temporal_ && op_ != ArithOp::kConcat) {
    if (std::optional<Value> t = evalTemporal(temporalOpOf(op_), a, b)) return std::move(*t);
  }
  switch (op_) {
    case ArithOp::kAdd: return add(a, b);
    case ArithOp::kSub: return subtract(a, b);
    case ArithOp::kMul: return multiply(a, b);
    case ArithOp::kDiv: return divide(a, b);
    case ArithOp::kMod: return remainder(a, b);
    case ArithOp::kConcat: return concat(a, b);
  }
  return Value();
}

Value UnaryExpr::eval(const EvalContext& ctx) const {
  Value v = e_->eval(ctx);
  switch (op_) {
    case UnaryOp::kNeg: return negate(v);
    case UnaryOp::kPlus: return plus(v);
    case UnaryOp::kBitNot: return bitNot(v);
    case UnaryOp::kNot: {
      std::optional<bool> t = truthValue(v);
      return t ? Value::boolean(!*t) : Value();
    }
  }
  return Value();
}

namespace {
bool compareHolds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
  }
  return false;
}
}  // namespace

Value CompareExpr::eval(const EvalContext& ctx) const {
  Value a = l_->eval(ctx);
  Value b = r_->eval(ctx);
  if (a.isNull() || b.isNull()) return Value();
  std::optional<int> c = coerce_ ? sqlCompare(a, b, coll_) : compareValues(a, b, coll_);
  return Value::boolean(compareHolds(op_, *c));
}

Value LogicExpr::eval(const EvalContext& ctx) const {
  std::optional<bool> a = truthValue(l_->eval(ctx));
  if (op_ == LogicOp::kAnd && a && !*a) return Value::boolean(false);
  if (op_ == LogicOp::kOr && a && *a) return Value::boolean(true);
  std::optional<bool> b = truthValue(r_->eval(ctx));
  switch (op_) {
    case LogicOp::kAnd:
      if (b && !*b) return Value::boolean(false);
      if (a && b) return Value::boolean(true);
      return Value();
    case LogicOp::kOr:
      if (b && *b) return Value::boolean(true);
      if (a && b) return Value::boolean(false);
      return Value();
    case LogicOp::kXor:
      if (!a || !b) return Value();
      return Value::boolean(*a != *b);
  }
  return Value();
}

Value IsNullExpr::eval(const EvalContext& ctx) const {
  return Value::boolean(e_->eval(ctx).isNull() != negated_);
}

Value IsBoolExpr::eval(const EvalContext& ctx) const {
  std::optional<bool> t = truthValue(e_->eval(ctx));
  bool is = t.has_value() && *t == value_;
  return Value::boolean(is != negated_);
}

Value BetweenExpr::eval(const EvalContext& ctx) const {
  Value v = e_->eval(ctx);
  std::optional<int> lo = sqlCompare(v, lo_->eval(ctx), clo_);
  std::optional<int> hi = sqlCompare(v, hi_->eval(ctx), chi_);
  // Three-valued: false if either bound certainly fails, NULL if unknown, else true.
  bool loFails = lo && *lo < 0;
  bool hiFails = hi && *hi > 0;
  if (loFails || hiFails) return Value::boolean(negated_);
  if (!lo || !hi) return Value();
  return Value::boolean(!negated_);
}

namespace {
// IN over a candidate sequence: true on a match; NULL when no match but a NULL was seen.
template <typename Next>
Value inResult(const Value& v, Collation c, bool negated, Next&& next) {
  if (v.isNull()) return Value();
  bool sawNull = false;
  const Value* candidate;
  Value holder;
  while (next(holder)) {
    candidate = &holder;
    std::optional<int> r = sqlCompare(v, *candidate, c);
    if (!r) sawNull = true;
    else if (*r == 0) return Value::boolean(!negated);
  }
  if (sawNull) return Value();
  return Value::boolean(negated);
}
}  // namespace

Value InListExpr::eval(const EvalContext& ctx) const {
  Value v = e_->eval(ctx);
  size_t i = 0;
  return inResult(v, coll_, negated_, [&](Value& out) {
    if (i >= list_.size()) return false;
    out = list_[i++]->eval(ctx);
    return true;
  });
}

const std::vector<Row>& SubqueryRunner::rows(const EvalContext& ctx) const {
  if (!correlated_ && cachedFor_ == ctx.exec && cachedRun_ == ctx.exec->runId) return cache_;
  cache_ = drain(*plan_, *ctx.exec, &ctx);
  cachedFor_ = ctx.exec;
  cachedRun_ = ctx.exec->runId;
  if (correlated_) cachedFor_ = nullptr;
  return cache_;
}

bool SubqueryRunner::any(const EvalContext& ctx) const {
  if (!correlated_) return !rows(ctx).empty();
  plan_->open(*ctx.exec, &ctx);
  Row r;
  bool found = plan_->next(r);
  plan_->close();
  return found;
}

Value ScalarSubqueryExpr::eval(const EvalContext& ctx) const {
  const std::vector<Row>& rows = r_.rows(ctx);
  if (rows.empty()) return Value();
  if (rows.size() > 1) fail("Scalar subquery returned more than one row");
  return rows[0].empty() ? Value() : rows[0][0];
}

Value ExistsExpr::eval(const EvalContext& ctx) const {
  return Value::boolean(r_.any(ctx) != negated_);
}

Value InSubqueryExpr::eval(const EvalContext& ctx) const {
  Value v = e_->eval(ctx);
  if (v.isNull()) return Value();
  const std::vector<Row>& rows = r_.rows(ctx);
  size_t i = 0;
  return inResult(v, coll_, negated_, [&](Value& out) {
    if (i >= rows.size()) return false;
    const Value& member = rows[i++][0];
    out = memberOrdering_ == LogicalType::kAny ? member : semanticComparand(member, memberOrdering_, membersTyped_);
    return true;
  });
}

Value FunctionExpr::eval(const EvalContext& ctx) const {
  // Small fixed buffer: most calls have at most 4 arguments.
  std::vector<Value> args;
  args.reserve(args_.size());
  for (const BoundExprPtr& a : args_) args.push_back(a->eval(ctx));
  if (ordering_ != LogicalType::kAny) return evalPicking(args, ctx);
  return fn_->impl(Args(args.data(), args.size()), ctx.exec->fn);
}

Value FunctionExpr::evalPicking(std::vector<Value>& args, const EvalContext& ctx) const {
  std::vector<Value> keys;
  keys.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) keys.push_back(semanticComparand(args[i], ordering_, args_[i]->type == ordering_));
  Value picked = fn_->impl(Args(keys.data(), keys.size()), ctx.exec->fn);
  if (picked.isNull()) return picked;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!keys[i].isNull() && compareValues(keys[i], picked) == 0) return args[i];
  }
  return picked;
}

Value CastExpr::eval(const EvalContext& ctx) const { return castTo(e_->eval(ctx), to_); }

Value CaseExpr::eval(const EvalContext& ctx) const {
  if (operand_) {
    Value v = operand_->eval(ctx);
    for (const When& w : whens_) {
      std::optional<int> c = sqlCompare(v, w.when->eval(ctx), coll_);
      if (c && *c == 0) return w.then->eval(ctx);
    }
  } else {
    for (const When& w : whens_) {
      if (isTrue(w.when->eval(ctx))) return w.then->eval(ctx);
    }
  }
  return else_ ? else_->eval(ctx) : Value();
}

Value PatternExpr::eval(const EvalContext& ctx) const {
  Value v = e_->eval(ctx);
  Value p = p_->eval(ctx);
  if (v.isNull() || p.isNull()) return Value();
  // Text operands are matched in place; others as their text.
  std::string textCopy, patternCopy;
  std::string_view text = v.isText() ? std::string_view(v.asText()) : std::string_view(textCopy = toText(v));
  std::string_view pattern = p.isText() ? std::string_view(p.asText()) : std::string_view(patternCopy = toText(p));
  bool m;
  if (kind_ == PatternKind::kLike) {
    std::optional<uint32_t> esc;
    if (esc_) {
      Value e = esc_->eval(ctx);
      if (e.isNull()) return Value();
      std::string s = toText(e);
      size_t i = 0;
      if (!s.empty()) esc = utf8Decode(s, i);
    }
    m = likeMatch(pattern, text, esc);
  } else {
    m = globMatch(pattern, text);
  }
  return Value::boolean(m != negated_);
}

std::vector<Row> drain(Operator& op, ExecState& state, const EvalContext* outer) {
  std::vector<Row> rows;
  op.open(state, outer);
  Row r;
  while (op.next(r)) {
    tickRow(state);
    rows.push_back(std::move(r));
    r.clear();  // an operator's next() fills an empty row as it does the first time
  }
  op.close();
  return rows;
}

}  // namespace optic
