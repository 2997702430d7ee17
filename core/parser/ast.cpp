// AST out-of-line members: constructors/destructors of the recursive nodes.
//
// They live here because Expr, Select, FromItem and Statement hold unique_ptrs to types that
// are incomplete at their declaration (WindowSpec, OrderingTerm, Insert, …).
#include "core/parser/ast.h"

namespace optic::ast {

Expr::Expr() = default;
Expr::~Expr() = default;
Select::Select() = default;
Select::~Select() = default;
FromItem::FromItem() = default;
FromItem::~FromItem() = default;
Statement::Statement() = default;
Statement::~Statement() = default;

namespace {

using Pred = std::function<bool(const Expr&)>;

bool anyIn(const ExprPtr& e, const Pred& pred, bool intoQueries) { return e && anyExpr(*e, pred, intoQueries); }

bool anyInFrom(const FromItem& f, const Pred& pred) {
  for (const auto& a : f.args) if (anyIn(a, pred, true)) return true;
  if (f.select && anyExprInSelect(*f.select, pred)) return true;
  if (f.left && anyInFrom(*f.left, pred)) return true;
  if (f.right && anyInFrom(*f.right, pred)) return true;
  return anyIn(f.on, pred, true);
}

}  // namespace

bool anyExpr(const Expr& e, const Pred& pred, bool intoQueries) {
  if (pred(e)) return true;
  for (const auto& a : e.args) if (anyIn(a, pred, intoQueries)) return true;
  for (const auto& w : e.whens) if (anyIn(w.when, pred, intoQueries) || anyIn(w.then, pred, intoQueries)) return true;
  if (anyIn(e.elseExpr, pred, intoQueries) || anyIn(e.filter, pred, intoQueries)) return true;
  for (const auto& o : e.orderBy) if (anyIn(o.expr, pred, intoQueries)) return true;
  if (e.window) {
    for (const auto& p : e.window->partitionBy) if (anyIn(p, pred, intoQueries)) return true;
    for (const auto& o : e.window->orderBy) if (anyIn(o.expr, pred, intoQueries)) return true;
  }
  return intoQueries && e.select && anyExprInSelect(*e.select, pred);
}

bool anyExprInSelect(const Select& s, const Pred& pred) {
  if (s.with) {
    for (const auto& c : s.with->ctes) if (c.select && anyExprInSelect(*c.select, pred)) return true;
  }
  for (const auto& rc : s.columns) if (anyIn(rc.expr, pred, true)) return true;
  if (s.from && anyInFrom(*s.from, pred)) return true;
  if (anyIn(s.where, pred, true) || anyIn(s.having, pred, true)) return true;
  for (const auto& g : s.groupBy) if (anyIn(g, pred, true)) return true;
  for (const auto& row : s.values) for (const auto& v : row) if (anyIn(v, pred, true)) return true;
  if (s.left && anyExprInSelect(*s.left, pred)) return true;
  if (s.right && anyExprInSelect(*s.right, pred)) return true;
  for (const auto& o : s.orderBy) if (anyIn(o.expr, pred, true)) return true;
  return anyIn(s.limit, pred, true) || anyIn(s.offset, pred, true);
}

}  // namespace optic::ast
