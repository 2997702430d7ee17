// Store layout (store_layout.h).
#include "core/catalog/store_layout.h"

#include "core/catalog/catalog.h"
#include "core/common/collation.h"
#include "core/common/error.h"
#include "core/common/key_codec.h"

namespace optic {

std::string tableStoreName(std::string_view schema, std::string_view table) {
  return lowerName(schema) + "." + lowerName(table);
}

std::string indexStoreName(std::string_view schema, std::string_view table, std::string_view index) {
  return tableStoreName(schema, table) + "_idx_" + lowerName(index);
}

std::string storePrefix(std::string_view storeName) {
  std::string out(1, static_cast<char>(kKeyTagText));
  appendEscapedBytes(storeName, out);
  return out;
}

std::string storePrefixEnd(std::string_view storeName) {
  std::string out = storePrefix(storeName);
  out.back() = '\x01';  // the 00 terminator + 1: past every key with this exact prefix
  return out;
}

void copyStore(const KVStore& from, const std::string& prefix, WriteBatch& batch) {
  std::string key = prefix;
  auto it = from.newIterator();
  for (it->seekToFirst(); it->valid(); it->next()) {
    key.resize(prefix.size());
    key.append(it->key());
    batch.put(key, it->value());
  }
}

std::string tableCatalogKey(std::string_view schema, std::string_view table) { return tableStoreName(schema, table); }

bool isPersistedTable(const TableSchema& t) { return t.module == "store" && t.schemaName != "temp"; }

void applyStoreKeyCollation(TableSchema& t, const ast::CreateTable& ct) {
  if (t.module != "store") return;
  Collation keyDefault = Collation::kNoCase;
  for (const auto& [name, value] : ct.module.args) {
    if (lowerName(name) != "collation") continue;
    std::optional<Collation> c = value.isText() ? collationFromName(value.asText()) : std::nullopt;
    if (!c) fail("Unknown collation: " + (value.isText() ? value.asText() : std::string("?")));
    keyDefault = *c;
  }
  std::vector<bool> explicitCollate(t.primaryKey.size(), false);
  for (const ast::TableConstraint& tc : ct.constraints) {
    if (tc.kind != ast::TableConstraint::Kind::kPrimaryKey) continue;
    for (size_t i = 0; i < tc.columns.size() && i < explicitCollate.size(); ++i) {
      explicitCollate[i] = !tc.columns[i].collation.empty();
    }
  }
  for (size_t i = 0; i < t.primaryKey.size(); ++i) {
    KeyColumn& k = t.primaryKey[i];
    const ColumnSchema& c = t.columns[k.column];
    if (isTextLike(c.type) && !c.collationDeclared && !explicitCollate[i]) k.collation = keyDefault;
  }
}

}  // namespace optic
