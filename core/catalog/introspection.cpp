#include "core/catalog/introspection.h"

namespace optic {

void registerCatalogFunctions(FunctionRegistry& r) { (void)r; }

}  // namespace optic
