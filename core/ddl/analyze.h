// ANALYZE [t | s.t | s.*]: one {table, rows} row per table. The statistics are the row counts the
// tables already keep, so ANALYZE reads no rows; a view has no rows to analyze and is refused.
#pragma once

#include <vector>

#include "core/execution/context.h"
#include "core/parser/ast.h"

namespace optic {

std::vector<Row> executeAnalyze(Context& ctx, const ast::Analyze& a);

}  // namespace optic
