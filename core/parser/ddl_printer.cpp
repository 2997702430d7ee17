// DDL printer (ddl_printer.h). One small function per clause, in the order the parser reads them.
#include "core/parser/ddl_printer.h"

#include "core/parser/printer.h"

namespace optic {

using namespace ast;

namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string identList(const std::vector<std::string>& names) {
  std::vector<std::string> parts;
  for (const std::string& n : names) parts.push_back(printIdent(n));
  return join(parts);
}

std::string conflictClause(ConflictAction a) {
  switch (a) {
    case ConflictAction::kNone: return "";
    case ConflictAction::kRollback: return " on conflict rollback";
    case ConflictAction::kAbort: return " on conflict abort";
    case ConflictAction::kFail: return " on conflict fail";
    case ConflictAction::kIgnore: return " on conflict ignore";
    case ConflictAction::kReplace: return " on conflict replace";
  }
  return "";
}

std::string qualified(const QualifiedName& n) {
  return (n.schema.empty() ? "" : printIdent(n.schema) + ".") + printIdent(n.name);
}

std::string checkClause(const std::vector<std::string>& ops, const Expr& e) {
  std::string out = "check";
  if (!ops.empty()) out += " on " + join(ops);
  return out + " (" + printSqlExpr(e) + ")";
}

std::string referencesClause(const ForeignKeyClause& fk) {
  std::string out = "references " + qualified(fk.parent);
  if (!fk.parentColumns.empty()) out += "(" + identList(fk.parentColumns) + ")";
  if (!fk.onDelete.empty()) out += " on delete " + fk.onDelete;
  if (!fk.onUpdate.empty()) out += " on update " + fk.onUpdate;
  if (fk.deferrable) out += fk.initiallyDeferred ? " deferrable initially deferred" : " deferrable";
  return out;
}

std::string constraintName(const std::string& name) { return name.empty() ? "" : "constraint " + printIdent(name) + " "; }

std::string columnConstraint(const ColumnConstraint& cc) {
  std::string body;
  using K = ColumnConstraint::Kind;
  switch (cc.kind) {
    case K::kPrimaryKey:
      body = std::string("primary key") + (cc.desc ? " desc" : "") + conflictClause(cc.onConflict);
      if (cc.autoincrement) body += " autoincrement";
      break;
    case K::kNotNull: body = "not null" + conflictClause(cc.onConflict); break;
    case K::kNull: body = "null"; break;
    case K::kUnique: body = "unique" + conflictClause(cc.onConflict); break;
    case K::kCheck: body = checkClause(cc.checkOperations, *cc.expr) + conflictClause(cc.onConflict); break;
    case K::kDefault: body = "default " + printDefaultValue(*cc.expr); break;
    case K::kCollate: body = "collate " + cc.collation; break;
    case K::kReferences: body = referencesClause(*cc.fk); break;
    case K::kGenerated:
      body = "generated always as (" + printSqlExpr(*cc.expr) + ")" + (cc.stored ? " stored" : "");
      break;
  }
  // A trailing WITH TAGS belongs to the constraint only when it is named.
  return constraintName(cc.name) + body + (cc.name.empty() ? "" : printTagsClause(cc.tags));
}

}  // namespace

std::string printTagList(const Tags& tags) {
  std::vector<std::string> parts;
  for (const Tag& t : tags) parts.push_back(printIdent(t.key) + " = " + printLiteral(t.value));
  return "(" + join(parts) + ")";
}

std::string printTagsClause(const Tags& tags) {
  return tags.empty() ? "" : " with tags " + printTagList(tags);
}

std::string printColumnConstraintAsTable(const ColumnDef& cd, const ColumnConstraint& cc) {
  using K = ColumnConstraint::Kind;
  std::string body;
  switch (cc.kind) {
    case K::kCheck: body = checkClause(cc.checkOperations, *cc.expr) + conflictClause(cc.onConflict); break;
    case K::kUnique: body = "unique (" + printIdent(cd.name) + ")" + conflictClause(cc.onConflict); break;
    case K::kReferences: body = "foreign key (" + printIdent(cd.name) + ") " + referencesClause(*cc.fk); break;
    default: return "";
  }
  return constraintName(cc.name) + body + printTagsClause(cc.tags);
}

