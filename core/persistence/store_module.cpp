// StoreModule (store_module.h): commit batches and hydration.
#include "core/common/json.h"
#include "core/persistence/store_module.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "core/catalog/canonical_ddl.h"
#include "core/catalog/lens.h"
#include "core/catalog/store_layout.h"
#include "core/common/error.h"
#include "core/ddl/alter.h"
#include "core/ddl/ddl.h"
#include "core/ddl/lens_deploy.h"
#include "core/execution/context.h"
#include "core/parser/parser.h"
#include "core/storage/storable_text.h"

namespace optic {
namespace {

// What the store calls DDL text in its refusals (store.md §4.1).
constexpr std::string_view kSchemaText = "persisted schema text";

// The newline-joined statements of a table bundle (store.md §4): the table, then each
// standalone index (UNIQUE-constraint indexes are part of the table's own DDL), then the own tags
// of exposed constraint indexes.
std::string bundleFor(const TableSchema& t) {
  std::string out = tableDdl(t, DdlStyle::kStore) + ";";
  for (const IndexSchema& ix : t.indexes) {
    if (!ix.implicit) out += "\n" + indexDdl(t, ix, DdlStyle::kStore) + ";";
  }
  for (const IndexSchema& ix : t.indexes) {
    if (ix.implicit && !ix.exposedTags.empty()) out += "\n" + exposedIndexTagsDdl(t, ix) + ";";
  }
  return out;
}

}  // namespace

StoreModule::StoredTables StoreModule::describe(const Catalog& catalog) const {
  StoredTables out;
  std::set<std::string> names;
  auto claim = [&](const std::string& store, const TableSchema& t) {
    if (!names.insert(store).second) {
      fail("cannot store table '" + t.schemaName + "." + t.name + "': its store name '" + store +
           "' collides with another table's or index's store");
    }
  };
  for (const auto& [schemaName, schema] : catalog.schemas()) {
    for (const auto& [key, table] : schema.tables) {
      const TableSchema& t = table->schema();
      if (!isPersistedTable(t)) continue;
      StoredTable st;
      st.table = table;
      st.schema = table->schemaPtr();
      st.store = tableStoreName(t.schemaName, t.name);
      st.rows = &table->storedRows();
      st.catalogKey = tableCatalogKey(t.schemaName, t.name);
      auto prev = stored_.find(table.get());
      st.bundle = prev != stored_.end() && prev->second.schema == st.schema ? prev->second.bundle : bundleFor(t);
      if (prev != stored_.end()) st.loadedAt = prev->second.loadedAt;
      claim(st.store, t);
      for (size_t i = 0; i < t.indexes.size(); ++i) {
        table->storedIndex(i);  // created on demand: make sure it exists
        st.indexes.push_back(StoredIndex{indexStoreName(t.schemaName, t.name, t.indexes[i].name), table->indexStores()[i]});
        claim(st.indexes.back().store, t);
      }
      out.emplace(table.get(), std::move(st));
    }
  }
  return out;
}

bool StoreModule::commit(const Catalog& catalog, const Transaction& txn) {
  StoredTables next = describe(catalog);

  // Which of the sink's stores carry on unchanged (same table, name and KVStore): only the keys
  // the transaction wrote need writing there.
  std::unordered_map<const KVStore*, std::string> incremental;  // KVStore -> key prefix
  std::set<std::string> kept;
  for (const auto& [table, st] : next) {
    auto prev = stored_.find(table);
    if (prev == stored_.end()) continue;
    if (prev->second.store == st.store && prev->second.rows == st.rows) {
      incremental.emplace(st.rows, storePrefix(st.store));
      kept.insert(st.store);
    }
    for (const StoredIndex& ix : st.indexes) {
      for (const StoredIndex& old : prev->second.indexes) {
        if (old.store == ix.store && old.kv == ix.kv) {
          incremental.emplace(ix.kv.get(), storePrefix(ix.store));
          kept.insert(ix.store);
        }
      }
    }
  }

  // A table that is not loaded holds none of its rows in memory: writing its stores whole would
  // erase them in storage. Every DDL that re-creates stores loads the table first (store_load.h).
  for (const auto& [table, st] : next) {
    if (!st.table->loaded() && !kept.count(st.store)) {
      fail(ErrorCode::kInternal, "table '" + st.store + "' would be rewritten in storage before it was loaded");
    }
  }

  WriteBatch batch;
  // 1. Every store that does not carry on is erased as a range: the sink's old ones, and the
  // place of each new one (a leftover of an entry that failed to load must not mix in).
  std::set<std::string> erase;
  for (const StoredTables* tables : {&stored_, &next}) {
    for (const auto& [table, st] : *tables) {
      if (!kept.count(st.store)) erase.insert(st.store);
      for (const StoredIndex& ix : st.indexes) {
        if (!kept.count(ix.store)) erase.insert(ix.store);
      }
    }
  }
  for (const std::string& store : erase) batch.eraseRange(storePrefix(store), storePrefixEnd(store));
  // 2. Stores new to the sink: write them whole.
  for (const auto& [table, st] : next) {
    if (!kept.count(st.store)) copyStore(*st.rows, storePrefix(st.store), batch);
    for (const StoredIndex& ix : st.indexes) {
      if (!kept.count(ix.store)) copyStore(*ix.kv, storePrefix(ix.store), batch);
    }
  }
  // 3. Carried-on stores: the committed value of every key the transaction wrote.
  std::vector<std::pair<const KVStore*, std::string_view>> written;
  txn.forEachWrite([&](const KVStore* store, const std::string& key) {
    if (incremental.count(store)) written.emplace_back(store, key);
  });
  std::sort(written.begin(), written.end());
  written.erase(std::unique(written.begin(), written.end()), written.end());
  std::string key;
  for (const auto& [store, k] : written) {
    key = incremental[store];
    key.append(k);
    if (std::optional<std::string> v = store->get(k)) batch.put(key, *v);
    else batch.erase(key);
  }
  // 4. Catalog bundles.
  std::string catalogPrefix = storePrefix(kCatalogStoreName);
  std::map<std::string, const std::string*> bundles;
  for (const auto& [table, st] : next) bundles[st.catalogKey] = &st.bundle;
  for (const auto& [table, st] : stored_) {
    if (!bundles.count(st.catalogKey)) batch.erase(catalogPrefix + st.catalogKey);
  }
  std::map<std::string, const std::string*> oldBundles;
  for (const auto& [table, st] : stored_) oldBundles[st.catalogKey] = &st.bundle;
  for (const auto& [ck, bundle] : bundles) {
    auto old = oldBundles.find(ck);
    if (old != oldBundles.end() && *old->second == *bundle) continue;
    requireStorableText(kSchemaText, *bundle);
    batch.put(catalogPrefix + ck, *bundle);
  }
  // 5. View and materialized-view entries.
  std::map<std::string, std::string> nextEntries = describeEntries(catalog);
  for (const auto& [key, ddl] : entries_) {
    if (!nextEntries.count(key)) batch.erase(catalogPrefix + key);
  }
  for (const auto& [key, ddl] : nextEntries) {
    auto old = entries_.find(key);
    if (old != entries_.end() && old->second == ddl) continue;
    requireStorableText(kSchemaText, ddl);
    batch.put(catalogPrefix + key, ddl);
  }
  // 6. The clean-shutdown marker vouches for storage as a clean close left it: the first write
  // after opening takes it away.
  if (!batch.empty() && markerStored_) batch.erase(catalogPrefix + std::string(kCleanShutdownKey));

  bool wrote = !batch.empty();
  if (wrote) sink_->write(batch);
  stored_ = std::move(next);
  for (auto it = unrestored_.begin(); it != unrestored_.end();) {
    it = nextEntries.count(it->first) ? std::next(it) : unrestored_.erase(it);  // dropped, or its name reused
  }
  entries_ = std::move(nextEntries);
  if (wrote) markerStored_ = false;
  return wrote;
}

std::map<std::string, std::string> StoreModule::describeEntries(const Catalog& catalog) const {
  std::map<std::string, std::string> out;
  for (const auto& [schemaName, schema] : catalog.schemas()) {
    if (schemaName == "temp") continue;
    for (const auto& [key, view] : schema.views) {
      out[std::string(kViewCatalogPrefix) + tableCatalogKey(schemaName, view->name)] = viewStoreDdl(*view);
    }
    for (const auto& [key, table] : schema.tables) {
      const TableSchema& t = table->schema();
      if (t.derivation) out[std::string(kMaterializedViewCatalogPrefix) + tableCatalogKey(schemaName, t.name)] = maintainedTableStoreDdl(t);
    }
    if (schema.lens) {
      out[std::string(kLensCatalogPrefix) + schemaName] = lensStoreText(schema.lens->declarationSql, schema.lens->lensSql);
    }
    for (const auto& [name, why] : schema.unrestored) {
      std::string key = std::string(kMaterializedViewCatalogPrefix) + tableCatalogKey(schemaName, name);
      auto stored = unrestored_.find(key);
      if (stored != unrestored_.end() && !schema.tables.count(name) && !schema.views.count(name)) out[key] = stored->second;
    }
  }
  return out;
}

void StoreModule::requireStorable(const Catalog& catalog) const {
  for (const auto& [schemaName, schema] : catalog.schemas()) {
    for (const auto& [key, table] : schema.tables) {
      const TableSchema& t = table->schema();
      if (!isPersistedTable(t)) continue;
      auto prev = stored_.find(table.get());
      if (prev == stored_.end() || prev->second.schema != table->schemaPtr()) requireStorableText(kSchemaText, bundleFor(t));
    }
  }
  for (const auto& [key, ddl] : describeEntries(catalog)) {
    auto old = entries_.find(key);
    if (old == entries_.end() || old->second != ddl) requireStorableText(kSchemaText, ddl);
  }
}

void StoreModule::writeCleanShutdown(const Catalog& catalog) {
  Json stale = Json::array();
  for (const auto& [schemaName, schema] : catalog.schemas()) {
    for (const auto& [key, table] : schema.tables) {
      const TableSchema& t = table->schema();
      if (t.derivation && isPersistedTable(t) && (table->needsRefill() || remoteSinceOpen_)) {
        stale.push_back(schemaName + "." + key);
      }
    }
  }
  WriteBatch batch;
  batch.put(storePrefix(kCatalogStoreName) + std::string(kCleanShutdownKey), serializeJson(stale));
  sink_->write(batch);
  markerStored_ = true;
}

std::shared_ptr<Table> StoreModule::loadTable(Context& ctx, const std::string& bundle, const KVStore& contents,
                                              bool lazy) {
  Catalog& cat = ctx.catalog();
  std::string schema;
  std::string tableKey;  // set once this entry's table is in the catalog
  try {
    std::vector<ast::StatementPtr> stmts = parseSql(bundle);
    if (stmts.empty() || stmts[0]->kind != ast::StatementKind::kCreateTable) fail("not a table bundle");
    const ast::QualifiedName name = stmts[0]->createTable->name;
    schema = lowerName(name.schema.empty() ? "main" : name.schema);
    if (!cat.findSchema(schema)) cat.addSchema(schema);
    if (cat.findTable(schema, name.name)) fail("a table of that name was already loaded");
    for (ast::StatementPtr& s : stmts) {
      std::shared_ptr<const ast::Statement> shared(std::move(s));
      if (shared->kind == ast::StatementKind::kCreateTable) {
        executeCreateTable(ctx, shared);
        tableKey = lowerName(name.name);
      } else if (shared->kind == ast::StatementKind::kCreateIndex) {
        executeCreateIndex(ctx, shared);
      } else if (shared->kind == ast::StatementKind::kAlterObjectTags &&
                 shared->alterObjectTags->kind == ast::AlterObjectTags::Kind::kIndex) {
        executeAlterIndexTags(ctx, shared);
      } else {
        fail("unexpected statement in a table bundle");
      }
    }
    std::shared_ptr<Table> table = cat.findTable(schema, name.name);
    if (lazy) {
      table->setLoaded(false);  // after the bundle's CREATE INDEXes, which index the (empty) rows
      return table;
    }
    fillTable(*table, contents);
    return table;
  } catch (const Error&) {
    // Skipped, not half-loaded: a table without its rows must not take part in commits.
    if (!tableKey.empty()) cat.schema(schema).tables.erase(tableKey);
    throw;
  }
}

void StoreModule::fillTable(Table& table, const KVStore& contents) {
  const TableSchema& t = table.schema();
  forEachInStore(contents, tableStoreName(t.schemaName, t.name),
                 [&](std::string_view k, std::string_view v) { table.storedRows().put(k, v); });
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    KVStore& ix = table.storedIndex(i);
    forEachInStore(contents, indexStoreName(t.schemaName, t.name, t.indexes[i].name),
                   [&](std::string_view k, std::string_view v) { ix.put(k, v); });
  }
}

