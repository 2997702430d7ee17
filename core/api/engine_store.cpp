// Engine::persistCommit: the commit's hand-off to the store module (engine.h, store_module.h).
//
// Runs inside commitWork before the undo log is cleared, so a refused batch can still be undone:
// the whole transaction is abandoned (including ALTERs that would re-apply themselves after an
// ordinary rollback), the transaction state is reset and the error goes to the caller. The
// database stays usable; the sink holds exactly what it held before.
//
// A sink that stores later (the IndexedDB bridge) may lose a batch after its commit returned:
// such commits keep their undo log (unstored_) until acknowledged, and revertUnacknowledged()
// abandons them newest first, so memory again equals what storage holds.
#include "core/api/engine.h"
#include "core/storage/store_module.h"

namespace optic {

bool Engine::persistCommit() {
  if (!store_ || txn_.empty()) return false;
  try {
    return store_->commit(catalog_, txn_) && store_->storesLater();
  } catch (...) {
    txn_.abandon();
    deferred_.clear();
    savepoints_.clear();
    explicit_ = false;
    throw;
  }
}

void Engine::acknowledgeBatches(uint64_t through) {
  size_t n = 0;
  while (n < unstored_.size() && unstored_[n].batch <= through) ++n;
  unstored_.erase(unstored_.begin(), unstored_.begin() + static_cast<std::ptrdiff_t>(n));
}

void Engine::revertUnacknowledged() {
  txn_.abandon();
  deferred_.clear();
  savepoints_.clear();
  pendingSchema_.clear();
  explicit_ = false;
  for (auto it = unstored_.rbegin(); it != unstored_.rend(); ++it) txn_.revert(std::move(it->undo));
  unstored_.clear();
  catalog_.bumpVersion();  // prepared plans and maintenance state re-bind to the restored catalog
}

}  // namespace optic
