// StoreModule: the `store` table module of a persistent database: which tables persist, how
// their keys collate, what each commit writes to the PersistenceSink, and how opening rebuilds
// the catalog and the data from the durable contents.
//
// Which tables: module `store` tables outside the `temp` schema. `using memory` tables, temp
// tables and views stay in memory (the catalog's reserved \0 prefixes are left to views, MVs
// and meta entries).
//
// Commit: the engine's stores are the truth; the module remembers which store table, store and
// catalog bundle the sink holds (`stored_`, keyed by table identity). A commit compares the
// catalog with that memory: a store still held under the same name and by the same in-memory
// KVStore gets the current values of the keys the transaction wrote; a store that is new to the
// sink (created, renamed, rebuilt by ALTER or CREATE INDEX) is written whole; a store the sink
// holds but the catalog no longer has under that name is erased as a range; changed bundles are
// rewritten. Range erases come first in the batch, so a same-named store re-created in the same
// transaction ends up exactly as in memory. Only after the sink accepted the batch does the
// module adopt the new memory, so a failed commit can be retried from the same starting point.
//
// Keys (store.md §3): a text primary-key column without COLLATE is keyed NOCASE in a store table
// (the table option `using store(collation = '…')` changes the default); an explicit COLLATE on
// the column or in the PRIMARY KEY list wins. Text bound for the store (row values, DDL) must
// be encodable (storable_text.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/storage/persistence.h"
#include "core/storage/transaction.h"

namespace optic {

class Engine;

bool isPersistedTable(const TableSchema& t);

// Sets the NOCASE default on the text key columns of a new store table (no-op for others).
void applyStoreKeyCollation(TableSchema& t, const ast::CreateTable& ct);

class StoreModule {
 public:
  explicit StoreModule(std::shared_ptr<PersistenceSink> sink) : sink_(std::move(sink)) {}

  // Rebuilds the store tables, their indexes and rows from `contents` (no undo, no write
  // batch). A catalog entry that does not load is skipped; the returned list says which and why
  // (store.md §5: logged, not fatal).
  std::vector<std::string> hydrate(Engine& engine, const KVStore& contents);

  // Sends the transaction's effect on store tables to the sink as one batch. Throws when the
  // sink (or the store's own checks) refuse it; nothing is remembered as written then. Returns
  // whether a batch went to the sink (a transaction touching no store table sends none).
  bool commit(const Catalog& catalog, const Transaction& txn);
  bool storesLater() const { return sink_->storesLater(); }

 private:
  struct StoredIndex {
    std::string store;
    std::shared_ptr<KVStore> kv;
  };
  struct StoredTable {
    std::shared_ptr<Table> table;                // keeps the identity (and address) unique
    std::shared_ptr<const TableSchema> schema;   // the bundle below was printed from it
    std::string store;                           // rows store name
    const KVStore* rows = nullptr;
    std::string catalogKey;
    std::string bundle;
    std::vector<StoredIndex> indexes;
  };
  using StoredTables = std::map<const Table*, StoredTable>;

  StoredTables describe(const Catalog& catalog) const;

  std::shared_ptr<PersistenceSink> sink_;
  StoredTables stored_;
};

}  // namespace optic
