// Materialized views: a maintained table is one table carrying a derivation (views.md §3).
//
// The derivation hangs off the table's (immutable) TableSchema, so every DDL that swaps the
// schema carries it along and undo restores it with the schema. Its statements live in
// core/ddl/materialized_view_statements.h. Direct writes to a maintained table never happen: DML naming it is routed
// through the view write-through machinery to its source (write_target.cpp), and only the
// maintainer (core/maintenance) writes its rows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"

namespace optic {

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

// The canonical (table-form) DDL of a maintained table.
std::string maintainedTableDdl(const TableSchema& t);

}  // namespace optic
