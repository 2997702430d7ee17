// Binding of AST expressions (expr_binder.h).
#include "core/planner/expr_binder.h"

#include <algorithm>
#include <optional>

#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/execution/expression_nodes.h"
#include "core/execution/temporal_arithmetic.h"
#include "core/parser/printer.h"
#include "core/planner/change_scope.h"

namespace optic {
namespace {

bool sameName(const std::string& a, const std::string& b) { return lowerName(a) == lowerName(b); }

[[noreturn]] void failAt(const std::string& msg, const ast::SourcePos& pos) {
  throw Error(ErrorCode::kError, msg, pos.line, pos.column);
}

// A clock reader's call that reads the clock: no arguments, or 'now' (literal or parameter).
bool readsClock(const ast::Expr& call) {
  if (call.args.empty()) return true;
  for (const auto& a : call.args) {
    if (a->kind == ast::ExprKind::kParam) return true;
    if (a->kind == ast::ExprKind::kLiteral && a->value.isText() && lowerName(a->value.asText()) == "now") return true;
  }
  return false;
}

bool isComparison(const std::string& op) {
  return op == "=" || op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

CompareOp compareOpOf(const std::string& op) {
  if (op == "=" || op == "==") return CompareOp::kEq;
  if (op == "!=") return CompareOp::kNe;
  if (op == "<") return CompareOp::kLt;
  if (op == "<=") return CompareOp::kLe;
  if (op == ">") return CompareOp::kGt;
  return CompareOp::kGe;
}

template <typename F>
void walk(const ast::Expr& e, F&& f) {
  if (!f(e)) return;
  for (const auto& a : e.args) if (a) walk(*a, f);
  for (const auto& w : e.whens) {
    if (w.when) walk(*w.when, f);
    if (w.then) walk(*w.then, f);
  }
  if (e.elseExpr) walk(*e.elseExpr, f);
}

// Cross-category comparison (sql-core.md §1.9), decided at plan time: when one operand is known
// to be a number and the other plain TEXT, the text side is cast to the number's type, so
// `text_col = 1` compares cast(text_col as integer) (numeric-prefix parsing, '1abc' = 1). JSON and
// TIMESPAN operands compare under their semantic ordering (reconcileSemanticOperands).
void reconcileComparison(BoundExprPtr& l, BoundExprPtr& r) {
  LogicalType lt = staticType(*l);
  LogicalType rt = staticType(*r);
  if (isNumberType(lt) && rt == LogicalType::kText) r = std::make_unique<CastExpr>(std::move(r), lt);
  else if (isNumberType(rt) && lt == LogicalType::kText) l = std::make_unique<CastExpr>(std::move(l), rt);
}

// The plan-time gate of ScalarFunction::numericArgs: a number, or a type not known until run
// time (ANY, NULL, a parameter). A literal is classified by its value.
bool isNumericOrUnknown(const BoundExpr& a) {
  LogicalType t = staticType(a);
  return !(isTextLike(t) || t == LogicalType::kBlob || t == LogicalType::kJson);
}

}  // namespace

// The type an expression is known to have at plan time: its declared type, or for an untyped
// literal the class of its value (kAny when nothing is known).
LogicalType staticType(const BoundExpr& a) {
  if (a.type != LogicalType::kAny) return a.type;
  const auto* lit = dynamic_cast<const LiteralExpr*>(&a);
  if (!lit) return LogicalType::kAny;
  switch (lit->value().kind()) {
    case ValueKind::kInteger:
    case ValueKind::kBigInt: return LogicalType::kInteger;
    case ValueKind::kReal: return LogicalType::kReal;
    case ValueKind::kText: return LogicalType::kText;
    case ValueKind::kBlob: return LogicalType::kBlob;
    case ValueKind::kJson: return LogicalType::kJson;
    default: return LogicalType::kAny;
  }
}

bool isNumberType(LogicalType t) {
  return t == LogicalType::kInteger || t == LogicalType::kReal || t == LogicalType::kNumeric;
}

namespace {

// When any of `operands` is of a semantic-ordering type (comparisonOrdering), every one becomes
// a comparand under it, so the comparison (=, BETWEEN, IN, simple CASE) follows that ordering.
LogicalType orderingOf(const std::vector<const BoundExpr*>& operands) {
  LogicalType semantic = LogicalType::kAny;
  for (const BoundExpr* e : operands) {
    LogicalType t = comparisonOrdering({semantic, e->type});
    if (t != LogicalType::kAny) semantic = t;
  }
  return semantic;
}

void reconcileSemanticOperands(const std::vector<BoundExprPtr*>& operands) {
  std::vector<const BoundExpr*> exprs;
  for (BoundExprPtr* e : operands) exprs.push_back(e->get());
  LogicalType semantic = orderingOf(exprs);
  if (semantic == LogicalType::kAny) return;
  for (BoundExprPtr* e : operands) *e = asComparand(std::move(*e), semantic);
}

// The type of arithmetic over two numbers, as the reference types it so that a computed operand
// keys a comparison's conversion like a column does (`n * 1.5 >= '2'` casts the text to REAL):
// REAL when either side is REAL, INTEGER when both are, else NUMERIC. Anything else is not
// known until run time (kAny). One departure: INTEGER / INTEGER is NUMERIC, since the quotient
// is REAL when inexact (5 / 2 = 2.5) and a column typed INTEGER must not claim it.
LogicalType numericResultType(ArithOp op, const BoundExpr& l, const BoundExpr& r) {
  LogicalType lt = staticType(l);
  LogicalType rt = staticType(r);
  if (!isNumberType(lt) || !isNumberType(rt)) return LogicalType::kAny;
  if (lt == LogicalType::kReal || rt == LogicalType::kReal) return LogicalType::kReal;
  if (lt == LogicalType::kInteger && rt == LogicalType::kInteger && op != ArithOp::kDiv) return LogicalType::kInteger;
  return LogicalType::kNumeric;
}

// Unary minus and plus keep their operand's type (a literal's too: `-1` is an INTEGER);
// `~` yields an INTEGER from a number.
LogicalType unaryResultType(UnaryOp op, const BoundExpr& operand) {
  LogicalType t = staticType(operand);
  if (op == UnaryOp::kBitNot) return isNumberType(t) ? LogicalType::kInteger : operand.type;
  return isNumberType(t) ? t : operand.type;
}

// Whether a comparison has a category to key a conversion on: a parameter counts as known (its
// value's class is its type), an ANY-typed expression (json_extract, an ANY column) does not.
bool typeKnown(const BoundExpr& a) {
  return staticType(a) != LogicalType::kAny || dynamic_cast<const ParamExpr*>(&a) != nullptr;
}

// The path operand of `->` / `->>`: besides a JSON path it takes shorthands, a member name
// ('name' is '$.name') or an array index (0 is '$[0]').
class ArrowPathExpr final : public BoundExpr {
 public:
  explicit ArrowPathExpr(BoundExprPtr path) : path_(std::move(path)) {
    type = LogicalType::kText;
    constant = path_->constant;
    correlated = path_->correlated;
    deterministic = path_->deterministic;
  }
  Value eval(const EvalContext& ctx) const override {
    Value p = path_->eval(ctx);
    if (p.kind() == ValueKind::kInteger) return Value::text("$[" + std::to_string(p.asInt()) + "]");
    if (p.isText() && (p.asText().empty() || p.asText()[0] != '$')) return Value::text("$." + p.asText());
    return p;
  }

