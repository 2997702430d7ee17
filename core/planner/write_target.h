// WriteTarget: a DML target that is not a base table — a stored view, a non-recursive CTE
// of the statement's WITH, or an inline `(select …) as v` subquery (views.md §2).
//
// resolveWriteTarget() answers "is this INSERT/UPDATE/DELETE target a view-like relation?";
// null means the target is a base table (or unknown) and ordinary DML binding applies.
// Invariant: the pointers refer into ASTs that outlive the statement's binding (the catalog's
// view keeps its CREATE VIEW alive; CTE and subquery bodies belong to the statement itself).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/parser/ast.h"
#include "core/planner/mutation_diagnostic.h"

namespace optic {

class Binder;

struct WriteTarget {
  enum class Kind : uint8_t { kView, kCte, kSubquery } kind = Kind::kView;
  std::string name;                    // view / CTE / alias name, as written
  std::string alias;                   // the statement's alias for the target ("" = none)
  std::string homeSchema;              // a stored view's schema ("" for CTE / subquery)
  const ast::Select* body = nullptr;
  std::vector<std::string> columnNames;  // declared output names; empty = the body's own
  const std::vector<ast::ViewColumnDefault>* defaults = nullptr;  // `with defaults (…)`
  const ast::WithClause* with = nullptr;  // the statement's WITH (CTE targets: holds the body)
  const ast::CommonTableExpr* cte = nullptr;
  bool recursive = false;               // a recursive CTE target (never writable)
  bool materialized = false;            // a maintained table written through its derivation

  // The name other statements and diagnostics use for the target.
  const std::string& qualifier() const { return alias.empty() ? name : alias; }
};

// name/alias: the statement's target; with: its leading WITH; inlineBody/inlineColumns: an
// `update (select …) as v(a, b)` target.
std::optional<WriteTarget> resolveWriteTarget(Binder& binder, const ast::QualifiedName& name,
                                              const std::string& alias, const ast::WithClause* with,
                                              const ast::Select* inlineBody,
                                              const std::vector<std::string>& inlineColumns);

// The rejection of an INSERT through `t`: "cannot insert through view 't': <what>".
[[noreturn]] inline void rejectInsert(const WriteTarget& t, const std::string& reason, const std::string& column,
                                      const std::string& what) {
  failMutation(MutationDiagnostic{reason, t.name, column, "insert"}, "cannot insert through view '" + t.name + "': " + what);
}

// An omitted NOT NULL base column nothing fills (views.md §2.3, step 7): the base table's NOT
// NULL failure, and why the view could not supply the value.
[[noreturn]] inline void rejectUnsuppliedNotNull(const WriteTarget& t, const std::string& table, const std::string& column) {
  std::string qualified = table + "." + column;
  rejectInsert(t, "no-default", column,
               "NOT NULL constraint failed: " + qualified + " (base column '" + qualified +
                   "' is NOT NULL with no default and no value supplied through the view)");
}

}  // namespace optic
