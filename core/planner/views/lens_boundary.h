// The lens boundary at write time (views.md §4.3): what a write through a logical table `L.T`
// (a view a lens deployed, core/catalog/lens.h) must honour besides the updatable-view lowering.
//
// - A read-only slot (lens.pk-not-reconstructible) refuses every write (`lens-read-only`).
// - A key enforced by a scan cannot resolve conflicts: OR REPLACE / OR IGNORE / an upsert
//   against a table with such keys is refused (`lens-set-level-conflict-resolution`).
// - The slot's row-local rules (logical NOT NULL, CHECK and FOREIGN KEY in basis terms) ride the
//   lowered base write of the basis table each names: the body's one table, or the member of a
//   join or decomposition backing the columns the rule reads (Binder::BoundaryRules →
//   BoundTableRules::boundary).
// - A DELETE first runs the slot's delete actions (logical ON DELETE CASCADE / SET NULL): a
//   delete (or `set … = null`) through each child's lens of the rows referencing a parent row
//   the DELETE selects.
// - A write through a slot with scanned keys (lens.no-backing-index) that changed rows records a
//   DeferredCheck (`lensKeys`) in the transaction; COMMIT (an autocommit statement's end is its
//   commit) scans the logical table (core/maintenance/commit_checks.h). So a duplicate one
//   statement creates and a later one removes before COMMIT is accepted, and rolling back the
//   writes (statement, savepoint) drops the debt with them.
//
// Invariant: a write through anything else than a lens view is bound exactly as before.
#pragma once

#include <functional>
#include <memory>

#include "core/execution/dml.h"
#include "core/parser/ast.h"
#include "core/planner/write_target.h"

namespace optic {

class Binder;

// `bind` binds the write as the view lowering does; the result enforces the lens boundary when
// `t` is a lens view. `orAction`/`upsert`: the statement's conflict handling; `deleteWhere`: a
// DELETE's WHERE (null otherwise, or when it has none).
std::unique_ptr<DmlPlan> bindAtLensBoundary(Binder& binder, const WriteTarget& t, const char* op,
                                            ast::ConflictAction orAction, bool upsert,
                                            const std::function<std::unique_ptr<DmlPlan>()>& bind,
                                            const ast::Expr* deleteWhere = nullptr);

}  // namespace optic