 private:
  BoundExprPtr path_;
};

}  // namespace

bool isAggregateCall(const ast::Expr& e, const Context& ctx) {
  if (e.kind != ast::ExprKind::kFunction || e.window || !e.windowName.empty()) return false;
  int n = e.star ? 0 : static_cast<int>(e.args.size());
  if (ctx.functions().findScalar(e.name, n)) return false;
  return ctx.functions().findAggregate(e.name, n) != nullptr;
}

void collectAggregates(const ast::Expr& e, const Context& ctx, std::vector<const ast::Expr*>& out) {
  walk(e, [&](const ast::Expr& x) {
    if (isAggregateCall(x, ctx)) {
      out.push_back(&x);
      return false;
    }
    return x.kind != ast::ExprKind::kFunction || !x.window;  // window args are handled separately
  });
}

void collectWindowCalls(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
  walk(e, [&](const ast::Expr& x) {
    if (x.kind == ast::ExprKind::kFunction && (x.window || !x.windowName.empty())) {
      out.push_back(&x);
      return false;
    }
    return true;
  });
}

bool ExprBinder::capturedBelow(const Scope* outer, const std::string& name) const {
  for (const Scope* s = &scope_; s && s != outer; s = s->parent) {
    for (const ScopeColumn& c : s->columns) if (!c.hidden && sameName(c.name, name)) return true;
  }
  return false;
}

namespace {

// Whether `scope` itself (not its parents) has the column.
bool hasColumn(const Scope& scope, const std::string& table, const std::string& name) {
  return std::any_of(scope.columns.begin(), scope.columns.end(), [&](const ScopeColumn& c) {
    return sameName(c.name, name) && (table.empty() ? !c.hidden : sameName(c.table, table));
  });
}

}  // namespace

std::pair<int, int> ExprBinder::resolveColumn(const std::string& table, const std::string& name,
                                              const ast::SourcePos& pos) const {
  int depth = 0;
  for (const Scope* s = &scope_; s; s = s->parent, ++depth) {
    int found = -1;
    for (size_t i = 0; i < s->columns.size(); ++i) {
      const ScopeColumn& c = s->columns[i];
      if (!sameName(c.name, name)) continue;
      if (table.empty() ? c.hidden : !sameName(c.table, table)) continue;
      if (found >= 0 && table.empty() && s->columns[found].claimsBareName != c.claimsBareName) {
        if (c.claimsBareName) found = static_cast<int>(i);
        continue;
      }
      if (found >= 0) failAt("ambiguous column name: " + name, pos);
      found = static_cast<int>(i);
    }
    if (found >= 0) {
      const ScopeColumn& c = s->columns[found];
      if (c.ruleRow && depth > 0 && !table.empty() && capturedBelow(s, name)) {
        failAt(table + "." + name + " isn't a column here: a source of the subquery has a column '" + name + "'", pos);
      }
      binder_.reads().readColumn(c.read, c.baseColumn);
      return {depth, found};
    }
    // A correlated reference may name an alias of an enclosing grouped level.
    if (depth > 0 && table.empty()) {
      for (const auto& [alias, index] : s->aliases) {
        if (sameName(alias, name)) return {depth, index};
      }
    }
    if (depth > 0 && s->ungrouped && hasColumn(*s->ungrouped, table, name)) {
      std::string full = table.empty() ? name : table + "." + name;
      failAt("Column '" + full + "' must appear in the GROUP BY clause or be used in an aggregate function", pos);
    }
  }
  // The reference keys its scopes by flat strings, qualified spellings included, so a quoted
  // name holding a dot (`"t.x"`) reaches column x of t when no column is named so.
  size_t dot = name.rfind('.');
  if (table.empty() && dot != std::string::npos && dot > 0 && dot + 1 < name.size()) {
    return resolveColumn(name.substr(0, dot), name.substr(dot + 1), pos);
  }
  std::string full = table.empty() ? name : table + "." + name;
  throw Error(ErrorCode::kNotFound, "Column not found: " + full, pos.line, pos.column, full);
}

RankedCollation rankedCollation(const BoundExpr& e) { return {e.collation, e.collationRank}; }

RankedCollation mergeCollations(const std::vector<RankedCollation>& votes, bool conflictIsError) {
  RankedCollation best;
  std::optional<Collation> rival;  // a different collation at best's rank
  for (const RankedCollation& v : votes) {
    if (v.rank == 0) continue;
    if (v.rank > best.rank) {
      best = v;
      rival.reset();
    } else if (v.rank == best.rank && v.collation != best.collation && !rival) {
      rival = v.collation;
    }
  }
  if (!rival) return best;
  if (conflictIsError && best.rank >= 2) {
    std::string left(collationName(best.collation)), right(collationName(*rival));
    if (best.rank == 3) fail("conflicting COLLATE clauses in comparison: " + left + " vs " + right);
    fail("ambiguous collation for comparison: column collations " + left + " vs " + right +
         " differ; apply an explicit COLLATE");
  }
  return {};
}

Collation comparisonCollation(const BoundExpr& a, const BoundExpr& b) {
  return mergeCollations({rankedCollation(a), rankedCollation(b)}, true).collation;
}

BoundExprPtr ExprBinder::bindDerived(const ast::Expr& e) {
  if (!slots_) return nullptr;
  if (e.kind == ast::ExprKind::kLiteral || e.kind == ast::ExprKind::kParam) return nullptr;
  std::string text = printFingerprint(e);
  for (size_t i = 0; i < slots_->aggTexts.size(); ++i) {
    if (slots_->aggTexts[i] == text) return slotRef(slots_->aggBase + static_cast<int>(i));
  }
  for (size_t i = 0; i < slots_->keyTexts.size(); ++i) {
    if (slots_->keyTexts[i] == text) return slotRef(static_cast<int>(i));
  }
  if (e.kind == ast::ExprKind::kColumn && slots_->inputScope) {
    // A column of the grouped level: allowed only when it is (the same column as) a group key.
    ExprBinder inner(binder_, *slots_->inputScope);
    auto [depth, index] = inner.resolveColumn(e.table, e.name, e.pos);
    if (depth > 0) return nullptr;  // correlated: bind normally against the outer scopes
    for (size_t i = 0; i < slots_->keyColumns.size(); ++i) {
      if (slots_->keyColumns[i] == index) {
        const ScopeColumn& c = slots_->inputScope->columns[index];
        auto ref = makeColumnRef(0, static_cast<int>(i), c.type);
        ref->collation = c.collation;
        ref->collationRank = c.collationRank;
        return ref;
      }
    }
    if (slots_->windowMode) {
      auto ref = makeColumnRef(0, index, slots_->inputScope->columns[index].type);
      ref->collation = slots_->inputScope->columns[index].collation;
      ref->collationRank = slots_->inputScope->columns[index].collationRank;
      return ref;
    }
    std::string full = e.table.empty() ? e.name : e.table + "." + e.name;
    if (slots_->having) {
      failAt("HAVING references non-grouped column '" + e.name +
                 "'; HAVING may only reference GROUP BY columns or aggregate expressions",
             e.pos);
    }
    if (slots_->implicitGroup) {
      failAt("Cannot mix aggregate and non-aggregate columns in SELECT list without GROUP BY (column '" + full + "')",
             e.pos);
    }
    failAt("Column '" + full + "' must appear in the GROUP BY clause or be used in an aggregate function", e.pos);
  }
  return nullptr;
}

namespace {

// Whether a column `e` names (outside subqueries, which are never matched) is a column of a scope
// from `from` up to, not including, `stop`: the expression then reads the subquery's own rows.
bool readsBelow(const ast::Expr& e, const Scope* from, const Scope* stop) {
  if (e.select || e.window || e.filter) return true;  // not a plain expression: never redirected
  if (e.kind == ast::ExprKind::kColumn) {
    for (const Scope* s = from; s && s != stop; s = s->parent) {
      if (hasColumn(*s, e.table, e.name)) return true;
    }
    return false;
  }
  auto below = [&](const ast::ExprPtr& x) { return x && readsBelow(*x, from, stop); };
  if (std::any_of(e.args.begin(), e.args.end(), below) || below(e.elseExpr)) return true;
  return std::any_of(e.whens.begin(), e.whens.end(),
                     [&](const ast::CaseWhen& w) { return below(w.when) || below(w.then); });
}

}  // namespace

// A grouped level's correlated subqueries may spell one of its grouping keys (`group by a || '!'`
// and `(select … where t.c = a || '!')`): when the expression's columns all come from outside
// the subquery, it reads the group's key value, as a bare key column does.
BoundExprPtr ExprBinder::bindOuterGroupKey(const ast::Expr& e) const {
  if (e.kind == ast::ExprKind::kLiteral || e.kind == ast::ExprKind::kParam || e.kind == ast::ExprKind::kColumn) {
    return nullptr;
  }
  int depth = 1;
  const Scope* grouped = scope_.parent;
  while (grouped && grouped->keyTexts.empty()) grouped = grouped->parent, ++depth;
  if (!grouped) return nullptr;
  std::string text = printFingerprint(e);
  auto key = std::find(grouped->keyTexts.begin(), grouped->keyTexts.end(), text);
  if (key == grouped->keyTexts.end() || readsBelow(e, &scope_, grouped)) return nullptr;
  int slot = static_cast<int>(key - grouped->keyTexts.begin());
  const ScopeColumn& c = grouped->columns[slot];
  auto ref = makeColumnRef(depth, slot, c.type);
  ref->collation = c.collation;
  ref->collationRank = c.collationRank;
  return ref;
}

BoundExprPtr ExprBinder::slotRef(int slot) const {
  // Over the aggregate's output scope the slot's column carries the key's or the aggregate's
  // static type and collation; a window's appended slots (past the scope) are untyped.
  if (&scope_ == slots_->inputScope || slot >= static_cast<int>(scope_.columns.size())) {
    return makeColumnRef(0, slot, LogicalType::kAny);
  }
  const ScopeColumn& c = scope_.columns[slot];
  auto ref = makeColumnRef(0, slot, c.type);
  ref->collation = c.collation;
  ref->collationRank = c.collationRank;
  return ref;
}

const ast::Expr* ExprBinder::aliasFor(const ast::Expr& e) const {
  if (!aliases_ || e.kind != ast::ExprKind::kColumn || !e.table.empty()) return nullptr;
  const Scope& columns = slots_ && slots_->inputScope ? *slots_->inputScope : scope_;
  // A real column wins; in a grouped scope only a grouping key's column is one (any other would
  // be the strict GROUP BY error), so an alias outranks the rest.
  bool grouped = slots_ && !slots_->windowMode && !slots_->implicitGroup;
  for (size_t i = 0; i < columns.columns.size(); ++i) {
    const ScopeColumn& c = columns.columns[i];
    if (c.hidden || lowerName(c.name) != lowerName(e.name)) continue;
    if (!grouped) return nullptr;
    const std::vector<int>& keys = slots_->keyColumns;
    if (std::find(keys.begin(), keys.end(), static_cast<int>(i)) != keys.end()) return nullptr;
  }
  const ast::Expr* found = nullptr;
  for (const auto& [alias, expr] : *aliases_) {
    // An alias holding a dot is not a name in the reference's scope (its flat keys could not tell
    // it from a qualified spelling), so `"wg.b"` keeps naming the column b of wg.
    if (alias.find('.') != std::string::npos) continue;
    if (lowerName(alias) != lowerName(e.name)) continue;
    if (!grouped) return expr;
    // Two aliases of one name over different grouping expressions: nothing arbitrates.
    if (found && printFingerprint(*found) != printFingerprint(*expr)) failAt("ambiguous column name: " + e.name, e.pos);
    if (!found) found = expr;
  }
  return found;
}

BoundExprPtr ExprBinder::bind(const ast::Expr& e) {
  if (const ast::Expr* aliased = aliasFor(e)) {
    ExprBinder inner(binder_, scope_, slots_);
    return inner.bind(*aliased);
  }
  if (BoundExprPtr d = bindDerived(e)) return d;
  if (BoundExprPtr k = bindOuterGroupKey(e)) return k;
  using K = ast::ExprKind;
  switch (e.kind) {
    case K::kLiteral:
      return makeLiteral(e.value);
    case K::kColumn:
      return bindColumn(e);
    case K::kParam: {
      int slot = binder_.paramSlot(e);
      binder_.reads().parameter(slot, &e);
      return std::make_unique<ParamExpr>(slot);
    }
    case K::kUnary: {
      BoundExprPtr x = bind(*e.args[0]);
      UnaryOp op = e.op == "-" ? UnaryOp::kNeg : e.op == "+" ? UnaryOp::kPlus : e.op == "~" ? UnaryOp::kBitNot : UnaryOp::kNot;
      bool c = x->constant;
      LogicalType t = op == UnaryOp::kNot ? LogicalType::kBoolean : unaryResultType(op, *x);
      auto u = std::make_unique<UnaryExpr>(op, std::move(x));
      u->constant = c;
      u->type = t;
      return u;
    }
    case K::kBinary:
      return bindBinary(e);
    case K::kIsNull: {
      auto x = bind(*e.args[0]);
      bool c = x->constant;
      auto r = std::make_unique<IsNullExpr>(std::move(x), e.negated);
      r->constant = c;
      return r;
    }
    case K::kIsBool:
      return std::make_unique<IsBoolExpr>(bind(*e.args[0]), e.boolValue, e.negated);
    case K::kBetween: {
      auto x = bind(*e.args[0]);
      auto lo = bind(*e.args[1]);
      auto hi = bind(*e.args[2]);
      Collation clo = comparisonCollation(*x, *lo);
      Collation chi = comparisonCollation(*x, *hi);
      reconcileSemanticOperands({&x, &lo, &hi});
      return std::make_unique<BetweenExpr>(std::move(x), std::move(lo), std::move(hi), clo, chi, e.negated);
    }
    case K::kInList: {
      auto x = bind(*e.args[0]);
      std::vector<BoundExprPtr> list;
      std::vector<RankedCollation> members;
      for (size_t i = 1; i < e.args.size(); ++i) {
        list.push_back(bind(*e.args[i]));
        members.push_back(rankedCollation(*list.back()));
      }
      // The list's members merge first, then meet the tested value, as one comparison.
      Collation c = mergeCollations({rankedCollation(*x), mergeCollations(members, true)}, true).collation;
      std::vector<BoundExprPtr*> operands{&x};
      for (BoundExprPtr& item : list) operands.push_back(&item);
      reconcileSemanticOperands(operands);
      return std::make_unique<InListExpr>(std::move(x), std::move(list), c, e.negated);
    }
    case K::kInSelect: {
      auto x = bind(*e.args[0]);
      QueryPlan q = binder_.bindQuery(*e.select, &scope_);
      if (q.columns.size() != 1) failAt("IN subquery must return exactly one column", e.pos);
      const OutputColumn& member = q.columns[0];
      Collation c = mergeCollations({rankedCollation(*x), {member.collation, member.collationRank}}, true).collation;
      LogicalType semantic = comparisonOrdering({x->type, q.columns[0].type});
      if (semantic != LogicalType::kAny) x = asComparand(std::move(x), semantic);
      auto in = std::make_unique<InSubqueryExpr>(std::move(x), SubqueryRunner(std::move(q.root), true), c, e.negated);
      if (semantic != LogicalType::kAny) in->compareMembersAs(semantic, q.columns[0].type == semantic);
      return in;
    }
    case K::kExists: {
      QueryPlan q = binder_.bindQuery(*e.select, &scope_);
      return std::make_unique<ExistsExpr>(SubqueryRunner(std::move(q.root), true), e.negated);
    }
    case K::kSubquery: {
      QueryPlan q = binder_.bindQuery(*e.select, &scope_);
      if (q.columns.size() != 1) failAt("Scalar subquery must return exactly one column", e.pos);
      auto s = std::make_unique<ScalarSubqueryExpr>(SubqueryRunner(std::move(q.root), true));
      s->type = q.columns[0].type;
      s->collation = q.columns[0].collation;
      s->collationRank = q.columns[0].collationRank;
      return s;
    }
    case K::kFunction:
      return bindFunction(e);
    case K::kCast: {
      auto x = bind(*e.args[0]);
      bool c = x->constant;
      auto r = std::make_unique<CastExpr>(std::move(x), logicalTypeFromName(e.typeName));
      r->constant = c;
      return r;
    }
    case K::kCollate: {
      auto x = bind(*e.args[0]);
      std::optional<Collation> c = collationFromName(e.name);
      if (!c) failAt("no such collation sequence: " + e.name, e.pos);
      x->collation = *c;
      x->collationRank = 3;
      return x;
    }
    case K::kCase: {
      BoundExprPtr operand = e.args.empty() || !e.args[0] ? nullptr : bind(*e.args[0]);
      std::vector<CaseExpr::When> whens;
      Collation c = Collation::kBinary;
      for (const auto& w : e.whens) {
        CaseExpr::When bw{bind(*w.when), bind(*w.then)};
        if (operand) c = comparisonCollation(*operand, *bw.when);
        whens.push_back(std::move(bw));
      }
      if (operand) {
        std::vector<BoundExprPtr*> operands{&operand};
        for (CaseExpr::When& w : whens) operands.push_back(&w.when);
        reconcileSemanticOperands(operands);
      }
      BoundExprPtr otherwise = e.elseExpr ? bind(*e.elseExpr) : nullptr;
      LogicalType t = whens.empty() ? LogicalType::kAny : whens[0].then->type;
      auto r = std::make_unique<CaseExpr>(std::move(operand), std::move(whens), std::move(otherwise), c);
      r->type = t;
      return r;
    }
    case K::kLike: {
      auto x = bind(*e.args[0]);
      auto p = bind(*e.args[1]);
      BoundExprPtr esc = e.args.size() > 2 ? bind(*e.args[2]) : nullptr;
      if (e.op != "like" && e.op != "glob") failAt("not supported yet: " + e.op + " operator", e.pos);
      return std::make_unique<PatternExpr>(e.op == "like" ? PatternKind::kLike : PatternKind::kGlob, std::move(x),
                                           std::move(p), std::move(esc), e.negated);
    }
  }
  failAt("unsupported expression", e.pos);
}

BoundExprPtr ExprBinder::bindColumn(const ast::Expr& e) {
  auto [depth, index] = resolveColumn(e.table, e.name, e.pos);
  const Scope* s = &scope_;
  for (int d = 0; d < depth; ++d) s = s->parent;
  const ScopeColumn& c = s->columns[index];
  auto ref = makeColumnRef(depth, index, c.type);
  ref->collation = c.collation;
  ref->collationRank = c.collationRank;
  return ref;
}

BoundExprPtr ExprBinder::bindBinary(const ast::Expr& e) {
  const std::string& op = e.op;
  if (op == "->" || op == "->>") {
    // Sugar for json_extract (and a text cast for ->>).
    const ScalarFunction* fn = binder_.ctx().functions().findScalar("json_extract", 2);
    if (!fn) failAt("Function not found: json_extract", e.pos);
    std::vector<BoundExprPtr> args;
    args.push_back(bind(*e.args[0]));
    args.push_back(std::make_unique<ArrowPathExpr>(bind(*e.args[1])));
    BoundExprPtr call = std::make_unique<FunctionExpr>(fn, std::move(args));
    if (op == "->>") return std::make_unique<CastExpr>(std::move(call), LogicalType::kText);
    return call;
  }
  BoundExprPtr l = bind(*e.args[0]);
  BoundExprPtr r = bind(*e.args[1]);
  bool c = l->constant && r->constant;
  BoundExprPtr out;
  if (isComparison(op)) {
    reconcileComparison(l, r);
    Collation coll = comparisonCollation(*l, *r);
    reconcileSemanticOperands({&l, &r});
    bool coerce = typeKnown(*l) && typeKnown(*r);
    out = std::make_unique<CompareExpr>(compareOpOf(op), std::move(l), std::move(r), coll, coerce);
  } else if (op == "and" || op == "or" || op == "xor") {
    LogicOp lop = op == "and" ? LogicOp::kAnd : op == "or" ? LogicOp::kOr : LogicOp::kXor;
    out = std::make_unique<LogicExpr>(lop, std::move(l), std::move(r));
  } else {
    ArithOp aop;
    if (op == "+") aop = ArithOp::kAdd;
    else if (op == "-") aop = ArithOp::kSub;
    else if (op == "*") aop = ArithOp::kMul;
    else if (op == "/") aop = ArithOp::kDiv;
    else if (op == "%") aop = ArithOp::kMod;
    else if (op == "||") aop = ArithOp::kConcat;
    else failAt("not supported yet: operator " + op, e.pos);
    LogicalType t = aop == ArithOp::kConcat ? LogicalType::kText : numericResultType(aop, *l, *r);
    // Temporal arithmetic unless both operands are statically numbers (the reference's numeric
    // fast path): a declared temporal type announces the case's result type, and any other
    // operand (TEXT, ANY, …) is sniffed per row, so '2024-01-10' - '2024-01-01' is 'P9D'.
    bool temporal = aop != ArithOp::kConcat && !(isNumberType(l->type) && isNumberType(r->type));
    if (isTemporal(l->type) || isTemporal(r->type)) {
      t = temporalResultType(temporalOpOf(aop), staticType(*l), staticType(*r));
    }
    Collation coll = l->collationRank >= r->collationRank ? l->collation : r->collation;
    int rank = std::max(l->collationRank, r->collationRank);
    out = std::make_unique<ArithExpr>(aop, std::move(l), std::move(r), temporal);
    out->type = t;
    if (aop == ArithOp::kConcat) {
      out->collation = coll;
      out->collationRank = rank;
    }
  }
  out->constant = c;
  return out;
}

namespace {

// The reference's findCommonType over operands[from…]: equal types give that type, numbers a
// number (REAL when any is), anything else the first one's (kAny when unknown).
LogicalType commonTypeOf(const std::vector<const BoundExpr*>& operands, size_t from) {
  if (operands.size() <= from) return LogicalType::kAny;
  LogicalType first = staticType(*operands[from]);
  bool same = true, numbers = true, real = false, numeric = false;
  for (size_t i = from; i < operands.size(); ++i) {
    LogicalType t = staticType(*operands[i]);
    same = same && t == first;
    numbers = numbers && isNumberType(t);
    real = real || t == LogicalType::kReal;
    numeric = numeric || t == LogicalType::kNumeric;
  }
  if (same || !numbers) return first;
  return real ? LogicalType::kReal : numeric ? LogicalType::kNumeric : LogicalType::kInteger;
}

// The static result type of a call (ScalarFunction::returnFrom).
LogicalType resultTypeOf(const ScalarFunction& fn, const std::vector<const BoundExpr*>& operands) {
  using From = ScalarFunction::ReturnFrom;
  switch (fn.returnFrom) {
    case From::kDeclared: return fn.returnType;
    case From::kFirstArgument: return operands.empty() ? LogicalType::kAny : staticType(*operands[0]);
    case From::kCommonType: return commonTypeOf(operands, 0);
    case From::kCommonTypeAfterFirst: return commonTypeOf(operands, 1);
  }
  return fn.returnType;
}

}  // namespace

BoundExprPtr ExprBinder::bindFunction(const ast::Expr& e) {
  if (e.window || !e.windowName.empty()) failAt("Window function " + e.name + " not allowed here", e.pos);
  int n = e.star ? 0 : static_cast<int>(e.args.size());
  const FunctionRegistry& reg = binder_.ctx().functions();
  const ScalarFunction* fn = reg.findScalar(e.name, n);
  if (!fn) {
    if (reg.findAggregate(e.name, n)) failAt("Aggregate function " + e.name + " not allowed in this context", e.pos);
    failAt("Function not found: " + lowerName(e.name) + "/" + std::to_string(n), e.pos);
  }
  // FILTER (WHERE …) and an ORDER BY inside the call are refused on every call, as on aggregates
  // (a scalar has no rows to filter or order).
  if (e.filter) failAt("not supported yet: aggregate FILTER clause", e.pos);
  if (!e.orderBy.empty()) failAt("not supported yet: ORDER BY inside aggregate calls", e.pos);
  if (!fn->deterministic || (fn->nowSensitive && readsClock(e))) binder_.reads().nonDeterministic(e.name);
  std::vector<BoundExprPtr> args;
  bool c = fn->deterministic;
  auto rejectNonNumeric = [&](const BoundExpr& a, size_t i) {
    if (static_cast<int>(i) < fn->numericArgs && !isNumericOrUnknown(a)) {
      failAt("Invalid argument types for function " + fn->name, e.pos);
    }
  };
  bool det = fn->deterministic;
  for (const auto& a : e.args) {
    args.push_back(bind(*a));
    rejectNonNumeric(*args.back(), args.size() - 1);
    c = c && args.back()->constant;
    det = det && args.back()->deterministic;
  }
  Collation coll = Collation::kBinary;
  int rank = 0;
  for (const auto& a : args) {
    if (a->collationRank > rank) {
      rank = a->collationRank;
      coll = a->collation;
    }
  }
  std::vector<const BoundExpr*> operands;
  for (const auto& a : args) operands.push_back(a.get());
  LogicalType ordering = fn->picksArgument ? orderingOf(operands) : LogicalType::kAny;
  LogicalType type = resultTypeOf(*fn, operands);
  auto f = std::make_unique<FunctionExpr>(fn, std::move(args));
  f->compareArgumentsAs(ordering);
  f->type = type;
  f->constant = c;
  f->deterministic = det;
  if (isTextLike(type) || type == LogicalType::kAny) {
    f->collation = coll;
    f->collationRank = rank;
  }
  return f;
}

}  // namespace optic
