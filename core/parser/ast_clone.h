// Deep copies of AST query nodes, for plan-time rewrites (view write-through lowering).
//
// Invariants: a clone shares nothing with its original (every owned child is copied); source
// positions are kept so errors still point at the user's text. DML statements nested in a
// query (a data-modifying CTE member, a DML FROM item) are not cloned: the copy carries no
// `dml` (a cloned CTE member points at the original's through `clonedDml`), and cloneable()
// tells a caller whether a node holds one.
#pragma once

#include "core/parser/ast.h"

namespace optic::ast {

ExprPtr clone(const Expr& e);
ExprPtr cloneOrNull(const Expr* e);
SelectPtr clone(const Select& s);
FromItemPtr clone(const FromItem& f);
ResultColumn clone(const ResultColumn& rc);
std::unique_ptr<WithClause> clone(const WithClause& w);
CommonTableExpr clone(const CommonTableExpr& cte);

}  // namespace optic::ast
