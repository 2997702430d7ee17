// StoreModule::applyRemoteBatch (store_module.h): a batch another connection stored, applied to
// memory.
//
// Two paths. The common one (DML in the other connection): every put or erase under a rows
// store that carries on becomes TableStore::setRow on this connection's table, which keeps the
// table's indexes in step and logs the RowChange; index-store operations are skipped (setRow
// writes the same entries). The rare one (DDL there, or a store it rewrote whole): the tables
// involved are rebuilt from a flat copy of their stores and bundles with the batch applied on
// top, so its cost is the size of those tables, paid only for such batches.
#include <algorithm>
#include <map>

#include "core/catalog/store_layout.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/persistence/store_module.h"
#include "core/storage/row_codec.h"

namespace optic {
namespace {

struct Op {
  enum class Tag : uint8_t { kPut, kErase, kEraseRange } tag;
  std::string key;
  std::string value;  // a put's value; an eraseRange's end
};

std::vector<Op> opsOf(const WriteBatch& batch) {
  struct Collect final : WriteBatch::Handler {
    std::vector<Op> ops;
    void put(std::string_view k, std::string_view v) override { ops.push_back({Op::Tag::kPut, std::string(k), std::string(v)}); }
    void erase(std::string_view k) override { ops.push_back({Op::Tag::kErase, std::string(k), {}}); }
    void eraseRange(std::string_view b, std::string_view e) override {
      ops.push_back({Op::Tag::kEraseRange, std::string(b), std::string(e)});
    }
  } c;
  batch.iterate(c);
  return std::move(c.ops);
}

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Makes `table`'s rows exactly those of its store in `stored` through setRow (logged changes).
void resyncRows(Table& table, const std::string& store, const KVStore& stored, Transaction& txn) {
  TableStore rows(table, txn);
  std::set<std::string> present;
  forEachInStore(stored, store, [&](std::string_view pk, std::string_view value) {
    present.emplace(pk);
    if (table.rows().get(pk) != value) rows.setRow(std::string(pk), decodeRow(value));
  });
  std::vector<std::string> gone;
  auto it = table.rows().newIterator();
  for (it->seekToFirst(); it->valid(); it->next()) {
    if (!present.count(std::string(it->key()))) gone.emplace_back(it->key());
  }
  for (const std::string& pk : gone) rows.setRow(pk, std::nullopt);
}

// Restores the settings it was made with when it goes.
class SettingsScope {
 public:
  explicit SettingsScope(Settings& s) : settings_(s), saved_(s) {}
  ~SettingsScope() { settings_ = saved_; }
  SettingsScope(const SettingsScope&) = delete;
  SettingsScope& operator=(const SettingsScope&) = delete;

