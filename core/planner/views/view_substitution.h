// View-column substitution: rewrites an expression the user wrote over a view's columns into
// the equivalent expression over the view body's FROM source (views.md §2.2).
//
// This is the encapsulation guard: every top-level name must be a view column (base columns
// the view hides do not resolve, a renamed column only by its view name). Names inside
// subqueries are rewritten scope-aware: a name a subquery's own sources provide stays theirs;
// when a subquery source cannot be sized statically (`select *` derived table, TVF) a bare
// view-column reference inside it cannot be proven correlated and is rejected.
//
// A substituted lineage term is re-pointed at the lowered target row at every depth: its
// correlations (the body's source qualifier, or bare source columns its own subqueries do not
// provide) are qualified by the target's correlation name, so neither a user subquery's FROM
// nor one over the same base table can capture them.
//
// Invariant: the input is never modified; the result is a fresh tree whose source references
// are qualified by the lowered statement's target qualifier (or new./old. in RETURNING).
#pragma once

#include <string>

#include "core/parser/ast.h"
#include "core/planner/views/view_body.h"
#include "core/planner/write_target.h"

namespace optic {

class Binder;

struct ViewRewrite {
  Binder& binder;
  const WriteTarget& target;
  const SingleSource& body;
  const char* op;                // "insert" / "update" / "delete"
  bool allowNewOld = false;      // RETURNING may write new.x / old.x
  std::string rowQualifier;      // the lowered target's correlation name ("" = the body's qualifier)
};

// The name the lowered statement gives the target row.
const std::string& rowQualifier(const ViewRewrite& r);
// A body term (forward expression or selection predicate) re-pointed at the row `qualifier`
// names, at every subquery depth the term's own sources do not shadow.
ast::ExprPtr retarget(const ast::Expr& lineage, const ViewRewrite& r, const std::string& qualifier);
// A view column's forward expression over the source, references qualified by `qualifier`.
ast::ExprPtr forwardOf(const BodyColumn& c, const ViewRewrite& r, const std::string& qualifier);
// The user's expression with every view-column name replaced by its forward expression.
ast::ExprPtr toBase(const ast::Expr& e, const ViewRewrite& r);
// The view column a name refers to; throws `unknown-view-column` when it is none.
const BodyColumn& requireViewColumn(const ViewRewrite& r, const std::string& name);

}  // namespace optic
