// Materialized-view DDL (materialized_view.h).
#include "core/ddl/materialized_view_statements.h"

#include <algorithm>
#include <optional>
#include <set>

#include "core/catalog/canonical_ddl.h"
#include "core/catalog/store_layout.h"
#include "core/ddl/ddl.h"
#include "core/catalog/table_store.h"
#include "core/common/error.h"
#include "core/ddl/declared_shape.h"
#include "core/ddl/drop_guard.h"
#include "core/execution/context.h"
#include "core/maintenance/mv_maintenance.h"
#include "core/parser/printer.h"
#include "core/planner/mv_plan.h"
#include "core/storage/row_codec.h"

namespace optic {
namespace {

std::string targetSchemaOf(Context& ctx, const ast::QualifiedName& name) {
  std::string s = name.schema.empty() ? "main" : lowerName(name.schema);
  if (!ctx.catalog().findSchema(s)) fail("Schema '" + name.schema + "' not found");
  return s;
}

std::string moduleOf(Context& ctx, const ast::ModuleRef& m) {
  std::string module = m.name.empty() ? ctx.settings().defaultModule : lowerName(m.name);
  if (module == "mem") module = "memory";
  if (module != "memory" && module != "store") fail("No virtual table module named '" + m.name + "'");
  return module;
}

std::shared_ptr<MaterializedView> derivationOf(const ast::Select& body, const std::vector<std::string>& names,
                                               const std::vector<ast::ViewColumnDefault>* defaults,
                                               std::shared_ptr<const ast::Statement> stmt) {
  auto d = std::make_shared<MaterializedView>();
  d->body = &body;
  d->bodyText = printSelect(body);
  d->columnNames = names;
  d->defaults = defaults;
  d->keepAlive.push_back(std::move(stmt));
  return d;
}

void registerTable(Context& ctx, const std::shared_ptr<Table>& table) {
  Catalog& cat = ctx.catalog();
  std::string schema = table->schema().schemaName;
  std::string key = lowerName(table->schema().name);
  cat.schema(schema).tables[key] = table;
  cat.bumpVersion();
  ctx.txn().recordUndo([&cat, schema, key] {
    cat.schema(schema).tables.erase(key);
    cat.bumpVersion();
  });
}

void swapSchema(Context& ctx, const std::shared_ptr<Table>& table, std::shared_ptr<const TableSchema> next) {
  Catalog& cat = ctx.catalog();
  std::shared_ptr<const TableSchema> old = table->schemaPtr();
  table->setSchema(std::move(next));
  cat.bumpVersion();
  ctx.txn().recordUndo([table, old, &cat] {
    table->setSchema(old);
    cat.bumpVersion();
  });
}

void checkColumnCount(const TableSchema& ts, const MvAnalysis& a) {
  if (a.columns.size() == ts.columns.size()) return;
  fail("maintained table '" + ts.schemaName + "." + ts.name + "': body produces " + std::to_string(a.columns.size()) +
       " columns but the table declares " + std::to_string(ts.columns.size()));
}

[[noreturn]] void failIncompatible(const TableSchema& ts) {
  fail("the derivation's output shape changed incompatibly with table '" + ts.name +
       "'; detach it (alter table … drop maintained), reshape it and re-attach, or drop and recreate it");
}

// ALTER TABLE … SET MAINTAINED reshapes the table in place to the body's output when that is
// expressible (views.md §3.2): a column whose name differs is relabeled, trailing body columns
// are appended with the body's attributes. A name that moves to another position (a reorder)
// or a different key is not expressible. Types, nullability and collations are then checked
// component by component as for the declared form.
std::shared_ptr<TableSchema> reshapedForBody(const TableSchema& ts, const MvAnalysis& a) {
  for (const ColumnSchema& c : ts.columns) {
    if (c.generated) fail("maintained table '" + ts.schemaName + "." + ts.name + "': column '" + c.name +
                          "' is generated; a maintained table's columns are derived");
  }
  auto next = std::make_shared<TableSchema>(ts);
  for (size_t i = 0; i < ts.columns.size(); ++i) {
    const std::string& want = a.columns[i].name;
    if (lowerName(ts.columns[i].name) == lowerName(want)) continue;
    int elsewhere = ts.findColumn(want);
    if (elsewhere >= 0 && static_cast<size_t>(elsewhere) != i) failIncompatible(ts);
    next->columns[i].name = want;
  }
  for (size_t i = ts.columns.size(); i < a.columns.size(); ++i) {
    if (next->findColumn(a.columns[i].name) >= 0) failIncompatible(ts);
    ColumnSchema col;
    col.name = a.columns[i].name;
    col.type = a.columns[i].type;
    col.notNull = a.columns[i].notNull;
    col.collation = a.columns[i].collation;
    col.collationDeclared = col.collation != Collation::kBinary;
    next->columns.push_back(col);
  }
  bool sameKey = a.physicalKey.size() == ts.primaryKey.size();
  for (size_t i = 0; sameKey && i < ts.primaryKey.size(); ++i) sameKey = ts.primaryKey[i].column == a.physicalKey[i].column;
  if (!sameKey) failIncompatible(ts);
  return next;
}

// Removes every row (undo-logged): before a reshape changes the row layout.
void eraseAllRows(Context& ctx, Table& t) {
  std::vector<std::pair<std::string, Row>> rows;
  auto it = t.rows().newIterator();
  for (it->seekToFirst(); it->valid(); it->next()) rows.emplace_back(std::string(it->key()), decodeRow(it->value()));
  TableStore store(t, ctx.txn());
  for (auto& [pk, row] : rows) store.erase(pk, row);
}

// A derivation must not reach the table it maintains, directly or through other derivations.
void rejectCycle(Context& ctx, const TableSchema& ts, const MvAnalysis& a) {
  std::string self = ts.schemaName + "." + lowerName(ts.name);
  std::vector<std::string> work = a.sources;
  std::set<std::string> seen;
  while (!work.empty()) {
    std::string s = work.back();
    work.pop_back();
    if (s == self) fail("maintained table '" + ts.name + "' cannot derive from itself: derivation cycle");
    if (!seen.insert(s).second) continue;
    size_t dot = s.find('.');
    std::shared_ptr<Table> t = ctx.catalog().findTable(s.substr(0, dot), s.substr(dot + 1));
    if (!t || !t->schema().derivation) continue;
    try {
      const std::vector<int> anyKey;  // only the sources matter
      MvAnalysis inner = analyseMaterializedBody(ctx, *t->schema().derivation->body, t->schema().schemaName,
                                                 t->schema().name, {}, &anyKey);
      work.insert(work.end(), inner.sources.begin(), inner.sources.end());
    } catch (const Error&) {
    }
  }
}

std::shared_ptr<Table> findMaintained(Context& ctx, const ast::QualifiedName& name, bool* isPlainTable) {
  Catalog& cat = ctx.catalog();
  std::vector<std::string> path;
  if (!name.schema.empty()) path.push_back(lowerName(name.schema));
  else path = ctx.searchPath();
  for (const std::string& s : path) {
    if (std::shared_ptr<Table> t = cat.findTable(s, name.name)) {
      if (t->schema().derivation) return t;
      if (isPlainTable) *isPlainTable = true;
      return nullptr;
    }
  }
  return nullptr;
}

// DROP of a stored materialized view that could not be restored on open (Schema::unrestored):
// forgotten, so its entry leaves the store with the commit.
bool forgetUnrestored(Context& ctx, const ast::QualifiedName& name) {
  std::vector<std::string> path;
  if (!name.schema.empty()) path.push_back(lowerName(name.schema));
  else path = ctx.searchPath();
  for (const std::string& s : path) {
    Schema* schema = ctx.catalog().findSchema(s);
    auto it = schema ? schema->unrestored.find(lowerName(name.name)) : std::map<std::string, std::string>::iterator{};
    if (!schema || it == schema->unrestored.end()) continue;
    std::pair<std::string, std::string> entry = *it;
    schema->unrestored.erase(it);
    ctx.catalog().bumpVersion();
    Catalog& cat = ctx.catalog();
    ctx.txn().recordUndo([&cat, s, entry] {
      cat.schema(s).unrestored.insert(entry);
      cat.bumpVersion();
    });
    return true;
  }
  return false;
}

}  // namespace

namespace {

// The materialized view `create or replace` replaces (taken out of the catalog, undo-logged), or
// null when the name is free. Anything else holding the name is an error.
std::shared_ptr<Table> takeReplacedView(Context& ctx, const ast::CreateView& cv, const std::string& schema) {
  Catalog& cat = ctx.catalog();
  std::shared_ptr<Table> t = cat.findTable(schema, cv.name.name);
  if (!t && !cat.findView(schema, cv.name.name)) return nullptr;
  if (!cv.orReplace) fail("Table '" + cv.name.name + "' already exists");
  if (!t || !t->schema().derivation) fail("'" + cv.name.name + "' is not a materialized view");
  std::string key = lowerName(t->schema().name);
  cat.schema(schema).tables.erase(key);
  cat.bumpVersion();
  ctx.txn().recordUndo([&cat, schema, key, t] {
    cat.schema(schema).tables[key] = t;
    cat.bumpVersion();
  });
  return t;
}

// The maintained table of an MV without a declared schema: every attribute inferred from the body.
std::shared_ptr<TableSchema> inferredTable(const MvAnalysis& a) {
  auto ts = std::make_shared<TableSchema>();
  for (const MvColumn& c : a.columns) {
    ColumnSchema col;
    col.name = c.name;
    col.type = c.type;
    col.notNull = c.notNull;
    col.collation = c.collation;
    col.collationDeclared = c.collation != Collation::kBinary;
    ts->columns.push_back(col);
  }
  ts->primaryKey = a.physicalKey;
  ts->pkDeclared = true;
  return ts;
}

}  // namespace

void executeCreateMaterializedView(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  const ast::CreateView& cv = *stmt->createView;
  std::string schema = targetSchemaOf(ctx, cv.name);
  Catalog& cat = ctx.catalog();
  if (cv.ifNotExists && (cat.findTable(schema, cv.name.name) || cat.findView(schema, cv.name.name))) return;
  std::shared_ptr<Table> replaced = takeReplacedView(ctx, cv, schema);
  // The declared schema: written, or inherited by a replacement that writes no column list.
  std::optional<DeclaredMvSchema> declared;
  if (cv.declared) declared = declaredFromDefinitions(ctx, cv, schema, stmt);
  else if (replaced && cv.columns.empty() && replaced->schema().derivation->schemaDeclared)
    declared = declaredFromTarget(replaced->schema(), stmt);
  std::vector<std::string> names = declared ? declared->names() : cv.columns;
  bool restoring = ctx.settings().restoringCatalog;
  const std::vector<int>* fallbackKey = declared && restoring ? declared->primaryKey() : nullptr;
  MvAnalysis a = analyseMaterializedBody(ctx, *cv.select, schema, cv.name.name, names, fallbackKey);
  auto d = derivationOf(*cv.select, names, &cv.defaults, stmt);
  d->columnListDeclared = !names.empty();
  d->sourceSignature = a.sourceSignature;
  std::shared_ptr<TableSchema> ts;
  if (declared) {
    d->unconfirmedKeys = applyDeclaredSchema(*declared, a, restoring);
    d->schemaDeclared = true;
    d->declaredKeys = declared->keys;
    ts = declared->table;
  } else {
    ts = inferredTable(a);
  }
  ts->schemaName = schema;
  ts->name = cv.name.name;
  ts->module = moduleOf(ctx, cv.module);
  ts->tags = cv.tags;
  ts->keepAlive.push_back(stmt);
  ts->derivation = d;
  auto table = std::make_shared<Table>(ts);
  registerTable(ctx, table);
  fillMaintainedTable(ctx, *table);
}

void attachDeclaredDerivation(Context& ctx, TableSchema& ts, const ast::CreateTable& ct,
                              std::shared_ptr<const ast::Statement> stmt) {
  MvAnalysis a = analyseMaterializedBody(ctx, *ct.maintainedAs, ts.schemaName, ts.name, {});
  if (!ct.maintainedNames.empty() && ct.maintainedNames.size() != a.columns.size()) {
    fail("maintained table '" + ts.name + "': rename list declares " + std::to_string(ct.maintainedNames.size()) +
         " columns but the body produces " + std::to_string(a.columns.size()));
  }
  for (size_t i = 0; i < ct.maintainedNames.size(); ++i) a.columns[i].name = ct.maintainedNames[i];
  checkDeclaredShape(ts, a, false, ShapeContract::kExact);
  auto d = derivationOf(*ct.maintainedAs, ct.maintainedNames, &ct.maintainedAs->defaults, std::move(stmt));
  d->tableForm = true;
  d->sourceSignature = a.sourceSignature;
  ts.derivation = d;
}

void fillMaintainedTable(Context& ctx, Table& table) {
  if (ctx.settings().restoringCatalog) table.setNeedsRefill(true);  // adopted or refilled by the caller
  else ctx.maintenance().rebuild(table, true);
}

namespace {

// The lower-case schema and name a stored maintained-table entry declares.
std::pair<std::string, std::string> declaredName(const ast::Statement& stmt) {
  const ast::QualifiedName& n = stmt.kind == ast::StatementKind::kCreateView ? stmt.createView->name : stmt.createTable->name;
  return {n.schema.empty() ? "main" : lowerName(n.schema), lowerName(n.name)};
}

bool isMaintainedTableEntry(const ast::Statement& stmt) {
  if (stmt.kind == ast::StatementKind::kCreateView) return stmt.createView->materialized;
  return stmt.kind == ast::StatementKind::kCreateTable && stmt.createTable->maintainedAs;
}

// `backing` (the plain table hydrated from the store) becomes the maintained table `declared`:
// its rows and indexes stay, the declared derivation, tags and key come with the schema.
void adoptBacking(Catalog& cat, const std::shared_ptr<Table>& backing, const Table& declared) {
  auto schema = std::make_shared<TableSchema>(declared.schema());
  schema->indexes = backing->schema().indexes;
  backing->setSchema(std::move(schema));
  cat.schema(backing->schema().schemaName).tables[lowerName(backing->schema().name)] = backing;
  cat.bumpVersion();
}

}  // namespace

RestoredMaterializedView restoreMaterializedView(Context& ctx, std::shared_ptr<const ast::Statement> stmt,
                                                 bool trusted) {
  if (!isMaintainedTableEntry(*stmt)) fail("not a materialized-view entry");
  auto [schema, key] = declaredName(*stmt);
  Catalog& cat = ctx.catalog();
  Schema* s = cat.findSchema(schema);
  std::shared_ptr<Table> backing;
  if (s) {
    auto it = s->tables.find(key);
    if (it != s->tables.end()) {
      if (it->second->schema().derivation) fail("a materialized view of that name was already restored");
      backing = it->second;
      s->tables.erase(it);  // the declaration below must not find the name taken
      cat.bumpVersion();
    }
  }
  Settings saved = ctx.settings();
  ctx.settings().restoringCatalog = true;
  try {
    if (stmt->kind == ast::StatementKind::kCreateView) executeCreateMaterializedView(ctx, stmt);
    else executeCreateTable(ctx, stmt);
  } catch (...) {
    ctx.settings() = saved;
    if (backing) cat.schema(schema).tables[key] = backing;
    cat.bumpVersion();
    throw;
  }
  ctx.settings() = saved;
  std::shared_ptr<Table> declared = cat.findTable(schema, key);
  RestoredMaterializedView out;
  out.table = declared;
  // Same shape (columns, key, module, constraints, tags): the stored rows are the backing's.
  if (backing && isPersistedTable(backing->schema()) &&
      tableDdl(backing->schema(), DdlStyle::kStore) == tableDdl(declared->schema(), DdlStyle::kStore)) {
    adoptBacking(cat, backing, *declared);
    backing->setNeedsRefill(!trusted);
    out.table = backing;
    out.keptRows = true;
  }
  return out;
}

namespace {

const std::vector<int>* declaredPrimaryKey(const MaterializedView& d) {
  return !d.declaredKeys.empty() && d.declaredKeys.front().primary ? &d.declaredKeys.front().columns : nullptr;
}

// REFRESH of a view with a declared schema: the schema stays as declared (never reshaped to the
// body); the body must still satisfy it, and the backing is re-keyed when the body's key moved.
void refreshDeclared(Context& ctx, const std::shared_ptr<Table>& t) {
  const TableSchema& ts = t->schema();
  const MaterializedView& d = *ts.derivation;
  MvAnalysis a = analyseMaterializedBody(ctx, *d.body, ts.schemaName, ts.name, d.columnNames, declaredPrimaryKey(d));
  checkDeclaredShape(ts, a, true, ShapeContract::kAssignment);
  bool sameKey = a.physicalKey.size() == ts.primaryKey.size();
  for (size_t i = 0; sameKey && i < ts.primaryKey.size(); ++i) sameKey = ts.primaryKey[i].column == a.physicalKey[i].column;
  if (!sameKey || d.sourceSignature != a.sourceSignature) {
    auto next = std::make_shared<TableSchema>(ts);
    auto nextDerivation = std::make_shared<MaterializedView>(d);
    nextDerivation->sourceSignature = a.sourceSignature;
    nextDerivation->unconfirmedKeys = unconfirmedKeys(ts, a);
    next->derivation = nextDerivation;
    next->primaryKey = a.physicalKey;
    if (!sameKey) eraseAllRows(ctx, *t);
    swapSchema(ctx, t, next);
  }
  ctx.maintenance().rebuild(*t, true);
}

}  // namespace

void executeRefreshMaterializedView(Context& ctx, const ast::RefreshMaterializedView& r) {
  bool plain = false;
  std::shared_ptr<Table> t = findMaintained(ctx, r.name, &plain);
  if (!t) {
    if (plain) fail("'" + r.name.name + "' is not a materialized view");
    fail("no such materialized view: " + r.name.name);
  }
  const TableSchema& ts = t->schema();
  const MaterializedView& d = *ts.derivation;
  if (d.schemaDeclared) {
    refreshDeclared(ctx, t);
    return;
  }
  MvAnalysis a = analyseMaterializedBody(ctx, *d.body, ts.schemaName, ts.name, {});
  const std::string who = "materialized view '" + ts.name + "'";
  if (d.columnListDeclared && a.columns.size() != d.columnNames.size()) {
    fail(who + " declares " + std::to_string(d.columnNames.size()) + " columns but its body now produces " +
         std::to_string(a.columns.size()) + "; drop and recreate it");
  }
  for (size_t i = 0; i < d.columnNames.size() && i < a.columns.size(); ++i) a.columns[i].name = d.columnNames[i];
  // In-place reshape: the current columns must be a prefix of the new shape, key unchanged.
  bool prefix = a.columns.size() >= ts.columns.size() && a.physicalKey.size() == ts.primaryKey.size();
  for (size_t i = 0; prefix && i < ts.columns.size(); ++i) {
    prefix = lowerName(ts.columns[i].name) == lowerName(a.columns[i].name);
  }
  for (size_t i = 0; prefix && i < ts.primaryKey.size(); ++i) prefix = ts.primaryKey[i].column == a.physicalKey[i].column;
  if (!prefix) failIncompatible(ts);
  bool reshape = a.columns.size() > ts.columns.size() || d.sourceSignature != a.sourceSignature;
  for (size_t i = 0; i < ts.columns.size(); ++i) reshape = reshape || ts.columns[i].type != a.columns[i].type;
  if (reshape) {
    auto next = std::make_shared<TableSchema>(ts);
    auto nextDerivation = std::make_shared<MaterializedView>(d);
    nextDerivation->sourceSignature = a.sourceSignature;
    next->derivation = nextDerivation;
    for (size_t i = 0; i < a.columns.size(); ++i) {
      if (i < next->columns.size()) {
        next->columns[i].type = a.columns[i].type;
        next->columns[i].notNull = a.columns[i].notNull;
        continue;
      }
      ColumnSchema col;
      col.name = a.columns[i].name;
      col.type = a.columns[i].type;
      col.notNull = false;
      col.collation = a.columns[i].collation;
      next->columns.push_back(col);
    }
    // The rebuild refills the reshaped backing; the old-shape rows go first.
    eraseAllRows(ctx, *t);
    swapSchema(ctx, t, next);
  }
  ctx.maintenance().rebuild(*t, true);
}

void executeDropMaterializedView(Context& ctx, const ast::Drop& drop) {
  bool plain = false;
  std::shared_ptr<Table> t = findMaintained(ctx, drop.name, &plain);
  if (!t && !plain && forgetUnrestored(ctx, drop.name)) return;
  if (!t) {
    if (plain) fail("'" + drop.name.name + "' is not a materialized view");
    if (drop.ifExists) return;
    fail("no such materialized view: " + drop.name.name);
  }
  Catalog& cat = ctx.catalog();
  std::string s = t->schema().schemaName;
  std::string key = lowerName(t->schema().name);
  rejectExpressionDependents(ctx, "materialized view", s, t->schema().name);
  cat.schema(s).tables.erase(key);
  cat.bumpVersion();
  ctx.txn().recordUndo([&cat, s, key, t] {
    cat.schema(s).tables[key] = t;
    cat.bumpVersion();
  });
}

bool executeAlterMaintained(Context& ctx, std::shared_ptr<const ast::Statement> stmt,
                            const std::shared_ptr<Table>& table) {
  using Action = ast::AlterTable::Action;
  const ast::AlterTable& at = *stmt->alterTable;
  const TableSchema& ts = table->schema();
  switch (at.action) {
    case Action::kDropMaintained: {
      if (!ts.derivation) fail("'" + ts.name + "' is not a maintained table");
      auto next = std::make_shared<TableSchema>(ts);
      next->derivation = nullptr;
      swapSchema(ctx, table, next);
      return true;
    }
    case Action::kSetMaintained: {
      if (!at.maintainedAs) fail("ALTER TABLE … SET MAINTAINED AS needs a query (a DML body cannot be used as a view body)");
      MvAnalysis a = analyseMaterializedBody(ctx, *at.maintainedAs, ts.schemaName, ts.name, {});
      if (!at.maintainedNames.empty() && at.maintainedNames.size() != a.columns.size()) {
        fail("maintained table '" + ts.name + "': rename list declares " + std::to_string(at.maintainedNames.size()) +
             " columns but the body produces " + std::to_string(a.columns.size()));
      }
      for (size_t i = 0; i < at.maintainedNames.size(); ++i) a.columns[i].name = at.maintainedNames[i];
      rejectCycle(ctx, ts, a);
      // An explicit rename list pins the arity: a count drift is the strict shape error.
      if (!at.maintainedNames.empty() || a.columns.size() < ts.columns.size()) checkColumnCount(ts, a);
      std::shared_ptr<TableSchema> next = reshapedForBody(ts, a);
      checkDeclaredShape(*next, a, false);
      auto d = derivationOf(*at.maintainedAs, at.maintainedNames, &at.maintainedAs->defaults, stmt);
      d->tableForm = true;
      d->sourceSignature = a.sourceSignature;
      next->derivation = d;
      next->keepAlive.push_back(stmt);
      // Appended columns change the row layout: the old rows go first (derived content wins).
      if (next->columns.size() != ts.columns.size()) eraseAllRows(ctx, *table);
      swapSchema(ctx, table, next);
      ctx.maintenance().rebuild(*table, true);
      return true;
    }
    case Action::kRenameTable:
      return false;
    case Action::kAddConstraint:
    case Action::kDropConstraint:
      // A constraint leaves the shape alone: like one declared at CREATE, it checks the rows
      // maintenance derives into the table (BackingWriter), and ADD validates the rows it holds.
      return false;
    case Action::kSetTags:
      if (ts.derivation) fail("'" + ts.name + "' is a materialized view: use ALTER MATERIALIZED VIEW … SET TAGS");
      return false;
    default:
      if (ts.derivation) {
        fail("cannot alter the shape of '" + ts.name +
             "': it is a materialized view (its shape is defined by its body; drop maintained first)");
      }
      return false;
  }
}


}  // namespace optic
