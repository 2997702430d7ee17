// Canonical DDL: the CREATE text schema() reports in its `sql` column (test-corpus.md §4), e.g.
// `create table "p" ("id" INTEGER not null, "name" TEXT null, primary key ("id")) using memory()`.
//
// Invariants: generated from the catalog objects alone (never the original source text), so two
// objects with the same shape print the same text; identifiers are always double-quoted (with
// `"` doubled); keywords are lower-case; expressions and queries re-print through
// core/parser/printer.h. Implicit UNIQUE-constraint indexes print inside their table, never as
// a standalone CREATE INDEX.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/catalog/materialized_view.h"

namespace optic {

std::string quoteIdent(std::string_view name);
std::string sqlLiteral(const Value& v);  // NULL, numbers, 'text', true/false
std::string tagsClause(const ast::Tags& tags);  // " with tags (k = v, …)", "" when empty

// kDisplay: the schema() text. kStore: the store's catalog bundle (store.md §4), which must
// rebuild the same object on reopen: schema-qualified names, key-column collations, conflict
// clauses, CHECK operations and UNIQUE-constraint tags, which the display form leaves out.
enum class DdlStyle : uint8_t { kDisplay, kStore };

std::string tableDdl(const TableSchema& t, DdlStyle style = DdlStyle::kDisplay);
std::string indexDdl(const TableSchema& t, const IndexSchema& ix, DdlStyle style = DdlStyle::kDisplay);
// `alter index "schema"."name" set tags (…)`: an exposed implicit index's own tags, which its
// table's DDL (the constraint) does not carry.
std::string exposedIndexTagsDdl(const TableSchema& t, const IndexSchema& ix);
std::string viewDdl(const ViewSchema& v);

// The store's catalog entries for a view and a maintained table (store.md §4): statements that,
// run again, declare the same object (schema-qualified name, column list, module, tags,
// `with defaults`); a maintained table keeps the form it was declared in (CREATE MATERIALIZED
// VIEW or CREATE TABLE … MAINTAINED AS).
std::string viewStoreDdl(const ViewSchema& v);
std::string maintainedTableStoreDdl(const TableSchema& t);

// A materialized view's declared column definitions as materializedColumnDefinitions prints them,
// for a declaration not attached to a view: `t`'s columns, `keys`, CHECKs and foreign keys (a
// schema diff compares a declared view's definitions with the live view's).
std::string declaredColumnDefinitions(const TableSchema& t, const std::vector<DeclaredKey>& keys, bool storeStyle = false);

}  // namespace optic
