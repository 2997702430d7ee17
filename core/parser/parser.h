// Parser: SQL text → AST, for the whole dialect (sql-core.md, views.md).
//
// A hand-written recursive-descent parser over the lexer's tokens. It accepts every statement
// of the dialect, including those whose semantics are not built yet (the binder refuses those
// with "not supported yet: …"). Syntax errors throw Error(kSyntax) with the 1-based line and
// column of the offending token, and a message naming what was expected.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/parser/ast.h"

namespace optic {

// All statements of the text, in order. Empty statements (`;;`) are skipped.
std::vector<ast::StatementPtr> parseSql(std::string_view sql);

// One expression (used for stored DEFAULT/CHECK texts); the whole text must be consumed.
ast::ExprPtr parseExpression(std::string_view sql);

}  // namespace optic
