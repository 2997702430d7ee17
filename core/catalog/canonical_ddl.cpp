// Canonical DDL generator (see canonical_ddl.h). One small function per clause; the table form
// lists columns, then the primary key, UNIQUE constraints, CHECKs and FOREIGN KEYs in
// declaration order, then the module and tags.
#include "core/catalog/canonical_ddl.h"
#include "core/catalog/materialized_view.h"

#include "core/common/value_ops.h"
#include "core/parser/printer.h"

namespace optic {

std::string quoteIdent(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string sqlLiteral(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: return "null";
    case ValueKind::kBoolean: return v.asBool() ? "true" : "false";
    case ValueKind::kInteger:
    case ValueKind::kBigInt:
    case ValueKind::kReal: return toText(v);
    default: break;
  }
  std::string out = "'";
  for (char c : toText(v)) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

namespace {
std::string tagList(const ast::Tags& tags) {  // "(k = v, …)"; a key like quereus.x is quoted
  std::string out;
  for (const ast::Tag& t : tags) out += (out.empty() ? "" : ", ") + printIdent(t.key) + " = " + sqlLiteral(t.value);
  return "(" + out + ")";
}
}  // namespace

std::string tagsClause(const ast::Tags& tags) { return tags.empty() ? "" : " with tags " + tagList(tags); }

namespace {

std::string keyList(const TableSchema& t, const std::vector<KeyColumn>& cols, DdlStyle style) {
  std::string out;
  for (const KeyColumn& k : cols) {
    out += (out.empty() ? "" : ", ") + quoteIdent(t.columns[k.column].name);
    // The store form always names a text key's collation: reopening must not re-derive it.
    const ColumnSchema& c = t.columns[k.column];
    if (style == DdlStyle::kStore && (k.collation != c.collation || isTextLike(c.type))) {
      out += " collate " + std::string(collationName(k.collation));
    }
    if (k.desc) out += " desc";
  }
  return "(" + out + ")";
}

// " on conflict replace" (store form only; kNone prints nothing).
std::string conflictClause(ast::ConflictAction a, DdlStyle style) {
  if (style != DdlStyle::kStore) return "";
  switch (a) {
    case ast::ConflictAction::kNone: return "";
    case ast::ConflictAction::kRollback: return " on conflict rollback";
    case ast::ConflictAction::kAbort: return " on conflict abort";
    case ast::ConflictAction::kFail: return " on conflict fail";
    case ast::ConflictAction::kIgnore: return " on conflict ignore";
    case ast::ConflictAction::kReplace: return " on conflict replace";
  }
  return "";
}

// The table name, schema-qualified in the store form.
std::string tableName(const TableSchema& t, DdlStyle style) {
  return style == DdlStyle::kStore ? quoteIdent(t.schemaName) + "." + quoteIdent(t.name) : quoteIdent(t.name);
}

std::string nameList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + quoteIdent(n);
  return "(" + out + ")";
}

// " with context (v TYPE, w TYPE null)" when the table declares a mutation context.
std::string contextClause(const TableSchema& t) {
  if (t.contextVariables.empty()) return "";
  std::string out;
  for (const ContextVariable& v : t.contextVariables) {
    out += (out.empty() ? "" : ", ") + quoteIdent(v.name) + " " + std::string(logicalTypeName(v.type)) +
           (v.nullable ? " null" : "");
  }
  return " with context (" + out + ")";
}

std::string columnDdl(const ColumnSchema& c, DdlStyle style) {
  std::string out = quoteIdent(c.name) + " " + std::string(logicalTypeName(c.type));
  out += c.notNull ? " not null" + conflictClause(c.notNullConflict, style) : " null";
  // The store form keeps a defaulted (pragma default_collation) collation too.
  if (c.collationDeclared || (style == DdlStyle::kStore && c.collation != Collation::kBinary)) {
    out += " collate " + std::string(collationName(c.collation));
  }
  if (c.defaultExpr) out += " default " + printSqlExpr(*c.defaultExpr);
  if (c.generated) out += " generated always as (" + printSqlExpr(*c.generated) + ")" + (c.generatedStored ? " stored" : "");
  return out + tagsClause(c.tags);
}

std::string foreignKeyDdl(const TableSchema& t, const ForeignKey& fk, DdlStyle style) {
  std::vector<std::string> from;
  for (int c : fk.columns) from.push_back(t.columns[c].name);
  std::string parent = quoteIdent(fk.parentTable);
  if (style == DdlStyle::kStore && fk.parentSchema != t.schemaName) parent = quoteIdent(fk.parentSchema) + "." + parent;
  std::string out = "constraint " + quoteIdent(fk.name) + " foreign key " + nameList(from) + " references " + parent;
  if (!fk.parentColumns.empty()) out += " " + nameList(fk.parentColumns);
  if (fk.onDelete != FkAction::kRestrict) out += std::string(" on delete ") + fkActionName(fk.onDelete);
  if (fk.onUpdate != FkAction::kRestrict) out += std::string(" on update ") + fkActionName(fk.onUpdate);
  return out + tagsClause(fk.tags);
}

std::string checkDdl(const CheckConstraint& ck, DdlStyle style) {
  std::string ops;
  if (style == DdlStyle::kStore && !(ck.onInsert && ck.onUpdate && !ck.onDelete)) {
    if (ck.onInsert) ops += "insert";
    if (ck.onUpdate) ops += std::string(ops.empty() ? "" : ", ") + "update";
    if (ck.onDelete) ops += std::string(ops.empty() ? "" : ", ") + "delete";
    ops = " on " + ops;
  }
  return "constraint " + quoteIdent(ck.name) + " check" + ops + " (" + (ck.expr ? printSqlExpr(*ck.expr) : ck.exprText) + ")" +
         conflictClause(ck.onConflict, style) + tagsClause(ck.tags);
}

}  // namespace

std::string tableDdl(const TableSchema& t, DdlStyle style) {
  std::vector<std::string> parts;
  for (const ColumnSchema& c : t.columns) parts.push_back(columnDdl(c, style));
  parts.push_back("primary key " + keyList(t, t.primaryKey, style) + conflictClause(t.pkConflict, style));
  for (const IndexSchema& ix : t.indexes) {
    if (!ix.implicit) continue;
    std::string u = "constraint " + quoteIdent(ix.constraintName) + " unique " + keyList(t, ix.columns, style);
    // The store keeps an unnamed UNIQUE unnamed (reopening mints the same name again), so it
    // stays unnamed to introspection and to the duplicate-constraint rule.
    std::vector<std::string> columns;
    for (const KeyColumn& k : ix.columns) columns.push_back(t.columns[k.column].name);
    if (style == DdlStyle::kStore && ix.mintedName && ix.constraintName == mintedUniqueName(columns)) {
      u = "unique " + keyList(t, ix.columns, style);
    }
    if (style == DdlStyle::kStore) u += conflictClause(ix.onConflict, style) + tagsClause(ix.tags);
    parts.push_back(u);
  }
  for (const CheckConstraint& ck : t.checks) parts.push_back(checkDdl(ck, style));
  for (const ForeignKey& fk : t.foreignKeys) parts.push_back(foreignKeyDdl(t, fk, style));
  std::string body;
  for (const std::string& p : parts) body += (body.empty() ? "" : ", ") + p;
  return "create table " + tableName(t, style) + " (" + body + ") using " + t.module + "()" + contextClause(t) +
         tagsClause(t.tags);
}

std::string indexDdl(const TableSchema& t, const IndexSchema& ix, DdlStyle style) {
  std::string out = std::string("create ") + (ix.unique ? "unique " : "") + "index " + quoteIdent(ix.name) + " on " +
                    tableName(t, style) + " " + keyList(t, ix.columns, style);
  if (ix.where) out += " where " + printSqlExpr(*ix.where);
  return out + tagsClause(ix.tags);
}

std::string exposedIndexTagsDdl(const TableSchema& t, const IndexSchema& ix) {
  return "alter index " + quoteIdent(t.schemaName) + "." + quoteIdent(ix.name) + " set tags " + tagList(ix.exposedTags);
}

std::string viewDdl(const ViewSchema& v) {
  std::string out = "create view " + quoteIdent(v.name);
  if (!v.columnNames.empty()) out += " " + nameList(v.columnNames);
  if (v.select) out += " as " + printSelect(*v.select);
  return out + tagsClause(v.tags);
}

namespace {

// " with defaults (\"c\" = expr, …)", "" when there are none.
std::string defaultsClause(const std::vector<ast::ViewColumnDefault>* defaults) {
  if (!defaults || defaults->empty()) return "";
  std::string out;
  for (const ast::ViewColumnDefault& d : *defaults) {
    out += (out.empty() ? "" : ", ") + quoteIdent(d.column) + " = " + printSqlExpr(*d.expr);
  }
  return " with defaults (" + out + ")";
}

}  // namespace

std::string viewStoreDdl(const ViewSchema& v) {
  std::string out = "create view " + quoteIdent(v.schemaName) + "." + quoteIdent(v.name);
  if (!v.columnNames.empty()) out += " " + nameList(v.columnNames);
  out += tagsClause(v.tags);
  if (v.select) out += " as " + printSelect(*v.select);
  return out + defaultsClause(v.defaults);
}

std::string maintainedTableStoreDdl(const TableSchema& t) {
  const MaterializedView& d = *t.derivation;
  if (d.tableForm) {
    std::string out = tableDdl(t, DdlStyle::kStore) + " maintained";
    if (!d.columnNames.empty()) out += " " + nameList(d.columnNames);
    return out + " as " + d.bodyText;  // a table-form body keeps its `with defaults`
  }
  std::string out = "create materialized view " + tableName(t, DdlStyle::kStore);
  if (d.schemaDeclared) out += " (" + materializedColumnDefinitions(t, true) + ")";
  else if (!d.columnNames.empty()) out += " " + nameList(d.columnNames);
  out += " using " + t.module + "()" + tagsClause(t.tags);
  return out + " as " + d.bodyText + defaultsClause(d.defaults);
}

std::string maintainedTableDdl(const TableSchema& t) {
  return tableDdl(t) + " maintained" + " as " + t.derivation->bodyText;
}

std::string materializedViewDdl(const TableSchema& t) {
  if (!t.derivation->schemaDeclared) return maintainedTableDdl(t);
  return "create materialized view " + quoteIdent(t.name) + " (" + materializedColumnDefinitions(t) + ") using " +
         t.module + "()" + tagsClause(t.tags) + " as " + t.derivation->bodyText;
}

std::string declaredKeyText(const TableSchema& t, const DeclaredKey& k) {
  std::vector<std::string> names;
  for (int c : k.columns) names.push_back(t.columns[c].name);
  return std::string(k.primary ? "primary key " : "unique ") + nameList(names);
}

namespace {

// The columns as a materialized view's definitions list them: no default, generation or tags.
std::string definitionColumns(const TableSchema& t, DdlStyle style) {
  std::string out;
  for (const ColumnSchema& c : t.columns) {
    ColumnSchema plain = c;
    plain.defaultExpr = nullptr;
    plain.generated = nullptr;
    plain.tags.clear();
    plain.notNullConflict = ast::ConflictAction::kNone;
    out += (out.empty() ? "" : ", ") + columnDdl(plain, style);
  }
  return out;
}

}  // namespace

std::string declaredColumnDefinitions(const TableSchema& t, const std::vector<DeclaredKey>& keys, bool storeStyle) {
  DdlStyle style = storeStyle ? DdlStyle::kStore : DdlStyle::kDisplay;
  std::string out = definitionColumns(t, style);
  for (const DeclaredKey& k : keys) out += ", " + declaredKeyText(t, k);
  for (const CheckConstraint& ck : t.checks) out += ", " + checkDdl(ck, style);
  for (const ForeignKey& fk : t.foreignKeys) out += ", " + foreignKeyDdl(t, fk, style);
  return out;
}

std::string materializedColumnDefinitions(const TableSchema& t, bool storeStyle) {
  if (t.derivation && t.derivation->schemaDeclared) {
    return declaredColumnDefinitions(t, t.derivation->declaredKeys, storeStyle);
  }
  std::string out = definitionColumns(t, storeStyle ? DdlStyle::kStore : DdlStyle::kDisplay);
  std::vector<KeyColumn> key = t.primaryKey;
  for (KeyColumn& k : key) k.desc = false;
  return out + ", primary key " + keyList(t, key, DdlStyle::kDisplay);
}

}  // namespace optic
