// Building blocks shared by the view write-through lowerings (view_mutation.cpp for UPDATE and
// DELETE, view_insert.cpp for INSERT): AST builders, the lowered statement's WITH and target
// name, column-class inverses, authored puts and RETURNING projected through the view.
//
// Invariant: every function returns fresh AST (clones); inputs are never modified.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/parser/ast.h"
#include "core/planner/views/view_body.h"
#include "core/planner/views/view_substitution.h"
#include "core/planner/write_target.h"

namespace optic::lowering {

ast::ExprPtr makeBinary(const std::string& op, ast::ExprPtr l, ast::ExprPtr r);
ast::ExprPtr makeNull();
ast::ExprPtr conjoin(ast::ExprPtr a, ast::ExprPtr b);
ast::ExprPtr makeColumn(const std::string& table, const std::string& name);
ast::ExprPtr literalExpr(Value v);
ast::ResultColumn aliased(ast::ExprPtr e, std::string alias);
ast::ExprPtr isNullExpr(ast::ExprPtr x);
ast::ExprPtr isNotTrue(ast::ExprPtr x);  // `x is not true` (NULL included)
// `select <columns> from <relation> where <where>` (a capture relation read back by a base write).
std::unique_ptr<ast::Select> selectFrom(const std::string& relation, ast::ExprPtr where,
                                        std::vector<ast::ResultColumn> columns);

// The statement's WITH up to the target CTE (the target's name now means the base relation, and
// its body sees earlier siblings only), plus a stored view body's own CTEs. With `selfRead` it is
// the CTE target's own scope instead — the siblings declared before it and the target itself,
// which an UPDATE/DELETE's clauses may read; the lowered target is then named so as not to meet it.
std::unique_ptr<ast::WithClause> loweredWith(const ast::WithClause* with, const WriteTarget& t, bool selfRead = false);
// The relation a body's FROM table names; for a stored view, resolved from its home schema.
ast::QualifiedName sourceName(Binder& binder, const WriteTarget& t, const ast::FromItem& src);

// The value of a boolean literal (`true` / `false`) assigned to or supplied for a flag column
// (a join's existence flag, a set operation's membership flag); else a `no-inverse` error: only a
// literal says which rows to create or delete.
bool flagLiteral(const ViewRewrite& r, const std::string& column, const ast::Expr* value);

// Throws the `no-inverse` rejection for a computed column.
[[noreturn]] void readOnly(const ViewRewrite& r, const BodyColumn& c);
// Throws `predicate-contradiction` when an inserted VALUES cell is a literal other than the
// constant the body's selection predicate pins the base column `column` to.
void rejectContradiction(const WriteTarget& user, const std::string& column, const ast::Expr& cell,
                         const ast::Expr& pinned);
// `c ± k … = v` solved for c.
ast::ExprPtr invert(const BodyColumn& c, ast::ExprPtr v);
// One authored put's value with every `new.x` replaced by valueOf(x) (validated).
ast::ExprPtr authoredPut(const ViewRewrite& r, const ast::InversePut& p,
                         const std::function<ast::ExprPtr(const std::string&)>& valueOf);

// Calls `visit` on every expression slot of `s` (select list, FROM conditions, arguments and
// subqueries, WHERE, GROUP BY, HAVING, VALUES, ORDER BY, compound legs); `visit` decides whether
// to descend further.
void forEachExprIn(ast::Select& s, const std::function<void(ast::ExprPtr&)>& visit);

std::vector<ast::ResultColumn> lowerReturning(const std::vector<ast::ResultColumn>& in, const ViewRewrite& r);
std::vector<ast::ContextAssignment> cloneContext(const std::vector<ast::ContextAssignment>& in);

}  // namespace optic::lowering
