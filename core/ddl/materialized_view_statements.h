// Materialized-view statements (views.md §3): CREATE MATERIALIZED VIEW, CREATE TABLE … MAINTAINED
// AS (declared shape, checked against the body component by component), ALTER TABLE … SET / DROP
// MAINTAINED, REFRESH and DROP MATERIALIZED VIEW. The object they create is the catalog's
// MaterializedView derivation (core/catalog/materialized_view.h); the rows are filled and kept
// by the maintainer (core/maintenance).
#pragma once

#include <memory>

#include "core/catalog/catalog.h"
#include "core/catalog/materialized_view.h"
#include "core/parser/ast.h"

namespace optic {

class Context;

void executeCreateMaterializedView(Context& ctx, std::shared_ptr<const ast::Statement> stmt);
// CREATE TABLE … MAINTAINED AS: `ts` is the declared table; attaches the derivation after the
// shape checks. The caller registers the table, then calls fillMaintainedTable().
void attachDeclaredDerivation(Context& ctx, TableSchema& ts, const ast::CreateTable& ct,
                              std::shared_ptr<const ast::Statement> stmt);
void fillMaintainedTable(Context& ctx, Table& table);

// Opening a persistent database (core/persistence rehydrate, store.md §5 phase 3): declares the
// maintained table of a stored entry (CREATE MATERIALIZED VIEW or CREATE TABLE … MAINTAINED AS)
// without filling it. When the catalog holds a plain store table of that name with exactly the
// declared shape (the store-hosted backing hydrated as a table), that table becomes the
// maintained table and keeps its rows (keptRows), marked for refill unless `trusted`; otherwise
// the declared table replaces it, empty and marked for refill (Table::needsRefill). Throws, with
// the catalog as it was, when the entry does not declare (a missing source, say).
struct RestoredMaterializedView {
  std::shared_ptr<Table> table;
  bool keptRows = false;
};
RestoredMaterializedView restoreMaterializedView(Context& ctx, std::shared_ptr<const ast::Statement> stmt,
                                                 bool trusted);
void executeRefreshMaterializedView(Context& ctx, const ast::RefreshMaterializedView& r);
void executeDropMaterializedView(Context& ctx, const ast::Drop& drop);
// ALTER TABLE on a maintained table: returns true when this file handled the statement
// (SET / DROP MAINTAINED); throws for the forms a maintained table refuses.
bool executeAlterMaintained(Context& ctx, std::shared_ptr<const ast::Statement> stmt,
                            const std::shared_ptr<Table>& table);

}  // namespace optic
