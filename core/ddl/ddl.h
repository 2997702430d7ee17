// DDL execution: CREATE/DROP TABLE, INDEX and VIEW, turning AST definitions into catalog objects.
//
// Every change registers its undo in the transaction, so DDL inside BEGIN … ROLLBACK (and a
// failing statement) leaves the catalog exactly as it was. Each change bumps the catalog
// version so prepared statements re-bind.
#pragma once

#include <memory>

#include "core/ddl/table_builder.h"
#include "core/parser/ast.h"

namespace optic {

class Context;
class Binder;

// The table a CREATE TABLE describes, without registering it (the declarative differ compares
// it with the live table). `keep` is the statement the schema's expressions point into. Generated
// columns are validated by CREATE TABLE once the table is registered, not here.
std::shared_ptr<TableSchema> buildTableSchema(Context& ctx, const ast::CreateTable& ct, const std::string& schemaName,
                                              std::shared_ptr<const ast::Statement> keep);

// Runs one DDL statement (CREATE TABLE/INDEX/VIEW/MATERIALIZED VIEW/ASSERTION, DROP, ALTER TABLE).
void executeDdl(Context& ctx, std::shared_ptr<const ast::Statement> stmt);
// The schema `key` (lower-case), added when absent; a rollback removes an added one.
Schema& ensureSchema(Context& ctx, const std::string& key);
void executeCreateTable(Context& ctx, std::shared_ptr<const ast::Statement> stmt);
void executeCreateIndex(Context& ctx, std::shared_ptr<const ast::Statement> stmt);
void executeCreateView(Context& ctx, std::shared_ptr<const ast::Statement> stmt);
// Opening a persistent database (store.md §5 phase 2): registers the view of a stored entry
// without validating its body, which is checked when used (views over views and materialized
// views restore in any order).
void restoreView(Context& ctx, std::shared_ptr<const ast::Statement> stmt);
void executeDrop(Context& ctx, const ast::Drop& drop);

}  // namespace optic
