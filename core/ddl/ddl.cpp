// DDL execution (ddl.h).
#include "core/ddl/ddl.h"

#include <algorithm>
#include <set>

#include "core/catalog/assertion.h"
#include "core/catalog/materialized_view.h"
#include "core/catalog/store_layout.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/ddl/alter.h"
#include "core/ddl/assertion_statements.h"
#include "core/ddl/drop_guard.h"
#include "core/ddl/materialized_view_statements.h"
#include "core/ddl/row_eval.h"
#include "core/ddl/table_builder.h"
#include "core/execution/context.h"
#include "core/parser/printer.h"
#include "core/planner/views/view_definition.h"
#include "core/storage/row_codec.h"

namespace optic {

using ast::ColumnConstraint;
using ast::TableConstraint;

std::shared_ptr<TableSchema> buildTableSchema(Context& ctx, const ast::CreateTable& ct, const std::string& schemaName,
                                              std::shared_ptr<const ast::Statement> keep) {
  auto t = std::make_shared<TableSchema>();
  t->schemaName = schemaName;
  t->name = ct.name.name;
  t->module = ct.module.name.empty() ? ctx.settings().defaultModule : lowerName(ct.module.name);
  if (t->module == "mem") t->module = "memory";
  if (t->module != "memory" && t->module != "store") fail("No virtual table module named '" + ct.module.name + "'");
  t->tags = ct.tags;
  t->keepAlive.push_back(std::move(keep));
  if (!ct.tableOptions.empty()) fail("Table option '" + ct.tableOptions[0] + "' is not supported");
  for (const ast::ContextVarDef& v : ct.contextVars) {
    if (t->findContextVariable(v.name) >= 0) fail("Duplicate mutation context variable: " + v.name);
    t->contextVariables.push_back(ContextVariable{v.name, logicalTypeFromName(v.typeName), v.nullable});
  }

  ConstraintNames names(t->name);
  const UniqueDeclaration declaration{"create table '" + t->name + "'", 0};
  std::set<std::string> seen;
  // Columns first, so table-level constraints can name any of them.
  for (const ast::ColumnDef& cd : ct.columns) {
    if (!seen.insert(lowerName(cd.name)).second) {
      fail("Duplicate column name: " + cd.name);
    }
    t->columns.push_back(buildColumn(ctx, cd, !t->contextVariables.empty()));
  }
  if (t->columns.empty()) fail("Table '" + t->name + "' must have at least one column");

  auto setPrimaryKey = [&](std::vector<KeyColumn> cols, ast::ConflictAction onConflict) {
    if (t->pkDeclared) fail("table \"" + t->name + "\" has more than one primary key");
    t->pkDeclared = true;
    t->primaryKey = std::move(cols);
    t->pkConflict = onConflict;
  };

  for (size_t i = 0; i < ct.columns.size(); ++i) {
    const ast::ColumnDef& cd = ct.columns[i];
    for (const ColumnConstraint& cc : cd.constraints) {
      switch (cc.kind) {
        case ColumnConstraint::Kind::kPrimaryKey: {
          if (cc.autoincrement) fail("AUTOINCREMENT is not supported. Use a DEFAULT expression instead.");
          KeyColumn k{static_cast<int>(i), cc.desc, t->columns[i].collation};
          setPrimaryKey({k}, cc.onConflict);
          break;
        }
        case ColumnConstraint::Kind::kUnique:
          addUnique(*t, names, cc.name, {KeyColumn{static_cast<int>(i), false, t->columns[i].collation}}, cc.onConflict,
                    declaration);
          break;
        case ColumnConstraint::Kind::kCheck:
          addCheck(*t, names, ctx, cc.name, "_check_" + cd.name, *cc.expr, cc.checkOperations, cc.onConflict);
          break;
        case ColumnConstraint::Kind::kReferences:
          addForeignKey(*t, names, cc.name, {static_cast<int>(i)}, *cc.fk);
          break;
        default:
          break;
      }
    }
  }
  int tableChecks = 0;
  for (const TableConstraint& tc : ct.constraints) {
    switch (tc.kind) {
      case TableConstraint::Kind::kPrimaryKey: {
        std::vector<KeyColumn> cols;
        for (const ast::IndexedColumn& ic : tc.columns) cols.push_back(keyColumnFor(*t, ic));
        setPrimaryKey(std::move(cols), tc.onConflict);
        break;
      }
      case TableConstraint::Kind::kUnique: {
        std::vector<KeyColumn> cols;
        for (const ast::IndexedColumn& ic : tc.columns) cols.push_back(keyColumnFor(*t, ic));
        addUnique(*t, names, tc.name, std::move(cols), tc.onConflict, declaration);
        t->indexes.back().tags = tc.tags;
        break;
      }
      case TableConstraint::Kind::kCheck:
        addCheck(*t, names, ctx, tc.name, "_check_" + std::to_string(tableChecks++), *tc.expr, tc.checkOperations,
                 tc.onConflict);
        t->checks.back().tags = tc.tags;
        break;
      case TableConstraint::Kind::kForeignKey: {
        std::vector<int> cols;
        for (const std::string& n : tc.fkColumns) {
          int idx = t->findColumn(n);
          if (idx < 0) fail("Column '" + n + "' not found in table '" + t->name + "'");
          cols.push_back(idx);
        }
        addForeignKey(*t, names, tc.name, std::move(cols), *tc.fk);
        t->foreignKeys.back().tags = tc.tags;
        break;
      }
    }
  }
  if (!t->pkDeclared) {
    // No rowid: the key is every column in declaration order.
    for (size_t i = 0; i < t->columns.size(); ++i) {
      t->primaryKey.push_back(KeyColumn{static_cast<int>(i), false, t->columns[i].collation});
    }
  }
  // Literal defaults convert at declaration time.
  for (ColumnSchema& c : t->columns) {
    if (c.defaultExpr && c.defaultExpr->kind == ast::ExprKind::kLiteral && !c.defaultExpr->value.isNull()) {
      convertForColumn(c.defaultExpr->value, c.type, c.name);
    }
  }
  applyStoreKeyCollation(*t, ct);
  return t;
}

namespace {

std::string targetSchema(Context& ctx, const ast::QualifiedName& name) {
  std::string s = name.schema.empty() ? "main" : lowerName(name.schema);
  if (!ctx.catalog().findSchema(s)) fail("Schema '" + name.schema + "' not found");
  return s;
}

void requireFreeName(Context& ctx, const std::string& schema, const std::string& name) {
  if (ctx.catalog().findTable(schema, name)) fail("Table '" + name + "' already exists");
  if (ctx.catalog().findView(schema, name)) fail("View '" + name + "' already exists");
}

// Adds the view `stmt` declares to `schema` (undo-logged).
void registerView(Context& ctx, std::shared_ptr<const ast::Statement> stmt, const std::string& schema);

}  // namespace

void executeDdl(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  switch (stmt->kind) {
    case ast::StatementKind::kCreateTable: executeCreateTable(ctx, stmt); return;
    case ast::StatementKind::kCreateIndex: executeCreateIndex(ctx, stmt); return;
    case ast::StatementKind::kCreateView:
      if (stmt->createView->materialized) executeCreateMaterializedView(ctx, stmt);
      else executeCreateView(ctx, stmt);
      return;
    case ast::StatementKind::kCreateAssertion: executeCreateAssertion(ctx, stmt); return;
    case ast::StatementKind::kDrop: executeDrop(ctx, *stmt->drop); return;
    case ast::StatementKind::kAlterTable: executeAlterTable(ctx, stmt); return;
    default: fail(ErrorCode::kInternal, "executeDdl: not a DDL statement");
  }
}

void executeCreateTable(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  const ast::CreateTable& ct = *stmt->createTable;
  std::string schema = targetSchema(ctx, ct.name);
  Catalog& cat = ctx.catalog();
  if (cat.findTable(schema, ct.name.name) || cat.findView(schema, ct.name.name)) {
    if (ct.ifNotExists) return;
    requireFreeName(ctx, schema, ct.name.name);
  }
  std::shared_ptr<TableSchema> ts = buildTableSchema(ctx, ct, schema, stmt);
  rejectConflictingFkCollations(ctx, *ts);
  if (ct.maintainedAs) attachDeclaredDerivation(ctx, *ts, ct, stmt);
  auto table = std::make_shared<Table>(ts);
  std::string key = lowerName(ct.name.name);
  cat.schema(schema).tables[key] = table;
  cat.bumpVersion();
  ctx.txn().recordUndo([&cat, schema, key] {
    cat.schema(schema).tables.erase(key);
    cat.bumpVersion();
  });
  // Once registered: a generated column's subquery may read the table itself (its earlier rows).
  validateGeneratedColumns(ctx, *ts);
  if (ts->derivation) fillMaintainedTable(ctx, *table);
}

void executeCreateIndex(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  const ast::CreateIndex& ci = *stmt->createIndex;
  Catalog& cat = ctx.catalog();
  std::string schema = ci.table.schema.empty() ? (ci.name.schema.empty() ? "main" : lowerName(ci.name.schema))
                                               : lowerName(ci.table.schema);
  std::shared_ptr<Table> table = cat.findTable(schema, ci.table.name);
  if (!table) fail("no such table: " + ci.table.name);
  // A UNIQUE constraint's own index takes its name on its own table (though DROP INDEX cannot
  // reach it); it is not a user object in the schema's namespace, so another table may use it.
  std::shared_ptr<Table> owner =
      table->schema().findIndex(ci.name.name) ? table : cat.findIndex(schema, ci.name.name, isStandaloneIndex).first;
  if (owner) {
    // IF NOT EXISTS skips only a same-table duplicate; a same-named index elsewhere is an error.
    if (owner == table) {
      if (ci.ifNotExists) return;
      fail("Index " + ci.name.name + " already exists on table " + table->schema().name);
    }
    fail("Index '" + ci.name.name + "' already exists in schema '" + schema + "' on table '" + owner->schema().name + "'");
  }
  auto ts = std::make_shared<TableSchema>(table->schema());
  IndexSchema ix;
  ix.name = ci.name.name;
  ix.unique = ci.unique;
  ix.where = ci.where.get();
  ix.tags = ci.tags;
  for (const ast::IndexedColumn& ic : ci.columns) ix.columns.push_back(keyColumnFor(*ts, ic));
  if (ci.unique) ix.constraintName = ci.name.name;
  ts->indexes.push_back(std::move(ix));
  ts->keepAlive.push_back(stmt);
  std::shared_ptr<const TableSchema> old = table->schemaPtr();
  auto oldStores = table->indexStores();
  table->setSchema(ts);
  cat.bumpVersion();
  ctx.txn().recordUndo([table, old, oldStores, &cat] {
    table->setSchema(old);
    table->setIndexStores(oldStores);
    cat.bumpVersion();
  });
  size_t i = ts->indexes.size() - 1;
  TableStore store(*table, ctx.txn());
  store.buildIndex(i);
  if (ci.unique) rejectUniqueCollisions(ctx, *ts, ts->indexes[i], readRows(*table));
}

void executeCreateView(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  const ast::CreateView& cv = *stmt->createView;
  if (cv.materialized) fail("not supported yet: materialized views");
  std::string schema = targetSchema(ctx, cv.name);
  Catalog& cat = ctx.catalog();
  if (cat.findTable(schema, cv.name.name) || cat.findView(schema, cv.name.name)) {
    if (cv.ifNotExists) return;
    requireFreeName(ctx, schema, cv.name.name);
  }
  validateViewDefinition(ctx, cv, schema);
  registerView(ctx, stmt, schema);
}

void restoreView(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  if (stmt->kind != ast::StatementKind::kCreateView || stmt->createView->materialized) fail("not a view entry");
  const ast::CreateView& cv = *stmt->createView;
  std::string schema = targetSchema(ctx, cv.name);
  if (ctx.catalog().findTable(schema, cv.name.name) || ctx.catalog().findView(schema, cv.name.name)) {
    fail("the name is taken by an object restored before it");
  }
  registerView(ctx, stmt, schema);
}

namespace {

void registerView(Context& ctx, std::shared_ptr<const ast::Statement> stmt, const std::string& schema) {
  const ast::CreateView& cv = *stmt->createView;
  Catalog& cat = ctx.catalog();
  auto view = std::make_shared<ViewSchema>();
  view->schemaName = schema;
  view->name = cv.name.name;
  view->columnNames = cv.columns;
  view->select = cv.select.get();
  view->defaults = &cv.defaults;
  view->sql = stmt->text;
  view->tags = cv.tags;
  view->keepAlive.push_back(stmt);
  std::string key = lowerName(cv.name.name);
  cat.schema(schema).views[key] = view;
  cat.bumpVersion();
  ctx.txn().recordUndo([&cat, schema, key] {
    cat.schema(schema).views.erase(key);
    cat.bumpVersion();
  });
}

}  // namespace

void executeDrop(Context& ctx, const ast::Drop& drop) {
  Catalog& cat = ctx.catalog();
  std::string schema = drop.name.schema.empty() ? "" : lowerName(drop.name.schema);
  auto findSchemaOf = [&](auto&& has) -> std::string {
    if (!schema.empty()) return has(schema) ? schema : "";
    for (const std::string& s : ctx.searchPath()) if (has(s)) return s;
    return "";
  };
  std::string key = lowerName(drop.name.name);
  switch (drop.kind) {
    case ast::Drop::Kind::kTable: {
      std::string s = findSchemaOf([&](const std::string& sc) { return cat.findTable(sc, drop.name.name) != nullptr; });
      if (s.empty()) {
        if (drop.ifExists) return;
        if (cat.findView(schema.empty() ? "main" : schema, drop.name.name)) fail("Cannot DROP TABLE on view '" + drop.name.name + "': use DROP VIEW");
        fail(ErrorCode::kNotFound, tableNotFoundMessage(cat, drop.name.name,
                                                        schema.empty() ? ctx.searchPath() : std::vector{schema},
                                                        !schema.empty()));
      }
      std::shared_ptr<Table> t = cat.schema(s).tables[key];
      rejectExpressionDependents(ctx, "table", s, t->schema().name);
      rejectReferencingRows(ctx, *t);
      cat.schema(s).tables.erase(key);
      cat.bumpVersion();
      ctx.txn().recordUndo([&cat, s, key, t] {
        cat.schema(s).tables[key] = t;
        cat.bumpVersion();
      });
      return;
    }
    case ast::Drop::Kind::kView: {
      std::string s = findSchemaOf([&](const std::string& sc) { return cat.findView(sc, drop.name.name) != nullptr; });
      if (s.empty()) {
        if (drop.ifExists) return;
        std::shared_ptr<Table> t = cat.findTable(schema.empty() ? "main" : schema, drop.name.name);
        if (t && t->schema().derivation) {
          fail("Cannot DROP VIEW on materialized view '" + drop.name.name + "': use DROP MATERIALIZED VIEW");
        }
        fail("View '" + drop.name.name + "' does not exist");
      }
      auto v = cat.schema(s).views[key];
      rejectExpressionDependents(ctx, "view", s, v->name);
      cat.schema(s).views.erase(key);
      cat.bumpVersion();
      ctx.txn().recordUndo([&cat, s, key, v] {
        cat.schema(s).views[key] = v;
        cat.bumpVersion();
      });
      return;
    }
    case ast::Drop::Kind::kIndex: {
      // A UNIQUE constraint's implicit index belongs to the constraint, not to DROP INDEX.
      std::string s = findSchemaOf(
          [&](const std::string& sc) { return cat.findIndex(sc, drop.name.name, isStandaloneIndex).first != nullptr; });
      if (s.empty()) {
        if (drop.ifExists) return;
        fail("no such index: " + drop.name.name);
      }
      auto [table, idx] = cat.findIndex(s, drop.name.name, isStandaloneIndex);
      auto ts = std::make_shared<TableSchema>(table->schema());
      ts->indexes.erase(ts->indexes.begin() + idx);
      auto stores = table->indexStores();
      auto newStores = stores;
      if (static_cast<size_t>(idx) < newStores.size()) newStores.erase(newStores.begin() + idx);
      std::shared_ptr<const TableSchema> old = table->schemaPtr();
      table->setSchema(ts);
      table->setIndexStores(newStores);
      cat.bumpVersion();
      // DDL is not transactional (10.1.3-ddl-drop-in-transaction): a rollback restores the index
      // so older row undo entries land in it, then drops it again (like ALTER TABLE does).
      Context* eng = &ctx;
      ctx.txn().recordUndo([eng, table = table, old, stores, ts, newStores] {
        table->setSchema(old);
        table->setIndexStores(stores);
        eng->catalog().bumpVersion();
        if (eng->settings().strictDdlTransactions) return;
        eng->txn().afterRollback([eng, table, ts, newStores] {
          table->setSchema(ts);
          table->setIndexStores(newStores);
          eng->catalog().bumpVersion();
        });
      });
      return;
    }
    case ast::Drop::Kind::kMaterializedView:
      executeDropMaterializedView(ctx, drop);
      return;
    case ast::Drop::Kind::kAssertion:
      executeDropAssertion(ctx, drop);
      return;
  }
}

Schema& ensureSchema(Context& ctx, const std::string& key) {
  Catalog& cat = ctx.catalog();
  if (!cat.findSchema(key)) {
    cat.addSchema(key);
    cat.bumpVersion();
    ctx.txn().recordUndo([&cat, key] {
      cat.removeSchema(key);
      cat.bumpVersion();
    });
  }
  return cat.schema(key);
}

}  // namespace optic
