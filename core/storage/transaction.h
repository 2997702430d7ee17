// Transaction: the undo log, the per-transaction change log and the deferred checks.
//
// Every write to a KVStore and every catalog change made inside a transaction records how to undo
// itself here before it happens. Rolling back to a mark (a statement's start, a savepoint)
// replays the undo entries newer than the mark in reverse and truncates the change log and the
// deferred checks to the same point, so storage, catalog, the change log and the checks still
// owed at COMMIT always move together.
//
// The change log lists every row change (table, old row, new row) in the order it happened; MV
// maintenance, assertions, events and watches read it. The persistence batch is built from the
// undo log's KV keys (forEachWrite): what is stored is exactly what was written.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/value.h"
#include "core/storage/kv_store.h"

namespace optic {

struct RowChange {
  std::string schema;
  std::string table;
  std::optional<Row> oldRow;  // absent for an insert
  std::optional<Row> newRow;  // absent for a delete
};

// A constraint check deferred to COMMIT (FK child existence, CHECKs with subqueries, the keys a
// lens enforces by a scan).
struct DeferredCheck {
  std::string schema;
  std::string table;
  std::string constraint;  // FK or CHECK name
  Row row;                 // the row as written
  bool isCheck = false;    // a CHECK with a subquery (else a foreign key)
  std::optional<Row> oldRow;  // the CHECK's old.* (updates and deletes)
  bool deleted = false;       // recorded by a DELETE: `row` is the removed row
  Row context;                // the statement's mutation-context values (CHECKs reading them)
  bool lensKeys = false;      // a write through logical table schema.table owes its scanned keys
};

struct TransactionMark {
  size_t undo = 0;
  size_t changes = 0;
  size_t deferred = 0;
};

class Transaction {
 public:
  // Call before overwriting or erasing `key` in `store`; `previous` is its current value.
  void recordWrite(KVStore* store, std::string key, std::optional<std::string> previous);
  // Call after a catalog (or other in-memory) change, with the closure that reverts it.
  void recordUndo(std::function<void()> undo);
  void recordChange(RowChange change) { changes_.push_back(std::move(change)); }
  // A check to run at COMMIT; rolled back with the writes that owed it.
  void recordDeferred(DeferredCheck check) { deferred_.push_back(std::move(check)); }
  const std::vector<DeferredCheck>& deferred() const { return deferred_; }
  // An empty row with capacity for a change-log image: one of the rows a commit's clear() took
  // back from the log, or a new one. The hot write path's row copies then allocate nothing.
  Row spareRow();
  // Called from inside an undo closure: `fn` runs once the current rollback has finished, the
  // latest registered first (non-transactional DDL re-applies itself over the restored rows).
  void afterRollback(std::function<void()> fn) { afterRollback_.push_back(std::move(fn)); }

  TransactionMark mark() const { return {undo_.size(), changes_.size(), deferred_.size()}; }
  void rollbackTo(TransactionMark m);
  void rollbackAll() { rollbackTo({}); }
  // Back to before the transaction, without the afterRollback re-applies: a commit the
  // persistence sink refused must leave nothing of itself in memory.
  void abandon();
  // Back to `m` without the re-applies: a statement refused after its DDL succeeded (the
  // store's veto) leaves nothing of itself.
  void abandonTo(TransactionMark m);
  void clear();  // commit: forget the undo information, the change log and the deferred checks

  // The undo information of a committed transaction, kept while its write batch is not yet
  // stored (persistence.h, storesLater). takeUndo() is clear() that hands the undo over;
  // revert() replays a taken log newest first, like abandon(), between transactions.
  struct UndoEntry {
    KVStore* store = nullptr;  // null: a closure entry
    std::string key;
    std::optional<std::string> previous;
    std::function<void()> undo;
  };
  using UndoLog = std::vector<UndoEntry>;
  UndoLog takeUndo();
  void revert(UndoLog log);

  const std::vector<RowChange>& changes() const { return changes_; }
  // Commit: hands the change log to the watch/event delivery (clear() follows).
  std::vector<RowChange> takeChanges() { return std::move(changes_); }
  // Every KV write since the last clear(), oldest first (a key written twice comes twice): the
  // store module reads the committed values of these keys into the commit's write batch.
  template <typename Fn>
  void forEachWrite(Fn&& fn) const {
    for (const UndoEntry& e : undo_) {
      if (e.store) fn(static_cast<const KVStore*>(e.store), e.key);
    }
  }
  bool empty() const { return undo_.empty(); }
  // The value each key of `store` had before this transaction first wrote it (nullopt: absent
  // then): overlaid on the current rows it gives the pre-transaction snapshot `committed.<t>`
  // reads (sql-core.md §6, transition constraints).
  std::map<std::string, std::optional<std::string>> originals(const KVStore* store) const;
  // Every value the transaction overwrote or erased in `store`, oldest first: the images a
  // rollback (to a savepoint or of the whole transaction) can bring back.
  std::vector<std::string> overwritten(const KVStore* store) const;

 private:
  UndoLog undo_;
  std::vector<RowChange> changes_;
  std::vector<DeferredCheck> deferred_;
  std::vector<std::function<void()>> afterRollback_;
  bool reapply_ = true;  // false while abandon() runs
  std::vector<Row> spareRows_;  // emptied change-log rows, kept for spareRow()
};

}  // namespace optic
