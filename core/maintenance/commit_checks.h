// The checks COMMIT runs after the foreign-key child checks (sql-core.md §6, §9): deferred
// CHECK constraints (those with a subquery, evaluated on the row as finally written), the keys a
// lens enforces by a scan (views.md §4.3, once per logical table the transaction wrote through)
// and assertions (evaluated once per commit whose transaction changed a row).
//
// Both run before the write batch is built, while the undo log still holds the transaction, so
// `committed.<t>` in a body reads the pre-transaction snapshot. A failure throws
// Error(kConstraint); the engine then rolls the whole transaction back.
#pragma once

#include <string>

#include "core/execution/context.h"

namespace optic {

struct CheckConstraint;

// One deferred CHECK for the row `d` recorded; skipped when a later write replaced or removed
// that row (the later write recorded its own check), or, for a delete's check, put a row back
// at its key.
void runDeferredRowCheck(Context& ctx, const DeferredCheck& d, const TableSchema& table, const CheckConstraint& ck);

// The scanned keys (LensSlot::keyScans) of logical table schema.table, as the lens deployed now
// has them: two rows with equal non-NULL key values fail with `CHECK constraint failed: lens:pk`
// (`lens:unique`, `lens:unique:<name>`), the reference's wording for its deferred count check.
// Nothing when the table is no longer a lens slot (dropped or redeployed without it).
void checkLensKeys(Context& ctx, const std::string& schema, const std::string& table);

// Every assertion of every schema: `Integrity assertion failed: name` for the first that is false.
void checkAssertions(Context& ctx);

}  // namespace optic
