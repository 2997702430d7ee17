// Recursive CTEs: `with recursive n as (anchor union [all] step)`, evaluated semi-naively: each
// iteration runs the step over only the rows the previous iteration produced (the working set),
// until an iteration produces nothing new. Rows stream out as they are found, so an outer LIMIT
// stops the recursion. `option (maxrecursion N)` bounds the iterations.
#pragma once

#include "core/planner/binder.h"

namespace optic {

// True when a member of a `with recursive` clause really recurses: a union whose step names the
// member itself. Any other member is an ordinary CTE.
bool hasRecursiveStep(const ast::CommonTableExpr& cte);
QueryPlan bindRecursiveCte(Binder& binder, CteBinding& cte, const Scope* outer);

}  // namespace optic
