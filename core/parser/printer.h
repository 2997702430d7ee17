// Printer: the canonical re-print of AST nodes (sql-core.md §2). It names result columns
// (`select i + 1` yields a column named "i + 1"), so its output is part of the dialect's
// observable behaviour: keywords lower-case, single spaces around binary operators, parentheses
// only where precedence needs them, literals in their source spelling.
#pragma once

#include <string>

#include "core/parser/ast.h"

namespace optic {

std::string printExpr(const ast::Expr& e);
// The identity of an expression's spelling, for matching one occurrence with another (a GROUP BY
// key inside a window spec, a repeated aggregate): printExpr with identifier case folded, since
// `A || '!'` and `a || '!'` are the same expression; literals keep their case.
std::string printFingerprint(const ast::Expr& e);
std::string printSelect(const ast::Select& s);  // canonical query text (view/MV bodies, DDL)
// printExpr as text that is parsed again (stored DDL): the same but for a minus over a minus,
// which keeps a space (`- -1`, where a column is named `--1`), since `--` starts a comment.
std::string printSqlExpr(const ast::Expr& e);
std::string printIdent(const std::string& name);  // quoted only when reserved or not a plain word
std::string printLiteral(const Value& v);         // a literal as the printer spells it

}  // namespace optic