 private:
  Settings& settings_;
  Settings saved_;
};

}  // namespace

StoreModule::RemoteResult StoreModule::applyRemoteBatch(Context& ctx, const WriteBatch& batch, uint64_t seq) {
  return applyRemote(ctx, batch, seq, false);
}

std::vector<std::pair<std::string, std::string>> StoreModule::resyncRanges() const {
  std::vector<std::pair<std::string, std::string>> out{{storePrefix(kCatalogStoreName), storePrefixEnd(kCatalogStoreName)}};
  for (const auto& [t, st] : stored_) {
    if (st.table->loaded() && !st.table->schema().derivation) out.emplace_back(storePrefix(st.store), storePrefixEnd(st.store));
  }
  return out;
}

StoreModule::RemoteResult StoreModule::resync(Context& ctx, const std::vector<std::pair<std::string, std::string>>& ranges,
                                              const KVStore& contents, uint64_t seq) {
  std::set<std::string> read;  // the stores whose entries `contents` holds
  for (const auto& range : ranges) read.insert(range.first);
  const std::string catalogPrefix = storePrefix(kCatalogStoreName);
  // The catalog as this connection knows it, against storage's.
  std::map<std::string, std::string> known(entries_.begin(), entries_.end());
  known.insert(unrestored_.begin(), unrestored_.end());
  for (const auto& [t, st] : stored_) known[st.catalogKey] = st.bundle;
  if (markerStored_) known[std::string(kCleanShutdownKey)] = "";  // its value is no matter here
  WriteBatch batch;
  std::set<std::string> present;
  forEachInStore(contents, kCatalogStoreName, [&](std::string_view key, std::string_view value) {
    std::string ck(key);
    auto was = known.find(ck);
    if (was == known.end() || was->second != value || ck == kCleanShutdownKey) batch.put(catalogPrefix + ck, value);
    present.insert(std::move(ck));
  });
  for (const auto& [ck, value] : known) {
    if (!present.count(ck)) batch.erase(catalogPrefix + ck);
  }
  // Every loaded table's rows as stored: its store erased and written whole.
  for (const auto& [t, st] : stored_) {
    if (!st.table->loaded() || st.table->schema().derivation || !read.count(storePrefix(st.store))) continue;
    const std::string prefix = storePrefix(st.store);
    batch.eraseRange(prefix, storePrefixEnd(st.store));
    forEachInStore(contents, st.store, [&](std::string_view pk, std::string_view value) {
      batch.put(prefix + std::string(pk), value);
    });
  }
  return applyRemote(ctx, batch, seq, true);
}

StoreModule::RemoteResult StoreModule::applyRemote(Context& ctx, const WriteBatch& batch, uint64_t seq, bool lazy) {
  const std::vector<Op> ops = opsOf(batch);
  const std::string catalogPrefix = storePrefix(kCatalogStoreName);
  struct Owner {
    StoredTable* table;
    bool rows;  // the rows store (else an index store)
  };
  std::map<std::string, Owner> owners;  // store prefix -> its table
  for (auto& [t, st] : stored_) {
    owners[storePrefix(st.store)] = Owner{&st, true};
    for (const StoredIndex& ix : st.indexes) owners[storePrefix(ix.store)] = Owner{&st, false};
  }
  auto ownerOf = [&](const std::string& key) -> const std::pair<const std::string, Owner>* {
    auto it = owners.upper_bound(key);
    if (it == owners.begin()) return nullptr;
    --it;
    return startsWith(key, it->first) ? &*it : nullptr;
  };

  // The clean-shutdown marker another connection stored (its close) or erased: ours to erase
  // with our next batch when it is there. And rows this connection now holds in memory came
  // from a writer whose maintenance it did not watch: its own close no longer vouches for them.
  const std::string markerKey = catalogPrefix + std::string(kCleanShutdownKey);
  for (const Op& op : ops) {
    if (op.key == markerKey) markerStored_ = op.tag == Op::Tag::kPut;
  }
  remoteSinceOpen_ = true;

  // Catalog keys whose table the batch re-declares, drops or rewrites whole.
  std::set<std::string> touched;
  for (const Op& op : ops) {
    if (op.tag != Op::Tag::kEraseRange && startsWith(op.key, catalogPrefix)) {
      std::string ck = op.key.substr(catalogPrefix.size());
      if (!isReservedCatalogKey(ck)) touched.insert(std::move(ck));
    } else if (op.tag == Op::Tag::kEraseRange) {
      if (const auto* o = ownerOf(op.key)) touched.insert(o->second.table->catalogKey);
    }
  }

  for (const Op& op : ops) {
    if (op.tag == Op::Tag::kEraseRange) continue;
    const auto* o = ownerOf(op.key);
    if (!o || !o->second.rows || touched.count(o->second.table->catalogKey)) continue;
    // Not loaded, or loaded from a read that had this batch already: storage is the truth.
    if (!followsRemoteRows(*o->second.table, seq)) continue;
    // A maintained table's rows are derived here from its sources' changes (Engine::applyRemoteBatch).
    if (o->second.table->table->schema().derivation) continue;
    TableStore rows(*o->second.table->table, ctx.txn());
    std::string pk = op.key.substr(o->first.size());
    rows.setRow(pk, op.tag == Op::Tag::kPut ? std::optional<Row>(decodeRow(op.value)) : std::nullopt);
  }

  // View, materialized-view and lens entries the batch writes or erases (DDL there).
  std::map<std::string, std::optional<std::string>> entries;
  for (const Op& op : ops) {
    if (op.tag == Op::Tag::kEraseRange || !startsWith(op.key, catalogPrefix)) continue;
    std::string ck = op.key.substr(catalogPrefix.size());
    if (!ck.starts_with(kViewCatalogPrefix) && !ck.starts_with(kMaterializedViewCatalogPrefix) &&
        !ck.starts_with(kLensCatalogPrefix)) {
      continue;
    }
    entries[ck] = op.tag == Op::Tag::kPut ? std::optional<std::string>(op.value) : std::nullopt;
  }

  // A materialized view's backing rebuilt below comes back as a plain table: its entry, stored
  // unchanged, declares it again.
  for (const std::string& ck : touched) {
    std::string key = std::string(kMaterializedViewCatalogPrefix) + ck;
    auto known = entries_.find(key);
    if (known != entries_.end() && !entries.count(key)) entries[key] = known->second;
  }

  RemoteResult out;
  if (touched.empty()) {  // same tables, same stores, same bundles: stored_ holds
    if (entries.empty()) return out;
    restoreRemoteEntries(ctx, entries, out);
    stored_ = describe(ctx.catalog());
    return out;
  }
  // What storage held for those tables as this connection knows it, with the batch on top.
  WriteBatch known;
  for (const auto& [t, st] : stored_) {
    if (!touched.count(st.catalogKey)) continue;
    known.put(catalogPrefix + st.catalogKey, st.bundle);
    copyStore(*st.rows, storePrefix(st.store), known);
    for (const StoredIndex& ix : st.indexes) copyStore(*ix.kv, storePrefix(ix.store), known);
  }
  std::unique_ptr<KVStore> stored = newMemoryKVStore();
  applyBatch(known, *stored);
  applyBatch(batch, *stored);
  rebuildTables(ctx, touched, *stored, seq, lazy, out);
  if (!entries.empty()) restoreRemoteEntries(ctx, entries, out);
  stored_ = describe(ctx.catalog());
  return out;
}

void StoreModule::rebuildTables(Context& ctx, const std::set<std::string>& touched, const KVStore& stored,
                                uint64_t seq, bool lazy, RemoteResult& out) {
  const std::string catalogPrefix = storePrefix(kCatalogStoreName);
  Catalog& cat = ctx.catalog();
  std::map<std::string, const StoredTable*> byKey;
  for (const auto& [t, st] : stored_) byKey[st.catalogKey] = &st;
  std::vector<std::pair<std::string, bool>> toLoad;  // catalog key, lazily (it was not loaded)
  // Removals first: a table renamed there frees its old name before another takes it.
  for (const std::string& ck : touched) {
    std::optional<std::string> bundle = stored.get(catalogPrefix + ck);
    auto old = byKey.find(ck);
    if (old == byKey.end()) {
      if (bundle) toLoad.emplace_back(ck, lazy);  // a new store is in the batch whole (unless lazy)
      continue;
    }
    std::shared_ptr<Table> table = old->second->table;
    const TableSchema& t = table->schema();
    if (bundle && *bundle == old->second->bundle) {
      if (followsRemoteRows(*old->second, seq)) resyncRows(*table, old->second->store, stored, ctx.txn());
      continue;
    }
    std::string schema = lowerName(t.schemaName);
    std::string name = lowerName(t.name);
    cat.schema(schema).tables.erase(name);
    ctx.txn().recordUndo([&cat, schema, name, table] { cat.schema(schema).tables[name] = table; });
    out.tables.push_back({bundle ? RemoteTableChange::Kind::kAltered : RemoteTableChange::Kind::kDropped, t.schemaName,
                          t.name, ""});
    if (bundle) toLoad.emplace_back(ck, lazy || !table->loaded());
  }
  SettingsScope settings(ctx.settings());
  ctx.settings().nondeterministicSchema = true;  // the schema was accepted where it was created
  for (const auto& [key, lazy] : toLoad) {
    const std::string& ck = key;  // a lambda below captures it (clang refuses a structured binding)
    std::string bundle = *stored.get(catalogPrefix + ck);
    try {
      std::shared_ptr<Table> table = loadTable(ctx, bundle, stored, lazy);
      std::string ddl = bundle.substr(0, bundle.find('\n'));
      auto altered = std::find_if(out.tables.begin(), out.tables.end(), [&](const RemoteTableChange& c) {
        return c.kind == RemoteTableChange::Kind::kAltered && tableCatalogKey(c.schema, c.table) == ck;
      });
      if (altered != out.tables.end()) altered->ddl = ddl;
      else out.tables.push_back({RemoteTableChange::Kind::kCreated, table->schema().schemaName, table->schema().name, ddl});
    } catch (const Error& e) {
      out.errors.push_back(ck + ": " + e.what());
    }
  }
}

}  // namespace optic
