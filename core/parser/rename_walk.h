// Rename walk: rewrites the names a query reads when a table or one of its columns is renamed
// (ALTER TABLE … RENAME propagation into view bodies, and its inverse in the schema differ).
//
// Invariants: only the names change, never the shape; a table reference matches by name
// (and by schema when the reference is qualified); a column reference is renamed in a query
// level whose FROM reads the table, when it is unqualified or qualified by that table's
// name or alias. Subqueries are separate levels with their own FROM.
#pragma once

#include <string>

#include "core/parser/ast.h"

namespace optic {

// `schema` is the lower-cased schema of the renamed table; `home` the schema unqualified
// references resolve to. Both return whether anything changed.
bool renameTableInSelect(ast::Select& s, const std::string& schema, const std::string& home, const std::string& from,
                         const std::string& to);
// The subqueries of a stored expression (a DEFAULT, CHECK or `with defaults` value).
bool renameTableInExpr(ast::Expr& e, const std::string& schema, const std::string& home, const std::string& from,
                       const std::string& to);
bool renameColumnInSelect(ast::Select& s, const std::string& schema, const std::string& home, const std::string& table,
                          const std::string& from, const std::string& to);
// The subqueries of a stored expression: the column is renamed where a subquery's FROM reads it.
bool renameColumnInExpr(ast::Expr& e, const std::string& schema, const std::string& home, const std::string& table,
                        const std::string& from, const std::string& to);

// Whether any level of `s` reads the table in its FROM.
bool readsTable(ast::Select& s, const std::string& schema, const std::string& home, const std::string& table);
// Whether a subquery of a stored expression reads the table in its FROM.
bool readsTableInExpr(ast::Expr& e, const std::string& schema, const std::string& home, const std::string& table);

}  // namespace optic
