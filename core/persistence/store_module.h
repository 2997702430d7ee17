// StoreModule: the `store` table module of a persistent database: which tables persist, how
// their keys collate, what each commit writes to the PersistenceSink, and how opening rebuilds
// the catalog and the data from the durable contents.
//
// Which tables: module `store` tables outside the `temp` schema. `using memory` tables, temp
// tables and views stay in memory (the catalog's reserved \0 prefixes are left to views, MVs
// and meta entries).
//
// Views and materialized views (store.md §4): each has a reserved catalog entry holding its
// store DDL (canonical_ddl.h), compared at every commit like the bundles, so the DDL that
// creates, alters, renames, re-tags or drops one writes its entry in the same atomic batch.
// A store-hosted materialized view also has its table bundle and rows; a memory-hosted one only
// its entry. Opening restores them in phases (store_rehydrate.cpp).
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
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/catalog/store_layout.h"
#include "core/persistence/rehydration.h"
#include "core/storage/persistence.h"
#include "core/storage/transaction.h"

namespace optic {

class Context;

class StoreModule {
 public:
  explicit StoreModule(std::shared_ptr<PersistenceSink> sink) : sink_(std::move(sink)) {}

  // Rebuilds the catalog from `contents` in phases (store_rehydrate.cpp): store tables with
  // their indexes and rows, then views, then materialized views (adopted or marked for refill),
  // with no undo and no write batch. An entry that does not load is skipped and reported (store.md
  // §5: not fatal). `lazy`: `contents` may hold the catalog only; every table is registered not
  // loaded (store_load.h) and loadTables() fills it later.
  Rehydration hydrate(Context& ctx, const KVStore& contents, bool lazy = false);

  // As a DDL statement ends: throws (kConstraint "cannot store persisted schema text …") when a
  // table bundle, view or materialized-view entry the catalog now implies is text the store
  // cannot encode, so the statement rolls back as a clean no-op instead of failing its commit.
  void requireStorable(const Catalog& catalog) const;

  // Clean shutdown (store.md §4): the connection's last batch, the clean-shutdown marker naming
  // the maintained tables still awaiting refill. The next open trusts the other stored backings.
  void writeCleanShutdown(const Catalog& catalog);

  // ---- lazy loading (store_load.h) --------------------------------------------------------
  // The key ranges [begin, end) that hold the rows and index entries of the not-loaded tables
  // among `catalogKeys` ({schema}.{table}); loaded or unknown keys are left out.
  std::vector<std::pair<std::string, std::string>> loadRanges(const std::vector<std::string>& catalogKeys) const;
  // Fills the not-loaded tables among `catalogKeys` from `contents` (flat keys, as storage holds
  // them; at least those tables' ranges) and marks them loaded. `seq` is the commit sequence
  // number storage was at when `contents` was read: remote batches numbered up to it are in
  // `contents` already, and applyRemoteBatch() skips them for these tables. Loaded or unknown
  // keys are ignored (a table loaded twice keeps its first load).
  void loadTables(const std::vector<std::string>& catalogKeys, const KVStore& contents, uint64_t seq);
  size_t notLoadedCount() const;

  // Sends the transaction's effect on store tables to the sink as one batch. Throws when the
  // sink (or the store's own checks) refuse it; nothing is remembered as written then. Returns
  // whether a batch went to the sink (a transaction touching no store table sends none).
  bool commit(const Catalog& catalog, const Transaction& txn);
  bool storesLater() const { return sink_->storesLater(); }

  // A store table that applyRemoteBatch() replaced because its bundle changed.
  struct RemoteTableChange {
    enum class Kind : uint8_t { kCreated, kAltered, kDropped } kind = Kind::kCreated;
    std::string schema;
    std::string table;
    std::string ddl;  // the first statement of the new bundle ("" when dropped)
  };
  struct RemoteResult {
    std::vector<RemoteTableChange> tables;
    std::vector<std::string> errors;  // bundles that did not load, as hydrate() reports them
  };
  // Applies a batch another connection already stored (store_remote.cpp) to memory, writing
  // through engine.txn() (the caller commits it without sending it to the sink). Rows of tables
  // whose bundle and stores carry on go through TableStore::setRow, so indexes follow and the
  // change log gets one RowChange per changed row (maintained tables excepted: the engine derives
  // them from those changes, as after a local statement). A table whose catalog entry the batch touches,
  // or whose store it erases as a range (DDL in the other connection), is rebuilt from a flat
  // copy of its stores with the batch applied: reloaded as hydrate() loads it when its bundle
  // changed (no row changes, one RemoteTableChange), its rows re-synced through setRow when not.
  // Afterwards the module counts the batch as held by the sink.
  // Lazy loading: row changes of a table that is not loaded are skipped (storage has them; the
  // table's load reads them), and so are those of a batch numbered `seq` (the cross-tab commit
  // sequence; 0 = unknown) that the table's load already read. A not-loaded table whose catalog
  // entry changes is re-registered, still not loaded.
  RemoteResult applyRemoteBatch(Context& ctx, const WriteBatch& batch, uint64_t seq = 0);

