// Schema-change announcements (schema_change.h).
#include "core/ddl/schema_change.h"

#include "core/common/error.h"
#include "core/parser/ddl_printer.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"

namespace optic {
namespace {

// `schema.` as the canonical DDL of schema-change events qualifies names.
std::string qualifier(const std::string& schema) { return printIdent(schema) + "."; }

}  // namespace

std::optional<SchemaChangeEvent> schemaChangeOf(Context& ctx, const ast::Statement& s) {
  using Ev = SchemaChangeEvent;
  auto schemaOf = [&](const ast::QualifiedName& n) -> std::string {
    if (!n.schema.empty()) return lowerName(n.schema);
    try {
      return Binder(ctx).resolveTableSchema(n, false);
    } catch (const Error&) {
      return ctx.searchPath().front();
    }
  };
  Ev e;
  switch (s.kind) {
    case ast::StatementKind::kCreateTable: {
      const ast::CreateTable& c = *s.createTable;
      e.schemaName = c.name.schema.empty() ? ctx.searchPath().front() : lowerName(c.name.schema);
      if (ctx.catalog().findTable(e.schemaName, c.name.name)) return std::nullopt;  // if not exists
      e.objectName = c.name.name;
      e.ddl = printCreateTable(c, qualifier(e.schemaName), "");
      return e;
    }
    case ast::StatementKind::kCreateIndex: {
      const ast::CreateIndex& c = *s.createIndex;
      e.objectType = Ev::Object::kIndex;
      e.schemaName = schemaOf(c.table);
      if (ctx.catalog().findIndex(e.schemaName, c.name.name).first) return std::nullopt;
      e.objectName = c.name.name;
      e.ddl = printCreateIndex(c, qualifier(e.schemaName));
      return e;
    }
    case ast::StatementKind::kDrop: {
      const ast::Drop& d = *s.drop;
      e.type = Ev::Type::kDrop;
      e.objectName = d.name.name;
      if (d.kind == ast::Drop::Kind::kTable) {
        e.schemaName = schemaOf(d.name);
        if (!ctx.catalog().findTable(e.schemaName, d.name.name)) return std::nullopt;
        e.ddl = "drop table " + qualifier(e.schemaName) + printIdent(d.name.name);
        e.disposesSchema = e.schemaName;
        e.disposesTable = lowerName(d.name.name);
        return e;
      }
      if (d.kind == ast::Drop::Kind::kIndex) {
        e.objectType = Ev::Object::kIndex;
        e.schemaName = d.name.schema.empty() ? ctx.searchPath().front() : lowerName(d.name.schema);
        if (!ctx.catalog().findIndex(e.schemaName, d.name.name, isStandaloneIndex).first) return std::nullopt;
        e.ddl = "drop index " + qualifier(e.schemaName) + printIdent(d.name.name);
        return e;
      }
      return std::nullopt;
    }
    case ast::StatementKind::kAlterTable: {
      const ast::AlterTable& a = *s.alterTable;
      using A = ast::AlterTable::Action;
      e.type = Ev::Type::kAlter;
      e.schemaName = schemaOf(a.table);
      e.objectName = a.table.name;
      e.disposesSchema = e.schemaName;
      e.disposesTable = lowerName(a.table.name);
      e.ddl = printAlterTable(a, qualifier(e.schemaName));
      switch (a.action) {
        case A::kRenameTable:
          e.oldObjectName = a.table.name;
          e.objectName = a.newName;
          return e;
        case A::kRenameColumn:
          e.objectType = Ev::Object::kColumn;
          e.columnName = a.newName;
          e.oldColumnName = a.column;
          return e;
        case A::kAddColumn:
          e.objectType = Ev::Object::kColumn;
          if (a.columnDef) e.columnName = a.columnDef->name;
          return e;
        case A::kDropColumn:
          e.type = Ev::Type::kDrop;
          e.objectType = Ev::Object::kColumn;
          e.columnName = a.column;
          return e;
        case A::kAlterColumn:
          e.objectType = Ev::Object::kColumn;
          e.columnName = a.column;
          return e;
        case A::kAlterPrimaryKey:
        case A::kAddConstraint:
        case A::kDropConstraint:
        case A::kRenameConstraint:
          return e;
        default:
          return std::nullopt;  // tag edits and set/drop maintained announce nothing
      }
    }
    default:
      return std::nullopt;
  }
}

void completeSchemaChange(Context& ctx, SchemaChangeEvent& e) {
  if (e.type != SchemaChangeEvent::Type::kDrop || e.objectType == SchemaChangeEvent::Object::kColumn) {
    const std::string& name = e.objectType == SchemaChangeEvent::Object::kIndex ? "" : e.objectName;
    if (auto t = name.empty() ? nullptr : ctx.catalog().findTable(e.schemaName, name)) e.moduleName = t->schema().module;
  }
  if (e.moduleName.empty()) e.moduleName = ctx.settings().defaultModule;
}

}  // namespace optic
