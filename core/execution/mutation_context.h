// Mutation context (sql-core.md §3.8): the per-statement variables a table declares with
// `with context (v type [null], …)` and an INSERT/UPDATE/DELETE supplies with
// `with context v = expr, …`.
//
// Invariants: the supplied expressions are evaluated once per execution, before any row is
// written, and converted strictly to the declared types; a name the table does not declare is
// ignored (a view write forwards one envelope to every base table, views.md §2.8); an omitted
// NULL-marked variable reads NULL; an omitted NOT NULL variable is an error only where a
// DEFAULT or CHECK the statement evaluates reads it, raised at bind time.
//
// The planner binds the supplied values (bindMutationContext, core/planner/dml_binder.cpp); this
// class holds them for the write path, which evaluates them once per execution.
#pragma once

#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/expression.h"
#include "core/parser/ast.h"

namespace optic {

class MutationContext {
 public:
  MutationContext() = default;
  // `values`: per variable `t` declares, the statement's bound value (null when not supplied).
  MutationContext(const TableSchema& t, std::vector<BoundExprPtr> values);

  // Throws "table 's.t' requires mutation context variable 'v'" when `e` reads (bare or as
  // `context.v`) a NOT NULL variable the statement does not supply.
  void requireSupplied(const ast::Expr& e) const;
  // The statement's values, one per declared variable (NULL when omitted).
  Row evaluate(ExecState& st) const;

 private:
  std::string table_;  // "schema.name", for messages
  std::vector<ContextVariable> variables_;
  std::vector<BoundExprPtr> values_;  // per declared variable; null when not supplied
};

}  // namespace optic
