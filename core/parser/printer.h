// Printer: the canonical re-print of AST nodes (sql-core.md §2). It names result columns
// (`select i + 1` yields a column named "i + 1"), so its output is part of the dialect's
// observable behaviour: keywords lower-case, single spaces around binary operators, parentheses
// only where precedence needs them, literals in their source spelling.
#pragma once

#include <string>

#include "core/parser/ast.h"

namespace optic {

std::string printExpr(const ast::Expr& e);
std::string printSelect(const ast::Select& s);  // canonical query text (view/MV bodies, DDL)
std::string printIdent(const std::string& name);  // quoted only when reserved or not a plain word
std::string printLiteral(const Value& v);         // a literal as the printer spells it

}  // namespace optic
