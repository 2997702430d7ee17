// Schema statements: the entry point of core/ddl for the api layer. Runs one statement that is
// neither a query, DML nor transaction control: CREATE / DROP / ALTER of tables, indexes, views,
// materialized views and assertions, REFRESH, DECLARE / APPLY / EXPLAIN SCHEMA, PRAGMA, ANALYZE.
//
// Under `pragma ddl_transaction_policy = 'strict'` a statement that would reach a table module
// is refused inside an explicit transaction before anything changes (sql-core.md §6).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/execution/context.h"
#include "core/maintenance/change_events.h"
#include "core/parser/ast.h"

namespace optic {

struct SchemaStatementResult {
  std::vector<Row> rows;  // PRAGMA reads, ANALYZE, APPLY / EXPLAIN SCHEMA; empty otherwise
  // The statement's §7 announcement (schema_change.h), for the caller to note on the Engine.
  std::optional<SchemaChangeEvent> announcement;
};

SchemaStatementResult executeSchemaStatement(Context& ctx, std::shared_ptr<const ast::Statement> stmt);

}  // namespace optic
