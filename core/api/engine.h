// Engine: one open database: the Context the lower layers share (catalog, functions, settings,
// the transaction) plus statement and transaction control and the persistence of commits.
//
// Transactions: outside an explicit BEGIN every statement runs in an implicit transaction that
// commits (deferred checks first) or rolls back when the statement ends. Inside BEGIN, each
// statement still rolls back alone on failure (a statement mark in the undo log), and COMMIT
// runs the deferred checks for the whole transaction.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/execution/context.h"
#include "core/maintenance/change_events.h"
#include "core/parser/ast.h"
#include "core/storage/transaction.h"

namespace optic {

class StoreModule;                 // core/persistence/store_module.h
class MaterializedViewMaintainer;  // core/maintenance/mv_maintenance.h
class WriteBatch;                  // core/storage/write_batch.h

struct Savepoint {
  std::string name;
  TransactionMark mark;
};

// Told about each successful commit (core/api/watch.h), after it is durable and with the
// transaction state already clean, so it may run statements of its own.
class CommitObserver {
 public:
  virtual ~CommitObserver() = default;
  // False when nothing would see the commit (no watch, no listener, nothing queued): the engine
  // then keeps the change log's buffers for the next transaction instead of handing them over.
  virtual bool observing() const = 0;
  // remote: the commit was made by another connection to the same storage (applyRemoteBatch).
  virtual void committed(std::vector<RowChange> changes, std::vector<SchemaChangeEvent> schema, bool remote) = 0;
};

class Engine : public Context {
 public:
  Engine();
  ~Engine();

  // Row-time maintenance of maintained tables from the change log.
  MaterializedViewMaintainer& materializedViews() { return *materializedViews_; }

  // Statement boundaries (called by the api layer around every statement).
  void beginStatement();
  void endStatement(bool ok);

  // Transaction control statements.
  void begin();
  void commit();
  void rollback();
  void savepoint(const std::string& name);
  void release(const std::string& name);
  void rollbackTo(const std::string& name);

  // A persistent database's store module: every commit's write batch goes through it
  // (engine_store.cpp); null for a memory database.
  void setStoreModule(std::shared_ptr<StoreModule> m) {
    store_ = std::move(m);
    persistent_ = store_ != nullptr;
  }
  StoreModule* storeModule() const { return store_.get(); }
  // Clean shutdown (Database::close): an open transaction is rolled back, then the store writes
  // its clean-shutdown marker (counted as a batch under a sink that stores later).
  void closeStore();

  // Under a sink that stores later (persistence.h): commits are numbered by the batch they sent
  // (1, 2, …) and keep their undo until acknowledged. acknowledgeStored(n): batches up to n
  // are stored. revertUnstored(): the later ones are lost; memory goes back to what storage
  // holds (an open transaction is rolled back first) and the database stays usable.
  uint64_t lastBatch() const { return batches_; }
  void acknowledgeStored(uint64_t through);
  void revertUnstored();

  // A batch another connection to the same storage stored (the IndexedDB bridge's cross-tab
  // path): applied to memory as a commit of its own that sends nothing to the sink (storage has
  // it already); the commit observer sees it with remote = true, and tables it re-declared come
  // with remote schema changes (StoreModule::applyRemoteBatch). Only when idle(); throws kMisuse
  // otherwise. Returns the catalog entries that did not load (as hydration reports them).
  std::vector<std::string> applyRemoteBatch(const WriteBatch& batch, uint64_t seq = 0);
  // Memory made what storage held at commit `seq` (StoreModule::resync: `contents` holds the
  // entries of `ranges`, its resyncRanges(), read then), delivered like a remote batch. Only
  // when idle().
  std::vector<std::string> resync(const std::vector<std::pair<std::string, std::string>>& ranges,
                                  const KVStore& contents, uint64_t seq);
  // No explicit transaction and no statement running: a remote batch may be applied.
  bool idle() const { return !explicit_ && openStatements_ == 0; }

  void setCommitObserver(CommitObserver* o) { observer_ = o; }
  // A DDL statement's announcement (§7): delivered at commit, undone with the statement.
  void noteSchemaChange(SchemaChangeEvent e);

 private:
  // How a transaction is abandoned: an ordinary rollback (non-transactional DDL re-applies
  // itself over the restored rows), or an abandon that keeps nothing (storage refused the commit,
  // or lost it).
  enum class Undo : uint8_t { kRollback, kAbandon };
  // Ends the open transaction keeping nothing of it: writes, catalog changes, owed checks,
  // savepoints and schema announcements.
  void abandonTransaction(Undo how);
  void runDeferredChecks();
  void commitWork();
  bool persistCommit();  // engine_store.cpp: true when the sent batch awaits acknowledgement
  void deliverCommit(std::vector<RowChange> changes, std::vector<SchemaChangeEvent> schema, bool remote);
  // applyRemoteBatch and resync: `apply` changes memory through the store module as a commit
  // of another connection's.
  template <typename Apply>
  std::vector<std::string> applyRemote(Apply&& apply);

  int openStatements_ = 0;  // between beginStatement and endStatement (nested ones count too)
  TransactionMark statementMark_;
  std::vector<Savepoint> savepoints_;
  std::shared_ptr<StoreModule> store_;
  struct UnstoredCommit {
    uint64_t batch;
    Transaction::UndoLog undo;
  };
  std::vector<UnstoredCommit> unstored_;  // oldest first
  uint64_t batches_ = 0;
  std::unique_ptr<MaterializedViewMaintainer> materializedViews_;
  CommitObserver* observer_ = nullptr;
  std::vector<SchemaChangeEvent> pendingSchema_;
};

}  // namespace optic
