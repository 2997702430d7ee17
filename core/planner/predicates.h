// Predicates: the one reading of WHERE and ON clauses' shape that the planner's analyses share
// (access paths, change scopes, join keys, materialized-view analysis, view write-through pins,
// view_info): the conjuncts of an AND tree, and which conjuncts are equalities.
//
// Purely syntactic: nothing is bound or evaluated, so `a = b` is an equality whatever a and b
// turn out to be; each caller decides which sides it accepts (a key column, a literal, a
// parameter, a column of the other join side).
#pragma once

#include <vector>

#include "core/parser/ast.h"

namespace optic {

// The operands of the top-level AND tree of `e`, left to right; none for a null `e`.
std::vector<const ast::Expr*> conjunctsOf(const ast::Expr* e);
// `a = b` or `a == b`.
bool isEquality(const ast::Expr& e);

}  // namespace optic
