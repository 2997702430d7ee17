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
void executeRefreshMaterializedView(Context& ctx, const ast::RefreshMaterializedView& r);
void executeDropMaterializedView(Context& ctx, const ast::Drop& drop);
// ALTER TABLE on a maintained table: returns true when this file handled the statement
// (SET / DROP MAINTAINED); throws for the forms a maintained table refuses.
bool executeAlterMaintained(Context& ctx, std::shared_ptr<const ast::Statement> stmt,
                            const std::shared_ptr<Table>& table);

}  // namespace optic
