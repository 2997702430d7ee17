// Writes through a multi-source (join) view body (views.md §2.5).
//
// UPDATE and DELETE capture first: one query over the join body (user WHERE ∧ body WHERE)
// yields every side's primary key for the affected view rows and the value of every SET item,
// before any base write runs. Each written side then gets an ordinary base statement that
// addresses the captured rows (`where exists (select 1 from <capture> where keys match)`):
// UPDATE sides run FK-parent first; DELETE removes the FK-child side when a foreign key proves
// it, else fans out to every preserved side, children first. INSERT routes each supplied
// column to its side, threads a supplied shared join key to every side and inserts the sides
// FK-parent first. RETURNING (update/delete) re-queries the join for the captured keys.
// A body-named existence flag of an outer join is a writable boolean: `set hasB = false`
// deletes the matched partner, `= true` materialises a missing one (its join columns from the
// preserved side), and an INSERT supplying it routes (or leaves out) the partner's insert.
//
// Invariant: execution sees base-table statements only; the capture is the one extra relation,
// a row source the binder reads at execution time.
//
// An INSERT's omitted columns follow views.md §2.3 per side: the body's selection-predicate
// constants (a contradicting literal is refused), the minted shared key, then base defaults (a
// DEFAULT reading another side's view column is evaluated over the produced view row). A
// null-extendable side given only NULLs is absent from that row.
#pragma once

#include <memory>

#include "core/execution/dml.h"
#include "core/parser/ast.h"
#include "core/planner/write_target.h"

namespace optic {

class Binder;

std::unique_ptr<DmlPlan> bindJoinUpdate(Binder& binder, const ast::Update& up, const WriteTarget& t);
std::unique_ptr<DmlPlan> bindJoinDelete(Binder& binder, const ast::Delete& del, const WriteTarget& t);
std::unique_ptr<DmlPlan> bindJoinInsert(Binder& binder, const ast::Insert& ins, const WriteTarget& t);

}  // namespace optic
