// The catalog's table-valued functions (test-corpus.md §4): schema(), table_info(),
// index_info(), foreign_key_info(), unique_constraint_info(), check_constraint_info(),
// column_info(), view_info(), function_info(), assertion_info(). Column shapes and row order
// follow the reference exactly; they read the catalog through FunctionContext::engine.
#pragma once

#include "core/execution/function_registry.h"

namespace optic {

void registerCatalogFunctions(FunctionRegistry& r);

}  // namespace optic
