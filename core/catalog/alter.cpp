#include "core/catalog/alter.h"

#include "core/api/engine.h"
#include "core/common/error.h"

namespace optic {

void executeAlterTable(Engine& engine, std::shared_ptr<const ast::Statement> stmt) {
  (void)engine;
  throw Error(ErrorCode::kUnsupported, "not supported yet: " + stmt->text.substr(0, 40));
}

}  // namespace optic
