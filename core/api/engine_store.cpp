// Engine::persistCommit: the commit's hand-off to the store module (engine.h, store_module.h).
//
// Runs inside commitWork before the undo log is cleared, so a refused batch can still be undone:
// the whole transaction is abandoned (including ALTERs that would re-apply themselves after an
// ordinary rollback), the transaction state is reset and the error goes to the caller. The
// database stays usable; the sink holds exactly what it held before.
#include "core/api/engine.h"
#include "core/storage/store_module.h"

namespace optic {

void Engine::persistCommit() {
  if (!store_ || txn_.empty()) return;
  try {
    store_->commit(catalog_, txn_);
  } catch (...) {
    txn_.abandon();
    deferred_.clear();
    savepoints_.clear();
    explicit_ = false;
    throw;
  }
}

}  // namespace optic
