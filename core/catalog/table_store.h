// TableStore: row-level reads and writes of one table on its KV stores.
//
// A row lives at key = encoded primary key in the table's row store; each index holds
// key = encoded index columns ‖ encoded primary key with an empty value. Every write records its
// undo in the transaction first and appends a RowChange to the change log, so rollback and all
// consumers of the log stay exact. No constraint checking happens here (that is the DML
// executor's job); this layer only keeps rows and index entries in step, and refuses text a
// store table cannot persist (storable_text.h) before writing anything.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/storage/transaction.h"

namespace optic {

// A row's key in its table's row store: the primary-key columns, each encoded by its type,
// collation and direction (key_codec.h), so memcmp order is key order.
std::string encodePrimaryKey(const TableSchema& t, const Row& row);
void appendPrimaryKey(const TableSchema& t, const Row& row, std::string& out);

class TableStore {
 public:
  TableStore(Table& table, Transaction& txn) : table_(table), txn_(txn) {}

  std::string primaryKey(const Row& row) const { return encodePrimaryKey(table_.schema(), row); }
  void primaryKey(const Row& row, std::string& out) const { appendPrimaryKey(table_.schema(), row, out); }  // appends
  // Without the PK suffix; a column keys by its type (encodeColumnKey), as the primary key does.
  static std::string indexKey(const TableSchema& table, const IndexSchema& index, const Row& row);
  std::optional<Row> get(const std::string& pk) const;
  // The row's stored bytes into `out` (capacity reused); false when there is no row at `pk`.
  bool getEncoded(const std::string& pk, std::string* out) const { return table_.rows().get(pk, out); }

  // `pk` is primaryKey(row), passed by a caller that has already encoded it.
  void insert(const Row& row, const std::string& pk);  // the key must be free
  void insert(const Row& row) { insert(row, primaryKey(row)); }
  void erase(const std::string& pk, const Row& oldRow);
  // Same or changed primary key; `oldPk` and `newPk` are the rows' primaryKey().
  void replace(const Row& oldRow, const std::string& oldPk, const Row& newRow, const std::string& newPk);
  // The same writes for a caller that has already read the row's stored bytes (`stored`) and
  // encoded the new row (`encoded`): the undo entry takes `stored` instead of a second lookup.
  // The rows move into the change log.
  void insertEncoded(const std::string& pk, Row row, std::string_view encoded);  // the key is free
  void replaceEncoded(const std::string& pk, std::string stored, Row oldRow, Row newRow,
                      std::string_view encoded);  // same primary key
  void eraseEncoded(const std::string& pk, std::string stored, Row oldRow);
  // Makes the row at `pk` `row` (nullopt: no row) in one lookup of the row store, whatever is
  // stored there; false (nothing logged) when the stored row is byte-identical. The row moves
  // into the change log.
  bool setRow(const std::string& pk, std::optional<Row> row);

  // The primary key of a row whose index entry starts with `prefix`, other than `exceptPk`
  // (null: any row) and the keys in `skip` (null: none).
  std::optional<std::string> findIndexConflict(size_t index, const std::string& prefix, const std::string* exceptPk,
                                               const std::set<std::string>* skip = nullptr) const;
  // Rebuilds index i from the rows (after CREATE INDEX).
  void buildIndex(size_t index);

 private:
  void putIndexEntries(const Row& row, const std::string& pk);
  void eraseIndexEntries(const Row& row, const std::string& pk);
  // An updated row's entries: each index whose key changed drops the old entry and takes the new.
  void moveIndexEntries(const Row& oldRow, const std::string& oldPk, const Row& newRow, const std::string& newPk);
  void write(KVStore& store, std::string key, std::optional<std::string> value);  // the undo entry takes `key`

  // A change-log copy of `row`, in one of the transaction's spare rows.
  Row image(const Row& row);

  Table& table_;
  Transaction& txn_;
};

// Every stored row of `table`, in primary-key order (ALTER and CREATE INDEX re-validation).
std::vector<Row> readRows(Table& table);

}  // namespace optic
