// Context (context.h): the derived accessors.
#include "core/execution/context.h"

namespace optic {

std::vector<std::string> Context::searchPath() const {
  if (settings_.schemaPath.empty()) return {"main"};
  return settings_.schemaPath;
}

std::string Context::nextName(const std::string& base) { return base + "_" + std::to_string(++runId_); }

}  // namespace optic
