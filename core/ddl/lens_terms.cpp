// Lens terms (lens_terms.h).
#include "core/ddl/lens_terms.h"

#include "core/common/error.h"
#include "core/common/names.h"
#include "core/execution/context.h"
#include "core/execution/expression.h"
#include "core/parser/ast_clone.h"
#include "core/planner/binder.h"
#include "core/planner/expr_binder.h"

namespace optic {
namespace {

void replaceIn(ast::ExprPtr& e, const std::function<ast::ExprPtr(const ast::Expr&)>& replace) {
  if (!e) return;
  if (e->kind == ast::ExprKind::kColumn) {
    if (ast::ExprPtr r = replace(*e)) e = std::move(r);
    return;
  }
  for (ast::ExprPtr& a : e->args) replaceIn(a, replace);
  for (ast::CaseWhen& w : e->whens) {
    replaceIn(w.when, replace);
    replaceIn(w.then, replace);
  }
  replaceIn(e->elseExpr, replace);
  replaceIn(e->filter, replace);
}

}  // namespace

ast::ExprPtr substituteColumns(const ast::Expr& e, const std::function<ast::ExprPtr(const ast::Expr&)>& replace) {
  ast::ExprPtr out = ast::clone(e);
  replaceIn(out, replace);
  return out;
}

std::set<std::string> columnNames(const ast::Expr& e) {
  std::set<std::string> out;
  ast::anyExpr(e, [&](const ast::Expr& x) {
    if (x.kind == ast::ExprKind::kColumn) out.insert(lowerName(x.name));
    return false;
  }, false);
  return out;
}

bool holdsSubquery(const ast::Expr& e) {
  return ast::anyExpr(e, [](const ast::Expr& x) { return x.select != nullptr; }, false);
}

std::optional<Value> foldConstant(Context& ctx, const ast::Expr& e) {
  bool closed = !ast::anyExpr(e, [](const ast::Expr& x) {
    return x.select != nullptr || x.kind == ast::ExprKind::kColumn || x.kind == ast::ExprKind::kParam;
  }, false);
  if (!closed) return std::nullopt;
  try {
    Binder binder(ctx);
    Scope none;
    BoundExprPtr bound = ExprBinder(binder, none).bind(e);
    std::vector<Value> params;
    ExecState state = engineExecState(ctx, &params);
    EvalContext ec{nullptr, nullptr, &state};
    return bound->eval(ec);
  } catch (const Error&) {
    return std::nullopt;
  }
}

ast::ExprPtr literal(const Value& v) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = ast::ExprKind::kLiteral;
  e->value = v;
  return e;
}

}  // namespace optic
