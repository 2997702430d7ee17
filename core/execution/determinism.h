// Determinism of schema expressions: a DEFAULT, CHECK, generated column or materialized-view body
// may not call a non-deterministic function (random(), date('now'), …), because its value would
// differ between the row's writes, a rebuild and a reopen.
#pragma once

#include "core/execution/context.h"
#include "core/parser/ast.h"

namespace optic {

// A non-deterministic call anywhere in `e`, subqueries included.
bool isNonDeterministic(const ast::Expr& e, const Context& ctx);
// Throws "Non-deterministic expression not allowed in {what}: …" unless the session allows
// non-deterministic schema expressions (pragma nondeterministic_schema).
void requireDeterministic(const ast::Expr& e, const Context& ctx, const char* what);

}  // namespace optic
