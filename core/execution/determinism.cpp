// Determinism of schema expressions (determinism.h).
#include "core/execution/determinism.h"

#include <algorithm>

#include "core/common/error.h"

namespace optic {
namespace {

// The first non-deterministic call in `root`, subqueries included; null when there is none.
const ast::Expr* nonDeterministicCall(const ast::Expr& root, const Context& ctx) {
  const ast::Expr* found = nullptr;
  ast::anyExpr(root, [&](const ast::Expr& e) {
    if (e.kind != ast::ExprKind::kFunction) return false;
    int n = e.star ? 0 : static_cast<int>(e.args.size());
    const ScalarFunction* f = ctx.functions().findScalar(e.name, n);
    if (!f) return false;
    bool now = f->nowSensitive && std::any_of(e.args.begin(), e.args.end(), [](const ast::ExprPtr& a) {
      return a->kind == ast::ExprKind::kLiteral && a->value.isText() && lowerName(a->value.asText()) == "now";
    });
    if (!f->deterministic || now) found = &e;
    return found != nullptr;
  }, true);
  return found;
}

}  // namespace

bool isNonDeterministic(const ast::Expr& e, const Context& ctx) { return nonDeterministicCall(e, ctx) != nullptr; }

void requireDeterministic(const ast::Expr& e, const Context& ctx, const char* what) {
  if (ctx.settings().nondeterministicSchema) return;
  if (const ast::Expr* call = nonDeterministicCall(e, ctx)) {
    fail(std::string("Non-deterministic expression not allowed in ") + what + ": function '" + call->name +
         "' is not deterministic");
  }
}

}  // namespace optic
