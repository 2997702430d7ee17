// Store layout: where store tables, their indexes and the catalog live in the persistent key
// space (store.md §2, §4).
//
// A persistent database is one flat, memcmp-ordered key space. Each logical store of store.md
// §2 (`{schema}.{table}`, `{schema}.{table}_idx_{index}`, `__catalog__`, all lower-cased) owns
// the keys that start with storePrefix(name): the name as one key-codec text component, whose
// 00 terminator keeps "main.t" from being a prefix of "main.t2" and makes a store's keys one
// contiguous range [storePrefix, storePrefixEnd). Inside a store, keys are the engine's own:
// encoded primary key (rows), encoded index columns ‖ primary key (index entries), UTF-8 names
// (catalog). A backend with one object store (IndexedDB `kv`) keeps the order as is.
//
// Catalog keys: `{schema}.{table}` holds the table bundle (canonical DDL of the table and its
// indexes); keys starting with 0x00 are reserved (`\0view\0…`, `\0mview\0…`, `\0meta\0…`) and
// never collide with a table.
#pragma once

#include <string>
#include <string_view>

#include "core/catalog/catalog.h"
#include "core/parser/ast.h"
#include "core/storage/kv_store.h"
#include "core/storage/write_batch.h"

namespace optic {

inline constexpr std::string_view kCatalogStoreName = "__catalog__";

std::string tableStoreName(std::string_view schema, std::string_view table);
std::string indexStoreName(std::string_view schema, std::string_view table, std::string_view index);

std::string storePrefix(std::string_view storeName);
std::string storePrefixEnd(std::string_view storeName);  // exclusive upper bound of the store's keys

// The catalog key of a table bundle, and the reserved prefixes later kinds use.
std::string tableCatalogKey(std::string_view schema, std::string_view table);
inline constexpr std::string_view kViewCatalogPrefix{"\0view\0", 6};
inline constexpr std::string_view kMaterializedViewCatalogPrefix{"\0mview\0", 7};
inline constexpr std::string_view kMetaCatalogPrefix{"\0meta\0", 6};
// A logical schema's deployed lens: `\0lens\0<schema>` → its DECLARE LOGICAL SCHEMA and DECLARE LENS.
inline constexpr std::string_view kLensCatalogPrefix{"\0lens\0", 6};
// The clean-shutdown marker (store.md §4): a JSON array of the `schema.mv` names stale at close.
inline constexpr std::string_view kCleanShutdownKey{"\0meta\0clean_shutdown", 20};
inline bool isReservedCatalogKey(std::string_view key) { return !key.empty() && key[0] == '\0'; }

// Adds a put of every entry of `from` to `batch`, each key behind `prefix` (a storePrefix).
void copyStore(const KVStore& from, const std::string& prefix, WriteBatch& batch);

// Calls fn(key, value) for every entry of store `name` in the flat `contents`, the store prefix
// removed from the key.
template <typename Fn>
void forEachInStore(const KVStore& contents, std::string_view name, Fn&& fn) {
  std::string begin = storePrefix(name);
  std::string end = storePrefixEnd(name);
  auto it = contents.newIterator();
  for (it->seek(begin); it->valid() && it->key() < end; it->next()) fn(it->key().substr(begin.size()), it->value());
}

// Whether a table lives in the persistent store: module `store` tables outside the `temp` schema.
bool isPersistedTable(const TableSchema& t);

// Sets the NOCASE default on the text key columns of a new store table (no-op for others); an
// explicit COLLATE on the column or in the PRIMARY KEY list, or `using store(collation = '…')`, wins.
void applyStoreKeyCollation(TableSchema& t, const ast::CreateTable& ct);

}  // namespace optic
