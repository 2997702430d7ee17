// Change events: what a commit tells the application (api-and-watch.md §6, §7), built from the
// transaction's change log and the schema changes its DDL noted.
//
// Data-change events are derived at delivery, in write order, from the one change log; rows are
// positional in the table's current schema. An update that moves the primary key becomes a
// delete of the old key then an insert of the new one. Schema changes are noted by the DDL
// statement that made them (Engine::noteSchemaChange) and undone with it, so a rolled-back or
// failed DDL announces nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/json.h"
#include "core/common/value.h"
#include "core/storage/transaction.h"

namespace optic {

class Catalog;

struct DataChangeEvent {
  enum class Type : uint8_t { kInsert, kUpdate, kDelete } type = Type::kInsert;
  std::string moduleName;
  std::string schemaName;
  std::string tableName;
  Row key;
  std::optional<Row> oldRow;
  std::optional<Row> newRow;
  std::optional<std::vector<std::string>> changedColumns;  // updates of memory tables
  bool remote = false;
};

struct SchemaChangeEvent {
  enum class Type : uint8_t { kCreate, kAlter, kDrop } type = Type::kCreate;
  enum class Object : uint8_t { kTable, kIndex, kColumn } objectType = Object::kTable;
  std::string moduleName;
  std::string schemaName;
  std::string objectName;
  std::string oldObjectName;  // "" = absent
  std::string columnName;
  std::string oldColumnName;
  std::string ddl;
  bool remote = false;
  // Engine-internal: the table whose watches this change disposes (table_removed /
  // table_modified), lower-case; "" for none.
  std::string disposesSchema;
  std::string disposesTable;
};

struct TransactionCommitEvent {
  std::string txnId;
  size_t dataChanges = 0;
  size_t schemaChanges = 0;
  bool remote = false;
};

// The data-change events of a commit's change log, in write order.
// `schema` are the same commit's schema changes: a table renamed later in the transaction labels
// its earlier events with its current name (§6).
std::vector<DataChangeEvent> dataChangeEvents(const Catalog& catalog, const std::vector<RowChange>& changes,
                                              const std::vector<SchemaChangeEvent>& schema = {});

Json toJson(const DataChangeEvent& e);
Json toJson(const SchemaChangeEvent& e);
Json toJson(const TransactionCommitEvent& e);

}  // namespace optic