std::string printDefaultValue(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral:
    case ExprKind::kColumn:
    case ExprKind::kFunction:
    case ExprKind::kSubquery:
    case ExprKind::kCast:
      return printSqlExpr(e);
    case ExprKind::kUnary:
      if (e.args[0]->kind == ExprKind::kLiteral) return printSqlExpr(e);
      break;
    default:
      break;
  }
  return "(" + printSqlExpr(e) + ")";
}

std::string printColumnDef(const ColumnDef& cd) {
  std::string out = printIdent(cd.name);
  if (!cd.typeName.empty()) out += " " + cd.typeName;
  for (const ColumnConstraint& cc : cd.constraints) out += " " + columnConstraint(cc);
  return out + printTagsClause(cd.tags);
}

std::string printIndexedColumns(const std::vector<IndexedColumn>& cols, const std::vector<std::string>* names) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < cols.size(); ++i) {
    const IndexedColumn& ic = cols[i];
    std::string p = ic.expr ? printSqlExpr(*ic.expr) : printIdent(names && i < names->size() ? (*names)[i] : ic.name);
    if (!ic.collation.empty()) p += " collate " + ic.collation;
    if (ic.hasDirection || ic.desc) p += ic.desc ? " desc" : " asc";
    parts.push_back(std::move(p));
  }
  return "(" + join(parts) + ")";
}

std::string printTableConstraint(const TableConstraint& tc) {
  std::string body;
  using K = TableConstraint::Kind;
  switch (tc.kind) {
    case K::kPrimaryKey: body = "primary key " + printIndexedColumns(tc.columns) + conflictClause(tc.onConflict); break;
    case K::kUnique: body = "unique " + printIndexedColumns(tc.columns) + conflictClause(tc.onConflict); break;
    case K::kCheck: body = checkClause(tc.checkOperations, *tc.expr) + conflictClause(tc.onConflict); break;
    case K::kForeignKey: body = "foreign key (" + identList(tc.fkColumns) + ") " + referencesClause(*tc.fk); break;
  }
  return constraintName(tc.name) + body + printTagsClause(tc.tags);
}

std::string printViewDefaults(const std::vector<ViewColumnDefault>& defaults) {
  if (defaults.empty()) return "";
  std::vector<std::string> parts;
  for (const ViewColumnDefault& d : defaults) parts.push_back(printIdent(d.column) + " = " + printSqlExpr(*d.expr));
  return " with defaults (" + join(parts) + ")";
}

namespace {

std::string moduleClause(const ModuleRef& m, const std::string& defaultModule) {
  if (m.name.empty()) return defaultModule.empty() ? "" : " using " + defaultModule;
  std::string out = " using " + m.name;
  std::vector<std::string> args = m.rawArgs;
  for (const auto& [k, v] : m.args) args.push_back(printIdent(k) + " = " + printLiteral(v));
  if (!args.empty()) out += "(" + join(args) + ")";
  return out;
}

}  // namespace

std::string printCreateTable(const CreateTable& ct, const std::string& prefix, const std::string& defaultModule) {
  std::vector<std::string> parts;
  for (const ColumnDef& cd : ct.columns) parts.push_back(printColumnDef(cd));
  for (const TableConstraint& tc : ct.constraints) parts.push_back(printTableConstraint(tc));
  std::string out = "create table " + prefix + printIdent(ct.name.name) + " (" + join(parts) + ")";
  out += moduleClause(ct.module, defaultModule);
  if (!ct.contextVars.empty()) {
    std::vector<std::string> vars;
    for (const ContextVarDef& v : ct.contextVars) {
      vars.push_back(printIdent(v.name) + (v.typeName.empty() ? "" : " " + v.typeName) + (v.nullable ? " null" : ""));
    }
    out += " with context (" + join(vars) + ")";
  }
  out += printTagsClause(ct.tags);
  if (ct.maintainedAs) {
    out += " maintained";
    if (!ct.maintainedNames.empty()) out += " (" + identList(ct.maintainedNames) + ")";
    out += " as " + printSelect(*ct.maintainedAs);
  }
  return out;
}