  // ---- falling behind (store_remote.cpp) ---------------------------------------------------
  // A connection that missed commits no remote batch can give it any more (the commit log
  // dropped them) re-reads what it holds instead: the catalog, and the rows of every loaded
  // table that is not maintained (maintained tables follow their sources). The ranges to read:
  std::vector<std::pair<std::string, std::string>> resyncRanges() const;
  // Makes memory what storage held at commit `seq`, `contents` holding the entries of `ranges`
  // (what resyncRanges() answered; a table loaded since is left as it is) read then. Applied as a remote batch holding where storage differs from
  // memory (catalog entries changed or gone, each loaded table's rows store rewritten whole): rows
  // change through setRow (logged; indexes and maintained tables follow, watches hear them) and a
  // table created or altered meanwhile is registered not loaded, so its next use reads it.
  RemoteResult resync(Context& ctx, const std::vector<std::pair<std::string, std::string>>& ranges,
                      const KVStore& contents, uint64_t seq);

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
    uint64_t loadedAt = 0;  // the commit sequence number its lazy load read storage at
  };
  using StoredTables = std::map<const Table*, StoredTable>;

  StoredTables describe(const Catalog& catalog) const;
  // The view and materialized-view entries (reserved catalog keys → DDL) the catalog implies,
  // with the entries of materialized views that could not be restored carried over.
  std::map<std::string, std::string> describeEntries(const Catalog& catalog) const;
  // Rehydrate phases 2 and 3 (store_rehydrate.cpp).
  void restoreViews(Context& ctx, const std::map<std::string, std::string>& entries, Rehydration& out);
  void restoreLenses(Context& ctx, const std::map<std::string, std::string>& entries, Rehydration& out);
  // `trusted`: the stored backings may be adopted (each still needs its own gates).
  void restoreMaterializedViews(Context& ctx, const std::map<std::string, std::string>& entries,
                                const std::set<std::string>& staleAtClose, bool trusted, Rehydration& out);
  // applyRemoteBatch's view and materialized-view entries (catalog key → DDL, nullopt when the
  // batch erases it): the objects are dropped and restored as opening restores them, after the
  // tables (store_rehydrate.cpp). A materialized view adopts the backing the other connection
  // maintained in the same commit.
  void restoreRemoteEntries(Context& ctx, const std::map<std::string, std::optional<std::string>>& entries,
                            RemoteResult& out);
  // Adds the table of one catalog entry (`bundle`) with its rows and index entries from
  // `contents`; throws Error when it does not load (nothing of it stays in the catalog).
  // `lazy`: registered not loaded, `contents` not read.
  static std::shared_ptr<Table> loadTable(Context& ctx, const std::string& bundle, const KVStore& contents,
                                          bool lazy = false);
  // Puts the rows and index entries of `table` found in the flat `contents` into its stores.
  static void fillTable(Table& table, const KVStore& contents);
  // Whether applyRemoteBatch() applies batch `seq`'s row changes to `st`'s table.
  static bool followsRemoteRows(const StoredTable& st, uint64_t seq);
  // applyRemoteBatch's rare path: the tables of `touched` catalog keys rebuilt from `stored`
  // (store_remote.cpp).
  // `lazy`: every table loaded anew is registered not loaded (a resync: `stored` holds no rows of
  // tables this connection had not loaded).
  void rebuildTables(Context& ctx, const std::set<std::string>& touched, const KVStore& stored, uint64_t seq,
                     bool lazy, RemoteResult& out);
  RemoteResult applyRemote(Context& ctx, const WriteBatch& batch, uint64_t seq, bool lazy);

  std::shared_ptr<PersistenceSink> sink_;
  StoredTables stored_;
  std::map<std::string, std::string> entries_;     // the view and MV entries the sink holds
  std::map<std::string, std::string> unrestored_;  // MV entries that did not restore: kept as stored
  // The clean-shutdown marker is in storage: our next batch erases it (set at open, and when
  // another connection's close stores it).
  bool markerStored_ = false;
  // Another connection's batch was applied since opening: other writers stored rows whose
  // materialized-view effects this connection derived only in memory, so its close lists every
  // stored materialized view as awaiting a refill instead of vouching for its rows.
  bool remoteSinceOpen_ = false;
  bool trusted_ = false;       // it was there when opening: stored backings are current
};

}  // namespace optic
