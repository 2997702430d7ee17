// Assertion statements (sql-core.md §9): `create assertion [s.]name check (expr)`, `drop
// assertion`, and the assertion_info() table-valued function. The object is the catalog's
// AssertionSchema (core/catalog/assertion.h); core/maintenance/commit_checks.h evaluates it.
//
// Create binds (validates) the body; unqualified names resolve against the assertion's own
// schema first, then the search path. Create and drop register their undo, so both roll back
// with the transaction.
#pragma once

#include <memory>

#include "core/catalog/assertion.h"
#include "core/parser/ast.h"

namespace optic {

class Context;
class FunctionRegistry;

void executeCreateAssertion(Context& ctx, std::shared_ptr<const ast::Statement> stmt);
void executeDropAssertion(Context& ctx, const ast::Drop& drop);
void registerAssertionFunctions(FunctionRegistry& r);

}  // namespace optic
