#include "core/catalog/table_store.h"

#include <algorithm>
#include <cstring>

#include "core/catalog/store_layout.h"
#include "core/common/bigint.h"
#include "core/common/key_codec.h"
#include "core/storage/row_codec.h"
#include "core/storage/storable_text.h"

namespace optic {

void appendPrimaryKey(const TableSchema& t, const Row& row, std::string& out) {
  for (const KeyColumn& k : t.primaryKey) encodeColumnKey(row[k.column], t.columns[k.column].type, k.collation, k.desc, out);
}

std::string encodePrimaryKey(const TableSchema& t, const Row& row) {
  std::string key;
  appendPrimaryKey(t, row, key);
  return key;
}

std::string TableStore::indexKey(const TableSchema& table, const IndexSchema& index, const Row& row) {
  std::string key;
  for (const KeyColumn& k : index.columns) encodeColumnKey(row[k.column], table.columns[k.column].type, k.collation, k.desc, key);
  return key;
}

Row TableStore::image(const Row& row) {
  Row copy = txn_.spareRow();
  copy.assign(row.begin(), row.end());
  return copy;
}

std::optional<Row> TableStore::get(const std::string& pk) const {
  std::optional<std::string> v = table_.rows().get(pk);
  if (!v) return std::nullopt;
  return decodeRow(*v);
}

void TableStore::write(KVStore& store, std::string key, std::optional<std::string> value) {
  // One descent: the previous value comes back from the write itself.
  std::optional<std::string> previous =
      value ? store.exchange(key, std::string_view(*value)) : store.exchange(key, std::nullopt);
  txn_.recordWrite(&store, std::move(key), std::move(previous));
}

void TableStore::putIndexEntries(const Row& row, const std::string& pk) {
  const auto& indexes = table_.schema().indexes;
  for (size_t i = 0; i < indexes.size(); ++i) write(table_.indexStore(i), indexKey(table_.schema(), indexes[i], row) + pk, std::string());
}

void TableStore::eraseIndexEntries(const Row& row, const std::string& pk) {
  const auto& indexes = table_.schema().indexes;
  for (size_t i = 0; i < indexes.size(); ++i) write(table_.indexStore(i), indexKey(table_.schema(), indexes[i], row) + pk, std::nullopt);
}

namespace {

// True when `a` and `b` are the same value of the same kind (a real bit for bit), so every key
// encoding makes the same bytes of them. False says nothing: 1 and 1.0 may still key alike.
bool sameKeyValue(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNull: return true;
    case ValueKind::kInteger: return a.asInt() == b.asInt();
    case ValueKind::kBigInt: return a.asBigInt() == b.asBigInt();
    case ValueKind::kReal: {
      double x = a.asReal(), y = b.asReal();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case ValueKind::kText: return a.asText() == b.asText();
    case ValueKind::kBlob: return a.asBlob() == b.asBlob();
    case ValueKind::kBoolean: return a.asBool() == b.asBool();
    case ValueKind::kJson: return a.jsonPtr() == b.jsonPtr();
  }
  return false;
}

}  // namespace

void TableStore::moveIndexEntries(const Row& oldRow, const std::string& oldPk, const Row& newRow,
                                  const std::string& newPk) {
  const TableSchema& t = table_.schema();
  bool samePk = oldPk == newPk;
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    const std::vector<KeyColumn>& cols = t.indexes[i].columns;
    // Most updates leave an index's columns alone: then its entry stays, with no key to encode.
    bool unchanged = samePk && std::all_of(cols.begin(), cols.end(), [&](const KeyColumn& k) {
                       return sameKeyValue(oldRow[k.column], newRow[k.column]);
                     });
    if (unchanged) continue;
    std::string from = indexKey(t, t.indexes[i], oldRow) + oldPk;
    std::string to = indexKey(t, t.indexes[i], newRow) + newPk;
    if (from == to) continue;  // the entry stays: an update of columns this index does not hold
    write(table_.indexStore(i), std::move(from), std::nullopt);
    write(table_.indexStore(i), std::move(to), std::string());
  }
}

void TableStore::insert(const Row& row, const std::string& pk) {
  if (isPersistedTable(table_.schema())) requireStorableRow(row);
  write(table_.rows(), pk, encodeRow(row));
  putIndexEntries(row, pk);
  txn_.recordChange(RowChange{table_.schema().schemaName, table_.schema().name, std::nullopt, image(row)});
}

