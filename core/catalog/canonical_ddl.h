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

#include "core/catalog/catalog.h"

namespace optic {

std::string quoteIdent(std::string_view name);
std::string sqlLiteral(const Value& v);  // NULL, numbers, 'text', true/false
std::string tagsClause(const ast::Tags& tags);  // " with tags (k = v, …)", "" when empty

std::string tableDdl(const TableSchema& t);
std::string indexDdl(const TableSchema& t, const IndexSchema& ix);
std::string viewDdl(const ViewSchema& v);

}  // namespace optic
