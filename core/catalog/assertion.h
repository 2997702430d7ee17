// Assertions (sql-core.md §9): `create assertion [s.]name check (expr)`, `drop assertion`, and
// the assertion_info() table-valued function.
//
// An assertion is a database-wide CHECK: its body is bound (validated) when created, stored in
// its schema's catalog entry, and evaluated at every COMMIT whose transaction changed a row
// (core/maintenance/assertions.h). Unqualified names in the body resolve against the
// assertion's own schema first, then the search path. Create and drop register their undo, so
// both roll back with the transaction.
#pragma once

#include <memory>
#include <string>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"

namespace optic {

class Engine;
class FunctionRegistry;

struct AssertionSchema {
  std::string schemaName;  // lower-case
  std::string name;        // as declared
  const ast::Expr* check = nullptr;
  std::string checkText;   // canonical text of the body
  AstKeepAlive keepAlive;
};

void executeCreateAssertion(Engine& engine, std::shared_ptr<const ast::Statement> stmt);
void executeDropAssertion(Engine& engine, const ast::Drop& drop);

// The name violations report: `name` in main, `schema.name` elsewhere.
std::string assertionDisplayName(const AssertionSchema& a);

void registerAssertionFunctions(FunctionRegistry& r);

}  // namespace optic
