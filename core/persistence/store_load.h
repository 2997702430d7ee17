// Lazy loading of store tables: which tables a statement needs in memory before it runs.
//
// A database opened on the IndexedDB bridge reads only its catalog at open (StoreModule::hydrate
// with lazy = true): every store table is registered but not loaded, its rows and index entries
// still in storage. Before a statement runs, the bridge asks tablesToLoad() which of the not-loaded
// tables the statement may touch, reads their key ranges (StoreModule::loadRanges) in one
// IndexedDB transaction and hands them over (StoreModule::loadTables); then the statement runs
// without waiting on I/O. A table once loaded stays loaded.
//
// The closure is lexical and deliberately generous, because a table missed here would be a
// statement that cannot run, while a table loaded early only costs its read. Every identifier
// of the statement's text that names a table (in any schema) counts, and so does every table
// named in the body of a view it names (recursively) and in the derivation of a maintained table
// it reaches. A statement that may write (INSERT, UPDATE, DELETE) also reaches, from each table it
// reaches: the identifiers of the table's own DDL (FOREIGN KEY parents, CHECK and DEFAULT
// subqueries), the tables whose foreign keys reference it (actions and RESTRICT checks), the
// maintained tables whose derivations name it (and so their other sources), and the tables of
// every assertion (checked at commit). Working on names rather than the bound plan keeps one
// rule for every statement kind, with no risk of a plan shape (a view's INSTEAD lowering, an
// FK action, a subquery in a DEFAULT) that a walk of the plan would forget.
//
// What the rule cannot see says "all": DROP, ALTER, ANALYZE, declared schemas and lenses, SEED.
// CREATE TABLE (unless MAINTAINED AS), plain CREATE VIEW, PRAGMA, BEGIN and ROLLBACK need nothing;
// COMMIT and RELEASE need the assertions' tables.
//
// The safety net: a statement that still reaches a not-loaded table fails with kNotLoaded
// (Table::rows()) and rolls back like any failing statement; the bridge then loads the named
// table and runs it again once.
#pragma once

#include <string>
#include <vector>

#include "core/parser/ast.h"

namespace optic {

class Catalog;

// The catalog keys ({schema}.{table}) of the not-loaded store tables the statements may touch,
// sorted.
std::vector<std::string> tablesToLoad(const Catalog& catalog, const std::vector<ast::StatementPtr>& statements);

}  // namespace optic