void TableStore::erase(const std::string& pk, const Row& oldRow) {
  write(table_.rows(), pk, std::nullopt);
  eraseIndexEntries(oldRow, pk);
  txn_.recordChange(RowChange{table_.schema().schemaName, table_.schema().name, image(oldRow), std::nullopt});
}

void TableStore::replace(const Row& oldRow, const std::string& oldPk, const Row& newRow, const std::string& newPk) {
  if (isPersistedTable(table_.schema())) requireStorableRow(newRow);
  if (oldPk != newPk) write(table_.rows(), oldPk, std::nullopt);
  write(table_.rows(), newPk, encodeRow(newRow));
  moveIndexEntries(oldRow, oldPk, newRow, newPk);
  txn_.recordChange(RowChange{table_.schema().schemaName, table_.schema().name, image(oldRow), image(newRow)});
}

void TableStore::insertEncoded(const std::string& pk, Row row, std::string_view encoded) {
  if (isPersistedTable(table_.schema())) requireStorableRow(row);
  txn_.recordWrite(&table_.rows(), pk, std::nullopt);
  table_.rows().put(pk, encoded);
  putIndexEntries(row, pk);
  txn_.recordChange(RowChange{table_.schema().schemaName, table_.schema().name, std::nullopt, std::move(row)});
}

void TableStore::replaceEncoded(const std::string& pk, std::string stored, Row oldRow, Row newRow,
                                std::string_view encoded) {
  if (isPersistedTable(table_.schema())) requireStorableRow(newRow);
  txn_.recordWrite(&table_.rows(), pk, std::move(stored));
  table_.rows().put(pk, encoded);
  moveIndexEntries(oldRow, pk, newRow, pk);
  txn_.recordChange(RowChange{table_.schema().schemaName, table_.schema().name, std::move(oldRow), std::move(newRow)});
}

void TableStore::eraseEncoded(const std::string& pk, std::string stored, Row oldRow) {
  txn_.recordWrite(&table_.rows(), pk, std::move(stored));
  table_.rows().erase(pk);
  eraseIndexEntries(oldRow, pk);
  txn_.recordChange(RowChange{table_.schema().schemaName, table_.schema().name, std::move(oldRow), std::nullopt});
}

bool TableStore::setRow(const std::string& pk, std::optional<Row> row) {
  std::optional<std::string> encoded;
  if (row) {
    if (isPersistedTable(table_.schema())) requireStorableRow(*row);
    encoded = encodeRow(*row);
  }
  std::optional<std::string> previous =
      table_.rows().exchange(pk, encoded ? std::optional<std::string_view>(*encoded) : std::nullopt);
  if (previous == encoded) return false;  // identical bytes were rewritten in place, or no row either way
  std::optional<Row> oldRow;
  if (previous) {
    oldRow = txn_.spareRow();
    decodeRow(*previous, *oldRow);
  }
  txn_.recordWrite(&table_.rows(), pk, std::move(previous));
  if (oldRow && row) moveIndexEntries(*oldRow, pk, *row, pk);
  else if (oldRow) eraseIndexEntries(*oldRow, pk);
  else if (row) putIndexEntries(*row, pk);
  txn_.recordChange(RowChange{table_.schema().schemaName, table_.schema().name, std::move(oldRow), std::move(row)});
  return true;
}

std::optional<std::string> TableStore::findIndexConflict(size_t index, const std::string& prefix,
                                                         const std::string* exceptPk,
                                                         const std::set<std::string>* skip) const {
  auto it = table_.indexStore(index).newIterator();
  for (it->seek(prefix); it->valid(); it->next()) {
    std::string_view key = it->key();
    if (key.substr(0, prefix.size()) != prefix) break;
    std::string pk(key.substr(prefix.size()));
    if ((!exceptPk || pk != *exceptPk) && (!skip || !skip->count(pk))) return pk;
  }
  return std::nullopt;
}

void TableStore::buildIndex(size_t index) {
  const IndexSchema& ix = table_.schema().indexes[index];
  KVStore& store = table_.indexStore(index);
  auto it = table_.rows().newIterator();
  Row row;
  for (it->seekToFirst(); it->valid(); it->next()) {
    decodeRow(it->value(), row);
    write(store, indexKey(table_.schema(), ix, row) + std::string(it->key()), std::string());
  }
}

std::vector<Row> readRows(Table& table) {
  std::vector<Row> rows;
  auto it = table.rows().newIterator();
  for (it->seekToFirst(); it->valid(); it->next()) rows.push_back(decodeRow(it->value()));
  return rows;
}

}  // namespace optic
