// Rename propagation into stored query bodies (sql-core.md §8, views.md §3.6).
//
// `alter table … rename to` and `alter table … rename column` rewrite the bodies that name the
// renamed table or column: plain views and materialized views (their `with defaults` clauses
// included), so they keep reading, and a maintained table keeps being maintained, under the new
// names. A bare passthrough column (`select id, x from t`, or `select *`) republishes the new
// name: the view's or materialized view's own output column is renamed with it, and the rename
// then propagates one level further out to the objects reading that view (rounds repeat until
// no output name shifts). A view with an explicit column list pins its names. The subqueries of
// tables' DEFAULT, CHECK and generated expressions follow both kinds of rename too.
//
// Invariants: a body the rename does not reach is left as it is (same AST, same text); every
// change is recorded in the transaction's undo log, so a rolled-back ALTER restores the old
// bodies; the rewrite is syntactic, scoped like the binder's name resolution (a qualifier or
// an unqualified name binds to the nearest FROM source that has it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"

namespace optic {

class Context;

// Refuses (before any change) a column rename that would give a dependent view or materialized
// view two output columns of one name ("… already publishes a column named 'y'").
void checkRenamePropagation(Context& ctx, const TableSchema& oldS, const TableSchema& newS);

// The views and materialized views that republish `column` of `table` (a bare passthrough or
// a star over it), through any number of levels: the objects a RENAME COLUMN would carry the
// rename to, whose own column of that name a reader may name instead of the table's.
struct Republisher {
  std::string schema;  // lower-case
  std::string name;
};
std::vector<Republisher> republishersOf(Context& ctx, const TableSchema& table, const std::string& column);

// Rewrites every dependent body for the rename from `oldS` to `newS` (table name or one column
// name differs). `done` is the ALTER's completion flag, shared with its other undo entries.
void propagateRename(Context& ctx, const TableSchema& oldS, const TableSchema& newS,
                     const std::shared_ptr<bool>& done);

}  // namespace optic
