// Store layout (store_layout.h).
#include "core/storage/store_layout.h"

#include "core/catalog/catalog.h"
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

}  // namespace optic
