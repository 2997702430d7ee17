// ALTER TABLE (sql-core.md §8): every arm, each validating before it changes anything and
// registering its undo in the transaction, with renames propagated into dependents.
#pragma once

#include <memory>

#include "core/parser/ast.h"

namespace optic {

class Context;

void executeAlterTable(Context& ctx, std::shared_ptr<const ast::Statement> stmt);
// ALTER INDEX … SET | ADD | DROP TAGS: a catalog-only change of the index's table.
void executeAlterIndexTags(Context& ctx, std::shared_ptr<const ast::Statement> stmt);

}  // namespace optic
