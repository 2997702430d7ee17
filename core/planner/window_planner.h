// Window functions: plans the OVER (…) calls of one SELECT core.
//
// The input rows are those after WHERE / GROUP BY / HAVING; `inputSlots` is non-null when the
// input is an aggregate's output (then window arguments, partitions and orderings bind through
// those slots). The returned operator emits each input row followed by one value per call, in
// the order of `calls`; rows come out in window order (partition, then ORDER BY), which is the
// natural order of a window query (sql-core.md §5). `aliases` (the select list's aliases) are
// visible in PARTITION BY / ORDER BY, not in the calls' arguments.
#pragma once

#include <vector>

#include "core/execution/operator.h"
#include "core/parser/ast.h"
#include "core/planner/binder.h"
#include "core/planner/expr_binder.h"

namespace optic {

OperatorPtr planWindows(Binder& binder, OperatorPtr input, const Scope& inputScope, const DerivedSlots* inputSlots,
                        const std::vector<const ast::Expr*>& calls,
                        const ExprBinder::Aliases* aliases = nullptr);

}  // namespace optic
