// View write-through lowering (views.md §2): an INSERT, UPDATE or DELETE whose target is a view,
// a CTE name of the statement's WITH, or an inline subquery is rewritten at plan time into a
// base-table statement, which is then bound by the ordinary DML binder — so every constraint,
// conflict clause, FK action, RETURNING and change-log entry applies unchanged, and execution
// never sees a view as a write target (architecture.md).
//
// - UPDATE/DELETE: SET targets map to base columns through their column class (passthrough,
//   `± literal` inverse, authored puts); user names are substituted by their forward
//   expressions (view_substitution.h); the body's WHERE is conjoined. A view over a view lowers
//   one level and re-enters the binder.
// - INSERT: lowered level by level down to the base table, carrying the fills of omitted
//   columns in the spec's order: supplied values, predicate pins, the bodies' `with defaults`
//   (outer level wins), then the base DEFAULT / NULL, else the `no-default` error.
// - RETURNING projects through the view's columns against the post-mutation row.
//
// Invariant: a rejected write throws before any plan exists, so it changes nothing.
#pragma once

#include <memory>

#include "core/execution/dml.h"
#include "core/parser/ast.h"

namespace optic {

class Binder;

// Null when the statement's target is a base table (bind it as usual).
std::unique_ptr<DmlPlan> bindViewInsert(Binder& binder, const ast::Insert& insert);
std::unique_ptr<DmlPlan> bindViewUpdate(Binder& binder, const ast::Update& update);
std::unique_ptr<DmlPlan> bindViewDelete(Binder& binder, const ast::Delete& del);

// The lowering itself, one step (insert: all the way to the base table). Null when the target
// is a base table. Exposed for tests.
std::unique_ptr<ast::Statement> lowerViewInsert(Binder& binder, const ast::Insert& insert);
std::unique_ptr<ast::Statement> lowerViewUpdate(Binder& binder, const ast::Update& update);
std::unique_ptr<ast::Statement> lowerViewDelete(Binder& binder, const ast::Delete& del);

}  // namespace optic
