// Data-change events from the change log, and the JSON forms of all events (change_events.h).
#include "core/maintenance/change_events.h"

#include "core/catalog/catalog.h"
#include "core/catalog/table_store.h"
#include "core/common/value_ops.h"
#include "core/planner/change_scope.h"

namespace optic {

namespace {

Row keyOf(const TableSchema& ts, const Row& row) {
  Row key;
  for (const KeyColumn& k : ts.primaryKey) {
    if (static_cast<size_t>(k.column) < row.size()) key.push_back(row[k.column]);
  }
  return key;
}

bool sameValue(const Value& a, const Value& b) {
  return a.kind() == b.kind() && compareValues(a, b) == 0;
}

std::vector<std::string> changedColumnsOf(const TableSchema& ts, const Row& before, const Row& after) {
  std::vector<std::string> out;
  for (size_t i = 0; i < ts.columns.size() && i < before.size() && i < after.size(); ++i) {
    if (!sameValue(before[i], after[i])) out.push_back(ts.columns[i].name);
  }
  return out;
}

Json rowJson(const Row& r) {
  Json j = Json::array();
  for (const Value& v : r) j.push_back(scopeValueToJson(v));
  return j;
}

const char* dataType(DataChangeEvent::Type t) {
  switch (t) {
    case DataChangeEvent::Type::kInsert: return "insert";
    case DataChangeEvent::Type::kUpdate: return "update";
    case DataChangeEvent::Type::kDelete: return "delete";
  }
  return "insert";
}

}  // namespace

// The current name of schema.table after the commit's renames (lower-case in, as declared out).
std::string currentName(const std::vector<SchemaChangeEvent>& schema, const std::string& schemaName,
                        const std::string& table) {
  std::string name = table;
  for (const SchemaChangeEvent& e : schema) {
    if (e.type == SchemaChangeEvent::Type::kAlter && e.objectType == SchemaChangeEvent::Object::kTable &&
        !e.oldObjectName.empty() && e.schemaName == schemaName && lowerName(e.oldObjectName) == lowerName(name)) {
      name = e.objectName;
    }
  }
  return name;
}

std::vector<DataChangeEvent> dataChangeEvents(const Catalog& catalog, const std::vector<RowChange>& changes,
                                              const std::vector<SchemaChangeEvent>& schema) {
  std::vector<DataChangeEvent> out;
  out.reserve(changes.size());
  for (const RowChange& c : changes) {
    std::shared_ptr<Table> table = catalog.findTable(c.schema, schema.empty() ? c.table : currentName(schema, c.schema, c.table));
    DataChangeEvent e;
    e.schemaName = c.schema;
    e.tableName = table ? table->schema().name : c.table;
    e.moduleName = table ? table->schema().module : "memory";
    auto keyFrom = [&](const Row& r) { return table ? keyOf(table->schema(), r) : Row{}; };
    if (c.oldRow && c.newRow) {
      bool moved = table && encodePrimaryKey(table->schema(), *c.oldRow) != encodePrimaryKey(table->schema(), *c.newRow);
      if (moved) {
        DataChangeEvent del = e;
        del.type = DataChangeEvent::Type::kDelete;
        del.key = keyFrom(*c.oldRow);
        del.oldRow = *c.oldRow;
        out.push_back(std::move(del));
        e.type = DataChangeEvent::Type::kInsert;
        e.key = keyFrom(*c.newRow);
        e.newRow = *c.newRow;
      } else {
        e.type = DataChangeEvent::Type::kUpdate;
        e.key = keyFrom(*c.newRow);
        e.oldRow = *c.oldRow;
        e.newRow = *c.newRow;
        // The store module does not report changed columns (§6); memory tables do.
        if (table && table->schema().module == "memory") {
          e.changedColumns = changedColumnsOf(table->schema(), *c.oldRow, *c.newRow);
        }
      }
    } else if (c.newRow) {
      e.type = DataChangeEvent::Type::kInsert;
      e.key = keyFrom(*c.newRow);
      e.newRow = *c.newRow;
    } else if (c.oldRow) {
      e.type = DataChangeEvent::Type::kDelete;
      e.key = keyFrom(*c.oldRow);
      e.oldRow = *c.oldRow;
    } else {
      continue;
    }
    out.push_back(std::move(e));
  }
  return out;
}

Json toJson(const DataChangeEvent& e) {
  Json j = Json::object();
  j["type"] = dataType(e.type);
  j["moduleName"] = e.moduleName;
  j["schemaName"] = e.schemaName;
  j["tableName"] = e.tableName;
  j["key"] = rowJson(e.key);
  if (e.oldRow) j["oldRow"] = rowJson(*e.oldRow);
  if (e.newRow) j["newRow"] = rowJson(*e.newRow);
  if (e.changedColumns) j["changedColumns"] = *e.changedColumns;
  j["remote"] = e.remote;
  return j;
}

Json toJson(const SchemaChangeEvent& e) {
  Json j = Json::object();
  j["type"] = e.type == SchemaChangeEvent::Type::kCreate ? "create" : e.type == SchemaChangeEvent::Type::kAlter ? "alter" : "drop";
  j["objectType"] = e.objectType == SchemaChangeEvent::Object::kTable   ? "table"
                    : e.objectType == SchemaChangeEvent::Object::kIndex ? "index"
                                                                        : "column";
  j["moduleName"] = e.moduleName;
  j["schemaName"] = e.schemaName;
  j["objectName"] = e.objectName;
  if (!e.oldObjectName.empty()) j["oldObjectName"] = e.oldObjectName;
  if (!e.columnName.empty()) j["columnName"] = e.columnName;
  if (!e.oldColumnName.empty()) j["oldColumnName"] = e.oldColumnName;
  if (!e.ddl.empty()) j["ddl"] = e.ddl;
  j["remote"] = e.remote;
  return j;
}

Json toJson(const TransactionCommitEvent& e) {
  Json j = Json::object();
  j["txnId"] = e.txnId;
  j["dataChanges"] = e.dataChanges;
  j["schemaChanges"] = e.schemaChanges;
  j["remote"] = e.remote;
  return j;
}

}  // namespace optic
