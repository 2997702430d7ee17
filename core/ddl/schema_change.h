// Schema-change announcements (api-and-watch.md §7): the event a DDL statement on a table, an
// index or a column announces to watchers and listeners.
//
// An announcement is resolved before its statement runs (a dropped table is gone afterwards) and
// completed after it (the module the object lives in); the api layer notes it on the Engine, which
// delivers it at commit and drops it with the statement on rollback. Its `ddl` is the statement
// re-printed canonically with schema-qualified names (core/parser/ddl_printer.h).
#pragma once

#include <optional>

#include "core/execution/context.h"
#include "core/maintenance/change_events.h"
#include "core/parser/ast.h"

namespace optic {

// The announcement of `s`, resolved before it runs; nullopt for DDL that announces nothing (views,
// materialized views, assertions, tag edits, IF NOT EXISTS / IF EXISTS on what is or is not there).
std::optional<SchemaChangeEvent> schemaChangeOf(Context& ctx, const ast::Statement& s);
// After the statement ran: fills in the module of the object the announcement names.
void completeSchemaChange(Context& ctx, SchemaChangeEvent& e);

}  // namespace optic
