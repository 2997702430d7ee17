#include "core/catalog/catalog.h"

#include <algorithm>

#include "core/common/error.h"

namespace optic {

const char* fkActionName(FkAction a) {
  switch (a) {
    case FkAction::kCascade: return "cascade";
    case FkAction::kSetNull: return "set null";
    case FkAction::kSetDefault: return "set default";
    case FkAction::kRestrict: break;
  }
  return "restrict";
}

int TableSchema::findColumn(std::string_view n) const {
  std::string key = lowerName(n);
  for (size_t i = 0; i < columns.size(); ++i) {
    if (lowerName(columns[i].name) == key) return static_cast<int>(i);
  }
  return -1;
}

int TableSchema::findContextVariable(std::string_view n) const {
  std::string key = lowerName(n);
  for (size_t i = 0; i < contextVariables.size(); ++i) {
    if (lowerName(contextVariables[i].name) == key) return static_cast<int>(i);
  }
  return -1;
}

const IndexSchema* TableSchema::findIndex(std::string_view n) const {
  std::string key = lowerName(n);
  for (const IndexSchema& ix : indexes) {
    if (lowerName(ix.name) == key) return &ix;
  }
  return nullptr;
}

Table::Table(std::shared_ptr<const TableSchema> schema)
    : schema_(std::move(schema)), rows_(newMemoryKVStore()) {}

std::string mintedUniqueName(const std::vector<std::string>& columns) {
  std::string out = "_uc_";
  for (size_t i = 0; i < columns.size(); ++i) out += (i ? "_" : "") + columns[i];
  return out;
}

bool exposesImplicitIndex(const IndexSchema& ix) {
  if (!ix.implicit) return false;
  for (const ast::Tag& t : ix.tags) {
    if (t.key == "quereus.expose_implicit_index") return t.value.kind() == ValueKind::kBoolean && t.value.asBool();
  }
  return false;
}

KVStore& Table::storedIndex(size_t i) {
  while (indexes_.size() <= i) indexes_.push_back(newMemoryKVStore());
  return *indexes_[i];
}

void Table::throwNotLoaded() const {
  // Named by its catalog key ({schema}.{table}, lower-case: store_layout.h tableCatalogKey), which
  // is what an embedder hands back to Database::loadRanges and loadTables.
  std::string key = lowerName(schema_->schemaName) + "." + lowerName(schema_->name);
  throw Error::notLoaded("Table '" + key + "' is not loaded", {key});
}

void Table::throwAwaitsRefill() const {
  std::string key = lowerName(schema_->schemaName) + "." + lowerName(schema_->name);
  std::vector<std::string> tables = refillSources_;
  tables.push_back(key);
  throw Error::notLoaded("materialized view '" + key + "' is refilled from its sources before it is read", tables);
}

Catalog::Catalog() {
  addSchema("main");
  addSchema("temp");
}

Schema* Catalog::findSchema(std::string_view name) {
  auto it = schemas_.find(lowerName(name));
  return it == schemas_.end() ? nullptr : &it->second;
}

Schema& Catalog::schema(std::string_view name) {
  Schema* s = findSchema(name);
  if (!s) fail(ErrorCode::kNotFound, "Schema '" + std::string(name) + "' not found");
  return *s;
}

Schema& Catalog::addSchema(std::string_view name) {
  std::string key = lowerName(name);
  Schema& s = schemas_[key];
  s.name = key;
  return s;
}

void Catalog::removeSchema(std::string_view name) { schemas_.erase(lowerName(name)); }

std::shared_ptr<Table> Catalog::findTable(std::string_view schema, std::string_view name) const {
  auto s = schemas_.find(lowerName(schema));
  if (s == schemas_.end()) return nullptr;
  auto t = s->second.tables.find(lowerName(name));
  return t == s->second.tables.end() ? nullptr : t->second;
}

std::shared_ptr<const ViewSchema> Catalog::findView(std::string_view schema, std::string_view name) const {
  auto s = schemas_.find(lowerName(schema));
  if (s == schemas_.end()) return nullptr;
  auto v = s->second.views.find(lowerName(name));
  return v == s->second.views.end() ? nullptr : v->second;
}

std::pair<std::shared_ptr<Table>, int> Catalog::findIndex(std::string_view schema, std::string_view name,
                                                          bool (*accept)(const IndexSchema&)) const {
  auto s = schemas_.find(lowerName(schema));
  if (s == schemas_.end()) return {nullptr, -1};
  std::string key = lowerName(name);
  for (const auto& [tname, table] : s->second.tables) {
    const auto& ixs = table->schema().indexes;
    for (size_t i = 0; i < ixs.size(); ++i) {
      if (lowerName(ixs[i].name) == key && (!accept || accept(ixs[i]))) return {table, static_cast<int>(i)};
    }
  }
  return {nullptr, -1};
}

std::string tableNotFoundMessage(const Catalog& catalog, const std::string& name, const std::vector<std::string>& searched,
                                 bool explicitSchema) {
  std::string msg = "Table '" + name + "' not found in schema";
  if (explicitSchema && searched.size() == 1) {
    msg += " '" + searched[0] + "'";
  } else {
    msg += " path: ";
    for (size_t i = 0; i < searched.size(); ++i) msg += (i ? "," : "") + searched[i];
  }
  for (const std::string& sname : searched) {
    auto schema = catalog.schemas().find(sname);
    if (schema == catalog.schemas().end()) continue;
    auto why = schema->second.unrestored.find(lowerName(name));
    if (why != schema->second.unrestored.end()) {
      return msg + ": materialized view '" + name + "' could not be restored when the database opened: " + why->second;
    }
  }
  for (const auto& [sname, schema] : catalog.schemas()) {
    if (std::find(searched.begin(), searched.end(), sname) != searched.end()) continue;
    if (catalog.findTable(sname, name) || catalog.findView(sname, name)) {
      msg += ". Did you mean: " + sname + "." + name + "?";
      break;
    }
  }
  return msg;
}

}  // namespace optic
