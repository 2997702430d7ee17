// DDL printer: the text of a CREATE statement re-printed from its AST, in the form
// `diff schema` reports (sql-core.md §10), e.g.
// `create table users (id INTEGER primary key, name TEXT not null, email TEXT)`.
//
// Invariants: the text re-parses to an equivalent statement (every clause the AST carries is
// printed, so `apply schema` may execute what `diff schema` shows); keywords lower-case, type
// names as written, identifiers quoted only when needed, expressions and queries through
// printer.h. `prefix` is the schema qualifier to put before object names ("" or `s.`).
// This is the AST-side twin of core/catalog/canonical_ddl.h, which prints catalog objects.
#pragma once

#include <string>

#include "core/parser/ast.h"

namespace optic {

std::string printTagsClause(const ast::Tags& tags);  // " with tags (k = v, …)", "" when empty
std::string printColumnDef(const ast::ColumnDef& cd);
std::string printTableConstraint(const ast::TableConstraint& tc);
// A named-or-not column constraint of `cd` as the table-level fragment `ALTER TABLE … ADD` takes
// (`constraint n check (…)`, `unique (c)`, `foreign key (c) references …`); "" for the kinds that
// are no table constraint (not null, default, collate, generated, primary key).
std::string printColumnConstraintAsTable(const ast::ColumnDef& cd, const ast::ColumnConstraint& cc);
std::string printTagList(const ast::Tags& tags);  // "(k = v, …)", "()" when empty
std::string printDefaultValue(const ast::Expr& e);  // the expression after DEFAULT
// `defaultModule` is printed as `using m` when the table names no module itself ("" = none).
std::string printCreateTable(const ast::CreateTable& ct, const std::string& prefix, const std::string& defaultModule);
// `columnNames` (when given) replaces the key columns' names, one per column.
std::string printCreateIndex(const ast::CreateIndex& ci, const std::string& prefix,
                             const std::vector<std::string>* columnNames = nullptr);
// `orReplace` prints `create or replace` whatever cv says (a schema diff replacing a view).
std::string printCreateView(const ast::CreateView& cv, const std::string& prefix, bool orReplace = false);
std::string printCreateAssertion(const ast::CreateAssertion& ca, const std::string& prefix);
// An ALTER TABLE arm as the schema-change event's `ddl` reports it (set/drop maintained: the
// `alter table … ` head only, the differ prints those with their body).
std::string printAlterTable(const ast::AlterTable& a, const std::string& prefix);
std::string printIndexedColumns(const std::vector<ast::IndexedColumn>& cols,
                                const std::vector<std::string>* names = nullptr);  // "(a, b desc)"
std::string printViewDefaults(const std::vector<ast::ViewColumnDefault>& defaults);  // " with defaults (…)"

}  // namespace optic
