// PRAGMA (sql-core.md §6): sets or reads one session setting (Settings in core/execution/context.h).
//
// `pragma name = value` sets it and returns nothing; `pragma name` returns one row {name, value}.
// An alias names the same option (allow_nondeterministic_schema_expressions is
// nondeterministic_schema, search_path is schema_path); the name is echoed as written.
#pragma once

#include <optional>

#include "core/execution/context.h"
#include "core/parser/ast.h"

namespace optic {

std::optional<Row> executePragma(Context& ctx, const ast::Pragma& p);

}  // namespace optic
