// Lens introspection (views.md §4.5): `quereus_effective_lens(schema, table)` — one row per
// logical column (logical_column, source, inverse, advertised_member, advertisement_anchor,
// effective_sql) — and `quereus_lens_advisories(schema)` — the advisories of the schema's last
// deploy with their acknowledgement status. Both read the schema's LensDeployment.
#pragma once

#include "core/execution/function_registry.h"

namespace optic {

void registerLensFunctions(FunctionRegistry& r);

}  // namespace optic
