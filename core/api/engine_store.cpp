// Engine::persistCommit: the commit's hand-off to the store module (engine.h, store_module.h).
//
// Runs inside commitWork before the undo log is cleared, so a refused batch can still be undone:
// the whole transaction is abandoned (including ALTERs that would re-apply themselves after an
// ordinary rollback), the transaction state is reset and the error goes to the caller. The
// database stays usable; the sink holds exactly what it held before.
//
// A sink that stores later (the IndexedDB bridge) may lose a batch after its commit returned:
// such commits keep their undo log (unstored_) until acknowledged (acknowledgeStored), and
// revertUnstored() abandons them newest first, so memory again equals what storage holds.
//
// applyRemoteBatch: another connection's stored batch goes through the store module into this
// transaction's undo and change log, then commits without persistCommit (storage has it).
#include "core/api/engine.h"
#include "core/common/error.h"
#include "core/maintenance/mv_maintenance.h"
#include "core/persistence/store_module.h"

namespace optic {

bool Engine::persistCommit() {
  if (!store_ || txn_.empty()) return false;
  try {
    return store_->commit(catalog_, txn_) && store_->storesLater();
  } catch (...) {
    abandonTransaction(Undo::kAbandon);
    throw;
  }
}

namespace {
SchemaChangeEvent remoteSchemaChange(const StoreModule::RemoteTableChange& c) {
  using Kind = StoreModule::RemoteTableChange::Kind;
  SchemaChangeEvent e;
  e.type = c.kind == Kind::kCreated ? SchemaChangeEvent::Type::kCreate
           : c.kind == Kind::kAltered ? SchemaChangeEvent::Type::kAlter
                                      : SchemaChangeEvent::Type::kDrop;
  e.objectType = SchemaChangeEvent::Object::kTable;
  e.moduleName = "store";
  e.schemaName = c.schema;
  e.objectName = c.table;
  e.ddl = c.ddl;
  e.remote = true;
  if (c.kind != Kind::kCreated) {
    e.disposesSchema = lowerName(c.schema);
    e.disposesTable = lowerName(c.table);
  }
  return e;
}
}  // namespace

std::vector<std::string> Engine::applyRemoteBatch(const WriteBatch& batch, uint64_t seq) {
  return applyRemote([&] { return store_->applyRemoteBatch(*this, batch, seq); });
}

std::vector<std::string> Engine::resync(const std::vector<std::pair<std::string, std::string>>& ranges,
                                        const KVStore& contents, uint64_t seq) {
  // Storage is the truth it is made: a commit of this connection's not stored yet would be lost.
  if (!unstored_.empty()) throw Error(ErrorCode::kMisuse, "a resync waits until this connection's commits are stored");
  return applyRemote([&] { return store_->resync(*this, ranges, contents, seq); });
}

template <typename Apply>
std::vector<std::string> Engine::applyRemote(Apply&& apply) {
  if (!store_) throw Error(ErrorCode::kMisuse, "a remote batch needs a persistent database");
  if (!idle()) throw Error(ErrorCode::kMisuse, "a remote batch cannot be applied inside a statement or transaction");
  StoreModule::RemoteResult r;
  materializedViews_->beginStatement();
  try {
    r = apply();
    materializedViews_->maintain();  // this connection's maintained tables follow the sources
  } catch (...) {
    abandonTransaction(Undo::kAbandon);
    throw;
  }
  std::vector<RowChange> changes = txn_.takeChanges();
  txn_.clear();
  std::vector<SchemaChangeEvent> schema;
  for (const auto& c : r.tables) schema.push_back(remoteSchemaChange(c));
  if (!schema.empty()) catalog_.bumpVersion();  // prepared plans re-bind to the new tables
  if (observer_ && observer_->observing()) deliverCommit(std::move(changes), std::move(schema), true);
  return std::move(r.errors);
}

void Engine::closeStore() {
  if (!store_) return;
  if (explicit_) rollback();
  store_->writeCleanShutdown(catalog_);
  if (store_->storesLater()) ++batches_;  // numbered like a commit's batch; it has nothing to undo
}

void Engine::acknowledgeStored(uint64_t through) {
  size_t n = 0;
  while (n < unstored_.size() && unstored_[n].batch <= through) ++n;
  unstored_.erase(unstored_.begin(), unstored_.begin() + static_cast<std::ptrdiff_t>(n));
}

void Engine::revertUnstored() {
  abandonTransaction(Undo::kAbandon);
  for (auto it = unstored_.rbegin(); it != unstored_.rend(); ++it) txn_.revert(std::move(it->undo));
  unstored_.clear();
  catalog_.bumpVersion();  // prepared plans and maintenance state re-bind to the restored catalog
}

}  // namespace optic
