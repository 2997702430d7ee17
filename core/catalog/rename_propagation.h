// Rename propagation into views: after `alter table s.t rename to n` or `rename column a to b`,
// every view whose body reads the table is re-stored with its body and `with defaults` columns
// following the rename (core/parser/rename_walk.h), so the view keeps working under the new
// names. Each replacement registers its undo, like every catalog change.
#pragma once

#include <string>

#include "core/parser/ast.h"

namespace optic {

class Engine;

// `schema` (lower-case) and `table` name the table as it was before the ALTER ran.
void propagateRenameToViews(Engine& engine, const std::string& schema, const std::string& table,
                            const ast::AlterTable& at);

}  // namespace optic
