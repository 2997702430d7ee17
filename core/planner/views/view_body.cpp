// Single-source body analysis (view_body.h).
#include "core/planner/views/view_body.h"

#include <functional>

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/common/logical_type.h"
#include "core/execution/context.h"
#include "core/parser/ast_clone.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/expr_binder.h"
#include "core/planner/mutation_diagnostic.h"
#include "core/planner/predicates.h"
#include "core/planner/views/view_lowering.h"

namespace optic {
namespace {

using ast::ExprKind;

[[noreturn]] void reject(const WriteTarget& t, const char* op, const std::string& reason, const std::string& what,
                         const std::string& column = "") {
  failMutation(MutationDiagnostic{reason, t.name, column, op}, cannotWrite(t) + what);
}

bool hasWindowOrAggregate(const ast::Expr& e, const Context& ctx, bool window) {
  if (e.kind == ExprKind::kFunction) {
    if (window ? e.window != nullptr : (e.window == nullptr && isAggregateCall(e, ctx))) return true;
  }
  for (const ast::ExprPtr& a : e.args) {
    if (a && hasWindowOrAggregate(*a, ctx, window)) return true;
  }
  return false;
}

bool anyColumn(const ast::Select& s, const Context& ctx, bool window) {
  for (const ast::ResultColumn& rc : s.columns) {
    if (rc.expr && hasWindowOrAggregate(*rc.expr, ctx, window)) return true;
  }
  return false;
}

bool isLiteral(const ast::Expr* e) {
  if (!e) return false;
  if (e->kind == ExprKind::kLiteral) return true;
  return e->kind == ExprKind::kUnary && e->op == "-" && isLiteral(e->args[0].get());
}

// The source column a bare reference names ("" when the reference is qualified by another
// relation than the body's source).
std::string sourceColumnOf(const ast::Expr& e, const std::string& qualifier) {
  if (e.kind != ExprKind::kColumn) return "";
  if (!e.table.empty() && lowerName(e.table) != lowerName(qualifier)) return "";
  return e.name;
}

void classifyUnder(const ast::Expr& e, const BaseResolver& baseOf, BodyColumn& col, bool underSteps) {
  switch (e.kind) {
    case ExprKind::kColumn:
      col.baseColumn = baseOf(e);
      if (col.baseColumn.empty()) return;
      col.kind = underSteps ? ColumnClass::kInvertible : ColumnClass::kPassthrough;
      col.baseRef = &e;
      return;
    case ExprKind::kCollate:
      if (!underSteps) classifyUnder(*e.args[0], baseOf, col, false);
      return;
    case ExprKind::kCast:
      if (!underSteps && e.args[0]->kind == ExprKind::kColumn) classifyUnder(*e.args[0], baseOf, col, false);
      return;
    case ExprKind::kBinary: {
      if (e.op != "+" && e.op != "-") return;
      bool litRight = isLiteral(e.args[1].get());
      if (!litRight && !isLiteral(e.args[0].get())) return;
      col.steps.push_back(InverseStep{e.op == "+", !litRight, litRight ? e.args[1].get() : e.args[0].get()});
      classifyUnder(litRight ? *e.args[0] : *e.args[1], baseOf, col, true);
      return;
    }
    default:
      return;
  }
}

// The source's column names: bound with a fresh binder so the reader's CTEs never leak in
// (the statement's WITH is visible to a CTE or subquery target only).
std::vector<std::string> sourceColumnNames(Context& ctx, const WriteTarget& t, const ast::FromItem& source) {
  Binder probe(ctx);
  probe.setHomeSchema(t.homeSchema);
  std::unique_ptr<ast::WithClause> visible = t.kind != WriteTarget::Kind::kView ? lowering::loweredWith(t.with, t) : nullptr;
  if (visible) probe.pushWith(visible.get());
  if (t.body->with) probe.pushWith(t.body->with.get());
  ast::Select sel;
  ast::ResultColumn star;
  star.kind = ast::ResultColumn::Kind::kStar;
  sel.columns.push_back(std::move(star));
  sel.from = ast::clone(source);
  QueryPlan plan = probe.bindQuery(sel, nullptr);
  std::vector<std::string> names;
  for (const OutputColumn& c : plan.columns) names.push_back(c.name);
  return names;
}

void addStar(SingleSource& s) {
  for (const std::string& n : s.sourceColumns) {
    BodyColumn c;
    c.name = n;
    c.kind = ColumnClass::kPassthrough;
    c.baseColumn = n;
    s.columns.push_back(std::move(c));
  }
}

void addColumns(const ast::Select& body, SingleSource& s) {
  for (const ast::ResultColumn& rc : body.columns) {
    if (rc.kind != ast::ResultColumn::Kind::kExpr) {
      addStar(s);
      continue;
    }
    BodyColumn c;
    c.name = resultColumnName(rc);
    c.expr = rc.expr.get();
    if (rc.hasInverse) {
      c.kind = ColumnClass::kAuthored;
      c.authored = &rc;
    } else {
      classifyColumn(*rc.expr, [&](const ast::Expr& ref) { return sourceColumnOf(ref, s.qualifier); }, c);
    }
    s.columns.push_back(std::move(c));
  }
}

void addPin(SingleSource& s, const ast::Expr& col, const ast::Expr& value) {
  std::string base = sourceColumnOf(col, s.qualifier);
  if (!base.empty()) s.pins.push_back(BodyPin{base, &value});
}

bool sameLiteral(const ast::Expr& a, const ast::Expr& b) { return printExpr(a) == printExpr(b); }

// A top-level conjunct `col = k`, `col in (k)`, `col between k and k` (and `col >= k and col <= k`).
void collectPin(const ast::Expr& e, SingleSource& s, std::vector<std::pair<const ast::Expr*, const ast::Expr*>>& lows) {
  if (isEquality(e)) {
    if (isLiteral(e.args[1].get())) addPin(s, *e.args[0], *e.args[1]);
    else if (isLiteral(e.args[0].get())) addPin(s, *e.args[1], *e.args[0]);
    return;
  }
  if (e.kind == ExprKind::kInList && !e.negated && e.args.size() == 2 && isLiteral(e.args[1].get())) {
    addPin(s, *e.args[0], *e.args[1]);
    return;
  }
  if (e.kind == ExprKind::kBetween && !e.negated && isLiteral(e.args[1].get()) && isLiteral(e.args[2].get()) &&
      sameLiteral(*e.args[1], *e.args[2])) {
    addPin(s, *e.args[0], *e.args[1]);
    return;
  }
  if (e.kind == ExprKind::kBinary && (e.op == ">=" || e.op == "<=") && isLiteral(e.args[1].get()) &&
      e.args[0]->kind == ExprKind::kColumn) {
    for (auto& [col, k] : lows) {
      if (lowerName(col->name) == lowerName(e.args[0]->name) && sameLiteral(*k, *e.args[1])) {
        addPin(s, *e.args[0], *e.args[1]);
        return;
      }
    }
    lows.emplace_back(e.args[0].get(), e.args[1].get());
  }
}

}  // namespace

void classifyColumn(const ast::Expr& e, const BaseResolver& baseOf, BodyColumn& col) {
  classifyUnder(e, baseOf, col, false);
  if (col.kind == ColumnClass::kComputed) {
    col.steps.clear();
    col.baseColumn.clear();
    col.baseRef = nullptr;
  }
}

std::string resultColumnName(const ast::ResultColumn& rc) {
  if (!rc.alias.empty()) return rc.alias;
  if (rc.expr->kind == ExprKind::kColumn) return rc.expr->name;
  return printExpr(*rc.expr);
}

std::string cannotWrite(const WriteTarget& t) {
  return std::string(t.materialized ? "cannot write through materialized view '" : "cannot write through view '") + t.name + "': ";
}

bool isJoinBody(const ast::Select& body) {
  return body.setOp == ast::SetOp::kNone && body.values.empty() && body.from &&
         body.from->kind == ast::FromItem::Kind::kJoin;
}

void rejectUnwritableShape(Binder& binder, const WriteTarget& t, const char* op) {
  const ast::Select& b = *t.body;
  if (t.recursive) {
    reject(t, op, "recursive-cte", "a recursive CTE has no recoverable base operation");
  }
  if (!b.values.empty()) {
    reject(t, op, "no-base-lineage", "view '" + t.name + "' has a VALUES body, which has no recoverable base operation");
  }
  if (b.setOp != ast::SetOp::kNone) {
    reject(t, op, "unsupported-set-op", "view body operator 'SetOperation' is not updateable in phase 1");
  }
  const Context& ctx = binder.ctx();
  if (!b.groupBy.empty() || b.having || anyColumn(b, ctx, false)) {
    reject(t, op, "unsupported-aggregate", "view body operator 'Aggregate' is not updateable in phase 1");
  }
  if (anyColumn(b, ctx, true)) {
    reject(t, op, "unsupported-window", "view body operator 'Window' is not updateable in phase 1");
  }
  if (b.distinct) {
    reject(t, op, "unsupported-distinct", "a DISTINCT body has no 1:1 base-row lineage and is not updateable in phase 1");
  }
  if (b.limit || b.offset) {
    reject(t, op, "unsupported-limit",
           "a LIMIT/OFFSET body is not decomposable in phase 1 (a write could escape the row window)");
  }
  if (!b.from) reject(t, op, "no-base-lineage", "a body without FROM has no recoverable base operation");
  if (b.from->kind == ast::FromItem::Kind::kFunction || b.from->kind == ast::FromItem::Kind::kDml) {
    reject(t, op, "unsupported-source", "its FROM source has no recoverable base operation");
  }
}

SingleSource analyseSingleSource(Binder& binder, const WriteTarget& t, const char* op) {
  rejectUnwritableShape(binder, t, op);
  const ast::Select& b = *t.body;
  SingleSource s;
  s.source = b.from.get();
  s.qualifier = !s.source->alias.empty() ? s.source->alias : s.source->table.name;
  s.sourceColumns = sourceColumnNames(binder.ctx(), t, *s.source);
  if (s.source->kind == ast::FromItem::Kind::kSubquery && !s.source->columnAliases.empty()) {
    s.sourceColumns = s.source->columnAliases;
  }
  addColumns(b, s);
  if (!t.columnNames.empty()) {
    if (t.columnNames.size() != s.columns.size()) {
      fail("View '" + t.name + "' has " + std::to_string(t.columnNames.size()) + " declared columns but body produces " +
           std::to_string(s.columns.size()));
    }
    for (size_t i = 0; i < s.columns.size(); ++i) s.columns[i].name = t.columnNames[i];
  }
  s.where = b.where.get();
  std::vector<std::pair<const ast::Expr*, const ast::Expr*>> lows;
  for (const ast::Expr* c : conjunctsOf(s.where)) collectPin(*c, s, lows);
  return s;
}

const BodyColumn* findBodyColumn(const SingleSource& s, const std::string& name) {
  std::string key = lowerName(name);
  for (const BodyColumn& c : s.columns) {
    if (lowerName(c.name) == key) return &c;
  }
  return nullptr;
}

}  // namespace optic
