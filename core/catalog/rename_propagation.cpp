// Rename propagation into views (rename_propagation.h).
#include "core/catalog/rename_propagation.h"

#include "core/api/engine.h"
#include "core/catalog/materialized_view.h"
#include "core/common/error.h"
#include "core/planner/mv_plan.h"
#include "core/parser/printer.h"
#include "core/parser/ddl_printer.h"
#include "core/parser/parser.h"
#include "core/parser/rename_walk.h"

namespace optic {

namespace {

bool renameIn(ast::Select& body, const std::string& schema, const std::string& home, const std::string& table,
              const ast::AlterTable& at) {
  if (at.action == ast::AlterTable::Action::kRenameTable) return renameTableInSelect(body, schema, home, table, at.newName);
  return renameColumnInSelect(body, schema, home, table, at.column, at.newName);
}

// The view re-read from its own text with the rename applied; null when it does not read the table.
std::shared_ptr<const ViewSchema> renamedView(const ViewSchema& v, const std::string& schema, const std::string& table,
                                              const ast::AlterTable& at) {
  std::vector<ast::StatementPtr> parsed = parseSql(v.sql);
  if (parsed.size() != 1 || !parsed[0]->createView || !parsed[0]->createView->select) return nullptr;
  std::shared_ptr<ast::Statement> stmt(std::move(parsed[0]));
  ast::CreateView& cv = *stmt->createView;
  bool changed = renameIn(*cv.select, schema, v.schemaName, table, at);
  if (at.action == ast::AlterTable::Action::kRenameColumn) {
    // `with defaults (col = …)` names base columns of the view's source.
    std::string source = table;
    for (ast::ViewColumnDefault& d : cv.defaults) {
      if (lowerName(d.column) == lowerName(at.column) && readsTable(*cv.select, schema, v.schemaName, source)) {
        d.column = at.newName;
        changed = true;
      }
    }
  }
  if (!changed) return nullptr;
  auto next = std::make_shared<ViewSchema>(v);
  next->select = cv.select.get();
  next->defaults = &cv.defaults;
  next->sql = printCreateView(cv, "");
  stmt->text = next->sql;
  next->keepAlive = {stmt};
  return next;
}

// A maintained table whose body reads the renamed table gets the renamed body (its rows stay:
// only names changed) and a source signature re-stamped from it.
void renameInDerivation(Engine& engine, const std::shared_ptr<Table>& t, const std::string& schema, const std::string& table,
                        const ast::AlterTable& at) {
  const TableSchema& ts = t->schema();
  const MaterializedView& d = *ts.derivation;
  std::vector<ast::StatementPtr> parsed = parseSql(d.bodyText);
  if (parsed.size() != 1 || !parsed[0]->select) return;
  std::shared_ptr<ast::Statement> stmt(std::move(parsed[0]));
  ast::Select& body = *stmt->select;
  if (!renameIn(body, schema, ts.schemaName, table, at)) return;
  auto next = std::make_shared<MaterializedView>(d);
  next->body = &body;
  next->bodyText = printSelect(body);
  next->keepAlive.push_back(stmt);
  auto nextSchema = std::make_shared<TableSchema>(ts);
  try {
    MvAnalysis a = analyseMaterializedBody(engine, body, ts.schemaName, ts.name, d.columnNames);
    next->sourceSignature = a.sourceSignature;
    // Without a column list the backing columns are named by the body: they follow a renamed
    // source column the body projects.
    if (d.columnNames.empty() && a.columns.size() == ts.columns.size()) {
      for (size_t i = 0; i < a.columns.size(); ++i) nextSchema->columns[i].name = a.columns[i].name;
    }
  } catch (const Error&) {
    // The body no longer plans: the maintainer reports it as stale, as for any broken source.
  }
  nextSchema->derivation = next;
  std::shared_ptr<const TableSchema> old = t->schemaPtr();
  Catalog& cat = engine.catalog();
  t->setSchema(nextSchema);
  cat.bumpVersion();
  Engine* eng = &engine;
  engine.txn().recordUndo([eng, t, old, &cat] {
    if (!eng->settings().strictDdlTransactions) return;  // the ALTER itself stays (alter.cpp)
    t->setSchema(old);
    cat.bumpVersion();
  });
}

}  // namespace

void propagateRenameToViews(Engine& engine, const std::string& schema, const std::string& table,
                            const ast::AlterTable& at) {
  using Action = ast::AlterTable::Action;
  if (at.action != Action::kRenameTable && at.action != Action::kRenameColumn) return;
  Catalog& cat = engine.catalog();
  for (const auto& [schemaName, s] : cat.schemas()) {
    for (const auto& [key, t] : s.tables) {
      if (t->schema().derivation) renameInDerivation(engine, t, schema, table, at);
    }
    for (const auto& [key, view] : s.views) {
      std::shared_ptr<const ViewSchema> next = renamedView(*view, schema, table, at);
      if (!next) continue;
      std::shared_ptr<const ViewSchema> old = view;
      std::string sk = schemaName, vk = key;
      cat.schema(sk).views[vk] = next;
      cat.bumpVersion();
      Engine* eng = &engine;
      engine.txn().recordUndo([eng, &cat, sk, vk, old] {
        if (!eng->settings().strictDdlTransactions) return;  // the ALTER itself stays (alter.cpp)
        cat.schema(sk).views[vk] = old;
        cat.bumpVersion();
      });
    }
  }
}

}  // namespace optic
