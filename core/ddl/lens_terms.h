// Lens terms: the expression tools the lens prover and deploy share — substituting the column
// references of an expression (a logical CHECK rewritten to basis terms, a forward or inverse
// evaluated at one value) and folding a closed expression to its value.
//
// Invariants: substitution returns a fresh AST and never descends into subqueries (a term that
// holds one is not row-local, and folding refuses it); folding never reads a table.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "core/common/value.h"
#include "core/parser/ast.h"

namespace optic {

class Context;

// A clone of `e` in which every column reference `replace` answers (non-null) is replaced.
ast::ExprPtr substituteColumns(const ast::Expr& e, const std::function<ast::ExprPtr(const ast::Expr& column)>& replace);
// The lower-cased names of the columns `e` reads outside subqueries.
std::set<std::string> columnNames(const ast::Expr& e);
bool holdsSubquery(const ast::Expr& e);
// The value of a closed expression (no column, parameter or subquery); nullopt when it is not
// closed or fails to evaluate.
std::optional<Value> foldConstant(Context& ctx, const ast::Expr& e);
ast::ExprPtr literal(const Value& v);

}  // namespace optic
