// Declared shapes of maintained tables (declared_shape.h).
#include "core/ddl/declared_shape.h"

#include <algorithm>
#include <set>

#include "core/common/error.h"
#include "core/ddl/ddl.h"
#include "core/ddl/table_builder.h"

namespace optic {
namespace {

std::string typeName(LogicalType t) { return std::string(logicalTypeName(t)); }

bool inKey(const std::vector<KeyColumn>& key, size_t column) {
  return std::any_of(key.begin(), key.end(), [&](const KeyColumn& k) { return k.column == static_cast<int>(column); });
}

// The type a column must declare: the body's, or (assignment) one the body's converts to without
// failing, except on the body's key columns, which key the backing as derived.
void checkType(const std::string& who, const ColumnSchema& c, const MvColumn& b, bool keyColumn, ShapeContract contract) {
  if (b.type == LogicalType::kAny && contract == ShapeContract::kExact) return;
  if (c.type == b.type) return;
  std::string base = who + ": body derives type " + typeName(b.type) + " for column '" + c.name + "' but the " +
                     (contract == ShapeContract::kExact ? "table" : "view") + " declares " + typeName(c.type);
  if (contract == ShapeContract::kExact) fail(base);
  if (keyColumn) fail(base + "; a column of the body's key keeps its derived type");
  if (!convertsWithoutFailure(b.type, c.type)) {
    fail(base + " and the conversion can fail; convert it in the body (cast(… as " + typeName(c.type) + "))");
  }
}

void checkCollation(const std::string& who, const ColumnSchema& c, const MvColumn& b, bool keyColumn,
                    ShapeContract contract) {
  if (c.collation == b.collation) return;
  if (contract == ShapeContract::kAssignment && !keyColumn) return;  // the declared collation governs the column
  fail(who + ": column '" + c.name + "' declares collation " + std::string(collationName(c.collation)) +
       " but the body derives collation " + std::string(collationName(b.collation)));
}

void checkPrimaryKey(const std::string& who, const TableSchema& ts, const MvAnalysis& a) {
  if (ts.primaryKey.size() != a.physicalKey.size()) {
    fail(who + ": the declared primary key does not match the body's key (primary-key component count " +
         std::to_string(ts.primaryKey.size()) + " vs " + std::to_string(a.physicalKey.size()) + ")");
  }
  for (size_t i = 0; i < ts.primaryKey.size(); ++i) {
    const KeyColumn& d = ts.primaryKey[i];
    const KeyColumn& b = a.physicalKey[i];
    if (d.column != b.column) {
      fail(who + ": primary-key component " + std::to_string(i + 1) + " is '" + ts.columns[d.column].name +
           "' but the body's key is '" + ts.columns[b.column].name + "'");
    }
    if (d.desc != b.desc) {
      fail(who + ": primary-key component '" + ts.columns[d.column].name + "' direction " + (d.desc ? "DESC" : "ASC") +
           " differs from the body's " + (b.desc ? "DESC" : "ASC"));
    }
  }
}

std::set<int> columnSet(const std::vector<int>& cols) { return std::set<int>(cols.begin(), cols.end()); }

std::vector<int> keyColumns(const std::vector<KeyColumn>& key) {
  std::vector<int> out;
  for (const KeyColumn& k : key) out.push_back(k.column);
  return out;
}

// The unique index that enforces a declared PRIMARY KEY the backing is not keyed by.
void enforcePrimaryKey(TableSchema& ts, const std::vector<int>& declared) {
  if (columnSet(declared) == columnSet(keyColumns(ts.primaryKey))) return;
  for (const IndexSchema& ix : ts.indexes) {
    if (ix.unique && !ix.where && columnSet(keyColumns(ix.columns)) == columnSet(declared)) return;
  }
  std::vector<KeyColumn> cols;
  for (int c : declared) cols.push_back(KeyColumn{c, false, ts.columns[c].collation});
  ConstraintNames names(ts);
  addUnique(ts, names, "", std::move(cols), ast::ConflictAction::kNone,
            UniqueDeclaration{"create materialized view '" + ts.name + "'", ts.indexes.size()});
}

[[noreturn]] void failUnsupported(const TableSchema& ts, const std::string& column, const std::string& what) {
  fail("materialized view '" + ts.name + "': column '" + column + "' declares " + what +
       "; a materialized view's column definitions take a type, NOT NULL, COLLATE, PRIMARY KEY, UNIQUE, CHECK "
       "and REFERENCES only (its rows are derived: nothing supplies a default or a generated value)");
}

}  // namespace

void checkDeclaredShape(const TableSchema& ts, const MvAnalysis& a, bool renamed, ShapeContract contract) {
  bool exact = contract == ShapeContract::kExact;
  const std::string who = std::string(exact ? "maintained table '" : "materialized view '") + ts.schemaName + "." +
                          ts.name + "'";
  if (a.columns.size() != ts.columns.size()) {
    fail(who + ": body produces " + std::to_string(a.columns.size()) + " columns but the " +
         (exact ? "table" : "view") + " declares " + std::to_string(ts.columns.size()));
  }
  for (size_t i = 0; i < ts.columns.size(); ++i) {
    const ColumnSchema& c = ts.columns[i];
    const MvColumn& b = a.columns[i];
    if (c.generated) fail(who + ": column '" + c.name + "' is generated; a maintained table's columns are derived");
    if (exact && !renamed && lowerName(c.name) != lowerName(b.name)) {
      fail(who + ": column " + std::to_string(i + 1) + " is '" + c.name + "' but the body derives '" + b.name +
           "'; alias the body output as '" + c.name + "' (or give a rename list)");
    }
    bool keyColumn = inKey(a.physicalKey, i);
    checkType(who, c, b, keyColumn, contract);
    if (exact && c.notNull != b.notNull) {
      fail(who + ": column '" + c.name + "' is declared " + (c.notNull ? "NOT NULL" : "nullable") +
           " but the body derives it " + (b.notNull ? "NOT NULL" : "nullable"));
    }
    checkCollation(who, c, b, keyColumn, contract);
  }
  if (exact) checkPrimaryKey(who, ts, a);
}

std::vector<std::string> DeclaredMvSchema::names() const {
  std::vector<std::string> out;
  for (const ColumnSchema& c : table->columns) out.push_back(c.name);
  return out;
}

const std::vector<int>* DeclaredMvSchema::primaryKey() const {
  return !keys.empty() && keys.front().primary ? &keys.front().columns : nullptr;
}

DeclaredMvSchema declaredFromDefinitions(Context& ctx, const ast::CreateView& cv, const std::string& schema,
                                         std::shared_ptr<const ast::Statement> keep) {
  const ast::CreateTable& ct = *cv.declared;
  DeclaredMvSchema out;
  out.table = buildTableSchema(ctx, ct, schema, std::move(keep));
  TableSchema& ts = *out.table;
  for (size_t i = 0; i < ct.columns.size(); ++i) {
    const ast::ColumnDef& cd = ct.columns[i];
    const ColumnSchema& c = ts.columns[i];
    if (cd.typeName.empty()) failUnsupported(ts, cd.name, "no type");
    if (c.defaultExpr) failUnsupported(ts, cd.name, "a DEFAULT");
    if (c.generated) failUnsupported(ts, cd.name, "a generated expression");
  }
  // CHECK and FOREIGN KEY hold over the derived rows as on a maintained table (mv_maintenance.cpp).
  if (ts.pkDeclared) out.keys.push_back(DeclaredKey{keyColumns(ts.primaryKey), true});
  for (const IndexSchema& ix : ts.indexes) out.keys.push_back(DeclaredKey{keyColumns(ix.columns), false});
  ts.primaryKey.clear();
  return out;
}

DeclaredMvSchema declaredFromTarget(const TableSchema& target, std::shared_ptr<const ast::Statement> keep) {
  DeclaredMvSchema out;
  out.table = std::make_shared<TableSchema>(target);
  out.table->derivation = nullptr;
  out.table->primaryKey.clear();
  out.table->keepAlive.push_back(std::move(keep));
  out.keys = target.derivation->declaredKeys;
  return out;
}

std::vector<std::string> applyDeclaredSchema(DeclaredMvSchema& declared, const MvAnalysis& a, bool lenient) {
  TableSchema& ts = *declared.table;
  checkDeclaredShape(ts, a, true, ShapeContract::kAssignment);
  std::vector<std::string> unproven;
  for (const DeclaredKey& k : declared.keys) {
    if (provesKey(a, k.columns)) continue;
    std::string text = declaredKeyText(ts, k);
    if (!lenient) {
      std::vector<std::string> names;
      for (int c : a.key) names.push_back(ts.columns[c].name);
      fail("materialized view '" + ts.schemaName + "." + ts.name + "': declared " + text +
           " is not provable from its body (its key is (" + joinNames(names, ", ") + "))");
    }
    unproven.push_back(std::move(text));
  }
  ts.primaryKey = a.physicalKey;
  ts.pkDeclared = true;
  if (const std::vector<int>* pk = declared.primaryKey()) enforcePrimaryKey(ts, *pk);
  return unproven;
}

std::vector<std::string> unconfirmedKeys(const TableSchema& ts, const MvAnalysis& a) {
  std::vector<std::string> out;
  if (!ts.derivation) return out;
  for (const DeclaredKey& k : ts.derivation->declaredKeys) {
    if (!provesKey(a, k.columns)) out.push_back(declaredKeyText(ts, k));
  }
  return out;
}

}  // namespace optic