std::vector<std::pair<std::string, std::string>> StoreModule::loadRanges(const std::vector<std::string>& catalogKeys) const {
  std::set<std::string> wanted(catalogKeys.begin(), catalogKeys.end());
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const std::string& store) { out.emplace_back(storePrefix(store), storePrefixEnd(store)); };
  for (const auto& [table, st] : stored_) {
    if (st.table->loaded() || !wanted.count(st.catalogKey)) continue;
    add(st.store);
    for (const StoredIndex& ix : st.indexes) add(ix.store);
  }
  return out;
}

void StoreModule::loadTables(const std::vector<std::string>& catalogKeys, const KVStore& contents, uint64_t seq) {
  std::set<std::string> wanted(catalogKeys.begin(), catalogKeys.end());
  for (auto& [table, st] : stored_) {
    if (st.table->loaded() || !wanted.count(st.catalogKey)) continue;
    fillTable(*st.table, contents);
    st.table->setLoaded(true);
    st.loadedAt = seq;
  }
}

size_t StoreModule::notLoadedCount() const {
  return static_cast<size_t>(
      std::count_if(stored_.begin(), stored_.end(), [](const auto& e) { return !e.second.table->loaded(); }));
}

bool StoreModule::followsRemoteRows(const StoredTable& st, uint64_t seq) {
  return st.table->loaded() && (seq == 0 || seq > st.loadedAt);
}

}  // namespace optic
