// Deep copies of AST query nodes (ast_clone.h). Each function copies its node's fields in
// declaration order and recurses into owned children.
#include "core/parser/ast_clone.h"

namespace optic::ast {
namespace {

std::vector<ExprPtr> cloneAll(const std::vector<ExprPtr>& v) {
  std::vector<ExprPtr> out;
  out.reserve(v.size());
  for (const ExprPtr& e : v) out.push_back(cloneOrNull(e.get()));
  return out;
}

std::vector<OrderingTerm> cloneTerms(const std::vector<OrderingTerm>& v) {
  std::vector<OrderingTerm> out;
  for (const OrderingTerm& t : v) out.push_back(OrderingTerm{cloneOrNull(t.expr.get()), t.desc, t.nulls});
  return out;
}

FrameBound cloneBound(const FrameBound& b) { return FrameBound{b.kind, cloneOrNull(b.offset.get())}; }

WindowSpec cloneWindow(const WindowSpec& w) {
  WindowSpec out;
  out.baseName = w.baseName;
  out.partitionBy = cloneAll(w.partitionBy);
  out.orderBy = cloneTerms(w.orderBy);
  if (w.frame) {
    WindowFrame f;
    f.unit = w.frame->unit;
    f.start = cloneBound(w.frame->start);
    f.end = cloneBound(w.frame->end);
    f.exclude = w.frame->exclude;
    out.frame = std::move(f);
  }
  return out;
}

SelectPtr cloneSelectOrNull(const Select* s) { return s ? clone(*s) : nullptr; }
FromItemPtr cloneFromOrNull(const FromItem* f) { return f ? clone(*f) : nullptr; }

}  // namespace

ExprPtr cloneOrNull(const Expr* e) { return e ? clone(*e) : nullptr; }

ExprPtr clone(const Expr& e) {
  auto out = std::make_unique<Expr>();
  out->kind = e.kind;
  out->pos = e.pos;
  out->value = e.value;
  out->text = e.text;
  out->op = e.op;
  out->schema = e.schema;
  out->table = e.table;
  out->name = e.name;
  out->typeName = e.typeName;
  out->index = e.index;
  out->negated = e.negated;
  out->boolValue = e.boolValue;
  out->distinct = e.distinct;
  out->star = e.star;
  out->args = cloneAll(e.args);
  for (const CaseWhen& w : e.whens) out->whens.push_back(CaseWhen{cloneOrNull(w.when.get()), cloneOrNull(w.then.get())});
  out->elseExpr = cloneOrNull(e.elseExpr.get());
  out->select = cloneSelectOrNull(e.select.get());
  out->filter = cloneOrNull(e.filter.get());
  out->orderBy = cloneTerms(e.orderBy);
  if (e.window) out->window = std::make_unique<WindowSpec>(cloneWindow(*e.window));
  out->windowName = e.windowName;
  return out;
}

ResultColumn clone(const ResultColumn& rc) {
  ResultColumn out;
  out.kind = rc.kind;
  out.expr = cloneOrNull(rc.expr.get());
  out.alias = rc.alias;
  out.table = rc.table;
  out.schema = rc.schema;
  out.pos = rc.pos;
  out.hasInverse = rc.hasInverse;
  for (const InversePut& p : rc.inverse) out.inverse.push_back(InversePut{p.column, cloneOrNull(p.value.get()), p.pos});
  return out;
}

FromItemPtr clone(const FromItem& f) {
  auto out = std::make_unique<FromItem>();
  out->kind = f.kind;
  out->pos = f.pos;
  out->table = f.table;
  out->alias = f.alias;
  out->columnAliases = f.columnAliases;
  out->select = cloneSelectOrNull(f.select.get());
  out->args = cloneAll(f.args);
  out->joinType = f.joinType;
  out->lateral = f.lateral;
  out->natural = f.natural;
  out->left = cloneFromOrNull(f.left.get());
  out->right = cloneFromOrNull(f.right.get());
  out->on = cloneOrNull(f.on.get());
  out->usingColumns = f.usingColumns;
  out->existsAs = f.existsAs;
  out->existsLeftAs = f.existsLeftAs;
  out->existsRightAs = f.existsRightAs;
  out->commaJoin = f.commaJoin;
  return out;
}

CommonTableExpr clone(const CommonTableExpr& cte) {
  CommonTableExpr out;
  out.name = cte.name;
  out.columns = cte.columns;
  out.materialized = cte.materialized;
  out.select = cloneSelectOrNull(cte.select.get());
  out.clonedDml = cte.dml ? cte.dml.get() : cte.clonedDml;
  out.pos = cte.pos;
  return out;
}

std::unique_ptr<WithClause> clone(const WithClause& w) {
  auto out = std::make_unique<WithClause>();
  out->recursive = w.recursive;
  for (const CommonTableExpr& cte : w.ctes) out->ctes.push_back(clone(cte));
  out->maxRecursion = w.maxRecursion;
  out->pos = w.pos;
  return out;
}

SelectPtr clone(const Select& s) {
  auto out = std::make_unique<Select>();
  out->pos = s.pos;
  if (s.with) out->with = clone(*s.with);
  out->distinct = s.distinct;
  for (const ResultColumn& rc : s.columns) out->columns.push_back(clone(rc));
  out->from = cloneFromOrNull(s.from.get());
  out->where = cloneOrNull(s.where.get());
  out->groupBy = cloneAll(s.groupBy);
  out->having = cloneOrNull(s.having.get());
  for (const auto& [name, spec] : s.windows) out->windows.emplace_back(name, cloneWindow(spec));
  for (const auto& row : s.values) out->values.push_back(cloneAll(row));
  out->setOp = s.setOp;
  out->left = cloneSelectOrNull(s.left.get());
  out->right = cloneSelectOrNull(s.right.get());
  out->existsLeftAs = s.existsLeftAs;
  out->existsRightAs = s.existsRightAs;
  out->parenthesized = s.parenthesized;
  out->orderBy = cloneTerms(s.orderBy);
  out->limit = cloneOrNull(s.limit.get());
  out->offset = cloneOrNull(s.offset.get());
  for (const ViewColumnDefault& d : s.defaults) out->defaults.push_back(ViewColumnDefault{d.column, cloneOrNull(d.expr.get())});
  out->withSchema = s.withSchema;
  return out;
}

}  // namespace optic::ast
