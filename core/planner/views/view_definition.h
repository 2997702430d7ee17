// CREATE VIEW validation (views.md §1, §2.3): the rules a view definition must satisfy before
// the catalog stores it — a query body (never DML, no data-modifying CTE), a declared column
// list whose arity matches the body, and a `with defaults` list without duplicate targets.
//
// Invariant: validation never changes the catalog; a body that cannot be bound yet (a source
// table created later) is accepted as it stands, since views are re-bound at every use.
#pragma once

#include <string>

#include "core/parser/ast.h"

namespace optic {

class Context;

void validateViewDefinition(Context& ctx, const ast::CreateView& cv, const std::string& schema);

}  // namespace optic
