// Predicates (predicates.h).
#include "core/planner/predicates.h"

namespace optic {
namespace {

bool isAnd(const ast::Expr& e) { return e.kind == ast::ExprKind::kBinary && e.op == "and"; }

void appendConjuncts(const ast::Expr* e, std::vector<const ast::Expr*>& out) {
  if (!e) return;
  if (isAnd(*e)) {
    appendConjuncts(e->args[0].get(), out);
    appendConjuncts(e->args[1].get(), out);
  } else {
    out.push_back(e);
  }
}

}  // namespace

std::vector<const ast::Expr*> conjunctsOf(const ast::Expr* e) {
  std::vector<const ast::Expr*> out;
  appendConjuncts(e, out);
  return out;
}

bool isEquality(const ast::Expr& e) {
  return e.kind == ast::ExprKind::kBinary && (e.op == "=" || e.op == "==") && e.args.size() == 2;
}

}  // namespace optic
