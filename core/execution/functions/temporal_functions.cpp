// Temporal built-ins (work in progress: registration only so the library links).
#include "core/execution/function_registry.h"

namespace optic {

void registerTemporalFunctions(FunctionRegistry&) {}

}  // namespace optic
