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

// A key the user declared on a materialized view's schema (`primary key (…)`, `unique (…)`):
// output column indexes. It must be provable from the body when created; a later analysis (a
// source altered, a reopen by another engine version) that no longer proves it drops it from
// the keys the engine relies on (MaterializedView::unconfirmedKeys) while the backing's unique
// index keeps enforcing it on every derived row.
struct DeclaredKey {
  std::vector<int> columns;
  bool primary = false;
};

struct MaterializedView {
  const ast::Select* body = nullptr;
  std::string bodyText;                  // canonical text of the body
  std::vector<std::string> columnNames;  // an MV column list / a maintained rename list ("" = none)
  bool columnListDeclared = false;       // `create materialized view m(a, b)`: a declared interface
  bool tableForm = false;                // declared by CREATE TABLE … MAINTAINED / ALTER … SET MAINTAINED
  const std::vector<ast::ViewColumnDefault>* defaults = nullptr;  // `with defaults (…)`
  std::string sourceSignature;           // MvAnalysis::sourceSignature when (re)built
  // `create materialized view m (c type …, primary key (…))`: the table's column names, types,
  // NOT NULLs and collations are the declared ones (never inferred), the body's output converts
  // to them as INSERT converts, and a declared NOT NULL is checked on every derived row.
  bool schemaDeclared = false;
  std::vector<DeclaredKey> declaredKeys;     // declared PRIMARY KEY (first) and UNIQUEs
  std::vector<std::string> unconfirmedKeys;  // declared keys the analysis did not prove on restore
  AstKeepAlive keepAlive;
};

// The canonical (table-form) DDL of a maintained table.
std::string maintainedTableDdl(const TableSchema& t);
// What schema() shows for a materialized view: the table form, or for a declared schema the
// CREATE MATERIALIZED VIEW with its declared column definitions (the table form cannot say that
// the body's output converts to them and that a NOT NULL is checked per row).
std::string materializedViewDdl(const TableSchema& t);

// The column definitions of a maintained table ready to paste into a CREATE MATERIALIZED VIEW:
// `"id" INTEGER not null, "v" TEXT null, primary key ("id")`. A declared schema prints its
// declared keys; otherwise the keys are the table's (inferred) primary key. `style` as tableDdl.
std::string materializedColumnDefinitions(const TableSchema& t, bool storeStyle = false);
// "primary key (\"a\")" / "unique (\"a\", \"b\")": a declared key as written in that list.
std::string declaredKeyText(const TableSchema& t, const DeclaredKey& k);

}  // namespace optic