std::string printCreateIndex(const CreateIndex& ci, const std::string& prefix, const std::vector<std::string>* columnNames) {
  std::string out = std::string("create ") + (ci.unique ? "unique " : "") + "index " + prefix + printIdent(ci.name.name) +
                    " on " + prefix + printIdent(ci.table.name) + " " + printIndexedColumns(ci.columns, columnNames);
  if (ci.where) out += " where " + printSqlExpr(*ci.where);
  return out + printTagsClause(ci.tags);
}

std::string printCreateView(const CreateView& cv, const std::string& prefix, bool orReplace) {
  std::string out = std::string("create ") + (cv.orReplace || orReplace ? "or replace " : "") + (cv.materialized ? "materialized " : "") +
                    "view " + prefix + printIdent(cv.name.name);
  if (cv.declared) {
    std::vector<std::string> parts;
    for (const ColumnDef& cd : cv.declared->columns) parts.push_back(printColumnDef(cd));
    for (const TableConstraint& tc : cv.declared->constraints) parts.push_back(printTableConstraint(tc));
    out += " (" + join(parts) + ")";
  } else if (!cv.columns.empty()) {
    out += " (" + identList(cv.columns) + ")";
  }
  if (cv.materialized) out += moduleClause(cv.module, "");
  out += " as " + printSelect(*cv.select) + printViewDefaults(cv.defaults);
  return out + printTagsClause(cv.tags);
}

std::string printAlterTable(const AlterTable& a, const std::string& prefix) {
  using A = AlterTable::Action;
  using C = AlterTable::ColumnAction;
  std::string out = "alter table " + prefix + printIdent(a.table.name) + " ";
  switch (a.action) {
    case A::kRenameTable: return out + "rename to " + printIdent(a.newName);
    case A::kRenameColumn: return out + "rename column " + printIdent(a.column) + " to " + printIdent(a.newName);
    case A::kAddColumn: return out + "add column " + printColumnDef(*a.columnDef);
    case A::kDropColumn: return out + "drop column " + printIdent(a.column);
    case A::kAddConstraint: return out + "add " + printTableConstraint(*a.constraint);
    case A::kDropConstraint: return out + "drop constraint " + printIdent(a.name);
    case A::kRenameConstraint: return out + "rename constraint " + printIdent(a.name) + " to " + printIdent(a.newName);
    case A::kAlterPrimaryKey: return out + "alter primary key " + printIndexedColumns(a.keyColumns);
    case A::kAlterColumn: {
      out += "alter column " + printIdent(a.column) + " ";
      switch (a.columnAction) {
        case C::kSetNotNull: return out + "set not null";
        case C::kDropNotNull: return out + "drop not null";
        case C::kSetDataType: return out + "set data type " + a.typeName;
        case C::kSetDefault: return out + "set default " + printDefaultValue(*a.defaultExpr);
        case C::kDropDefault: return out + "drop default";
        case C::kSetCollate: return out + "set collate " + a.collation;
        case C::kSetTags: return out + "set tags " + printTagList(a.tags);
      }
      return out;
    }
    case A::kSetTags: return out + "set tags " + printTagList(a.tags);
    case A::kAlterConstraintTags: return out + "alter constraint " + printIdent(a.name) + " set tags " + printTagList(a.tags);
    case A::kSetMaintained:
    case A::kDropMaintained:
      break;  // printed by the schema differ, which has the body in hand
  }
  return out;
}

std::string printCreateAssertion(const CreateAssertion& ca, const std::string& prefix) {
  return "create assertion " + prefix + printIdent(ca.name.name) + " check (" + printSqlExpr(*ca.check) + ")";
}

}  // namespace optic
