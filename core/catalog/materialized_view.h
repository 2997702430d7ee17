// Materialized views: a maintained table is one table carrying a derivation (views.md §3).
//
// The derivation hangs off the table's (immutable) TableSchema, so every DDL that swaps the
// schema carries it along and undo restores it with the schema. Its statements:
// CREATE MATERIALIZED VIEW, CREATE TABLE … MAINTAINED AS (declared shape, checked against the
// body component by component), ALTER TABLE … SET / DROP MAINTAINED, REFRESH and DROP
// MATERIALIZED VIEW. Direct writes to a maintained table never happen: DML naming it is routed
// through the view write-through machinery to its source (write_target.cpp), and only the
// maintainer (core/maintenance) writes its rows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"

namespace optic {

class Engine;

struct MaterializedView {
  const ast::Select* body = nullptr;
  std::string bodyText;                  // canonical text of the body
  std::vector<std::string> columnNames;  // an MV column list / a maintained rename list ("" = none)
  bool columnListDeclared = false;       // `create materialized view m(a, b)`: a declared interface
  bool tableForm = false;                // declared by CREATE TABLE … MAINTAINED / ALTER … SET MAINTAINED
  const std::vector<ast::ViewColumnDefault>* defaults = nullptr;  // `with defaults (…)`
  std::string sourceSignature;           // MvAnalysis::sourceSignature when (re)built
  AstKeepAlive keepAlive;
};

void executeCreateMaterializedView(Engine& engine, std::shared_ptr<const ast::Statement> stmt);
// CREATE TABLE … MAINTAINED AS: `ts` is the declared table; attaches the derivation after the
// shape checks. The caller registers the table, then calls fillMaintainedTable().
void attachDeclaredDerivation(Engine& engine, TableSchema& ts, const ast::CreateTable& ct,
                              std::shared_ptr<const ast::Statement> stmt);
void fillMaintainedTable(Engine& engine, Table& table);
void executeRefreshMaterializedView(Engine& engine, const ast::RefreshMaterializedView& r);
void executeDropMaterializedView(Engine& engine, const ast::Drop& drop);
// ALTER TABLE on a maintained table: returns true when this file handled the statement
// (SET / DROP MAINTAINED); throws for the forms a maintained table refuses.
bool executeAlterMaintained(Engine& engine, std::shared_ptr<const ast::Statement> stmt,
                            const std::shared_ptr<Table>& table);
// The canonical (table-form) DDL of a maintained table.
std::string maintainedTableDdl(const TableSchema& t);

}  // namespace optic
