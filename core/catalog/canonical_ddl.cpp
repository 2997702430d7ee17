// Canonical DDL generator (see canonical_ddl.h). One small function per clause; the table form
// lists columns, then the primary key, UNIQUE constraints, CHECKs and FOREIGN KEYs in
// declaration order, then the module and tags.
#include "core/catalog/canonical_ddl.h"

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

std::string tagsClause(const ast::Tags& tags) {
  if (tags.empty()) return "";
  std::string out;
  for (const ast::Tag& t : tags) out += (out.empty() ? "" : ", ") + t.key + " = " + sqlLiteral(t.value);
  return " with tags (" + out + ")";
}

namespace {

std::string keyList(const TableSchema& t, const std::vector<KeyColumn>& cols) {
  std::string out;
  for (const KeyColumn& k : cols) {
    out += (out.empty() ? "" : ", ") + quoteIdent(t.columns[k.column].name);
    if (k.desc) out += " desc";
  }
  return "(" + out + ")";
}

std::string nameList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + quoteIdent(n);
  return "(" + out + ")";
}

std::string columnDdl(const ColumnSchema& c) {
  std::string out = quoteIdent(c.name) + " " + std::string(logicalTypeName(c.type));
  out += c.notNull ? " not null" : " null";
  if (c.collationDeclared) out += " collate " + std::string(collationName(c.collation));
  if (c.defaultExpr) out += " default " + printExpr(*c.defaultExpr);
  if (c.generated) out += " generated always as (" + printExpr(*c.generated) + ")" + (c.generatedStored ? " stored" : "");
  return out + tagsClause(c.tags);
}

const char* fkActionText(FkAction a) {
  switch (a) {
    case FkAction::kCascade: return "cascade";
    case FkAction::kSetNull: return "set null";
    case FkAction::kSetDefault: return "set default";
    case FkAction::kRestrict: break;
  }
  return "restrict";
}

std::string foreignKeyDdl(const TableSchema& t, const ForeignKey& fk) {
  std::vector<std::string> from;
  for (int c : fk.columns) from.push_back(t.columns[c].name);
  std::string out = "constraint " + quoteIdent(fk.name) + " foreign key " + nameList(from) + " references " +
                    quoteIdent(fk.parentTable);
  if (!fk.parentColumns.empty()) out += " " + nameList(fk.parentColumns);
  if (fk.onDelete != FkAction::kRestrict) out += std::string(" on delete ") + fkActionText(fk.onDelete);
  if (fk.onUpdate != FkAction::kRestrict) out += std::string(" on update ") + fkActionText(fk.onUpdate);
  return out + tagsClause(fk.tags);
}

std::string checkDdl(const CheckConstraint& ck) {
  return "constraint " + quoteIdent(ck.name) + " check (" + ck.exprText + ")" + tagsClause(ck.tags);
}

}  // namespace

std::string tableDdl(const TableSchema& t) {
  std::vector<std::string> parts;
  for (const ColumnSchema& c : t.columns) parts.push_back(columnDdl(c));
  parts.push_back("primary key " + keyList(t, t.primaryKey));
  for (const IndexSchema& ix : t.indexes) {
    if (ix.implicit) parts.push_back("constraint " + quoteIdent(ix.constraintName) + " unique " + keyList(t, ix.columns));
  }
  for (const CheckConstraint& ck : t.checks) parts.push_back(checkDdl(ck));
  for (const ForeignKey& fk : t.foreignKeys) parts.push_back(foreignKeyDdl(t, fk));
  std::string body;
  for (const std::string& p : parts) body += (body.empty() ? "" : ", ") + p;
  return "create table " + quoteIdent(t.name) + " (" + body + ") using " + t.module + "()" + tagsClause(t.tags);
}

std::string indexDdl(const TableSchema& t, const IndexSchema& ix) {
  std::string out = std::string("create ") + (ix.unique ? "unique " : "") + "index " + quoteIdent(ix.name) + " on " +
                    quoteIdent(t.name) + " " + keyList(t, ix.columns);
  if (ix.where) out += " where " + printExpr(*ix.where);
  return out + tagsClause(ix.tags);
}

std::string viewDdl(const ViewSchema& v) {
  std::string out = "create view " + quoteIdent(v.name);
  if (!v.columnNames.empty()) out += " " + nameList(v.columnNames);
  if (v.select) out += " as " + printSelect(*v.select);
  return out + tagsClause(v.tags);
}

}  // namespace optic
