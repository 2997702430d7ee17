// An assertion (sql-core.md §9): a database-wide CHECK, stored in its schema's catalog entry and
// evaluated at every COMMIT whose transaction changed a row (core/maintenance/commit_checks.h).
// Its statements live in core/ddl/assertion_statements.h.
#pragma once

#include <memory>
#include <string>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"

namespace optic {


struct AssertionSchema {
  std::string schemaName;  // lower-case
  std::string name;        // as declared
  const ast::Expr* check = nullptr;
  std::string checkText;   // canonical text of the body
  AstKeepAlive keepAlive;
};


// The name violations report: `name` in main, `schema.name` elsewhere.
inline std::string assertionDisplayName(const AssertionSchema& a) {
  return a.schemaName == "main" ? a.name : a.schemaName + "." + a.name;
}


}  // namespace optic
