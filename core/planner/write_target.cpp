// Resolution of view-like DML targets (write_target.h): the statement's own CTEs first (an
// unqualified name), then the catalog's views through the reader's search path.
#include "core/planner/write_target.h"

#include "core/catalog/catalog.h"
#include "core/catalog/materialized_view.h"
#include "core/catalog/reserved_tags.h"
#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/planner/binder.h"
#include "core/planner/recursive_cte.h"

namespace optic {
namespace {

const ast::CommonTableExpr* findStatementCte(const ast::WithClause* with, const std::string& name) {
  if (!with) return nullptr;
  for (const ast::CommonTableExpr& cte : with->ctes) {
    if (lowerName(cte.name) == lowerName(name)) return &cte;
  }
  return nullptr;
}

WriteTarget cteTarget(const ast::CommonTableExpr& cte, const std::string& alias, const ast::WithClause* with) {
  WriteTarget t;
  t.kind = WriteTarget::Kind::kCte;
  t.name = cte.name;
  t.alias = alias;
  t.body = cte.select.get();
  t.columnNames = cte.columns;
  t.defaults = cte.select ? &cte.select->defaults : nullptr;
  t.with = with;
  t.cte = &cte;
  t.recursive = with->recursive && cte.select && hasRecursiveStep(cte);
  return t;
}

// A FROM item of `body` (outside subqueries) that names a maintained table.
bool readsMaintainedTable(Binder& binder, const ast::FromItem* f) {
  if (!f) return false;
  if (f->kind == ast::FromItem::Kind::kJoin) return readsMaintainedTable(binder, f->left.get()) || readsMaintainedTable(binder, f->right.get());
  if (f->kind == ast::FromItem::Kind::kSubquery) return f->select && readsMaintainedTable(binder, f->select->from.get());
  if (f->kind != ast::FromItem::Kind::kTable) return false;
  Catalog& cat = binder.ctx().catalog();
  std::shared_ptr<Table> t = cat.findTable(binder.resolveTableSchema(f->table), f->table.name);
  return t && t->schema().derivation;
}

// Writing through a body that reads a maintained table would write that table directly; a
// maintained table writes through only to base tables its body reads directly.
void rejectMaintainedSource(Binder& binder, const WriteTarget& t) {
  if (!t.body) return;
  if (t.materialized && t.body->from && t.body->from->kind == ast::FromItem::Kind::kSubquery) {
    fail("cannot write through materialized view '" + t.name + "': its body reads a subquery, not a base table");
  }
  // A stored view's body names its tables from the view's home schema, not the reader's path.
  Binder home(binder.ctx());
  home.setHomeSchema(t.homeSchema);
  if (!readsMaintainedTable(t.homeSchema.empty() ? binder : home, t.body->from.get())) return;
  fail(std::string("cannot write through ") + (t.materialized ? "materialized view '" : "view '") + t.name +
       "': its body reads a materialized view");
}

}  // namespace

std::optional<WriteTarget> resolveWriteTarget(Binder& binder, const ast::QualifiedName& name,
                                              const std::string& alias, const ast::WithClause* with,
                                              const ast::Select* inlineBody,
                                              const std::vector<std::string>& inlineColumns) {
  if (inlineBody) {
    WriteTarget t;
    t.kind = WriteTarget::Kind::kSubquery;
    t.name = alias;
    t.body = inlineBody;
    t.columnNames = inlineColumns;
    t.defaults = &inlineBody->defaults;
    t.with = with;
    return t;
  }
  if (name.schema.empty()) {
    if (const ast::CommonTableExpr* cte = findStatementCte(with, name.name)) return cteTarget(*cte, alias, with);
  }
  Catalog& cat = binder.ctx().catalog();
  std::string schema = binder.resolveTableSchema(name);
  if (std::shared_ptr<Table> table = cat.findTable(schema, name.name)) {
    // A maintained table: DML on it writes its source through the body (views.md §3.5).
    const TableSchema& ts = table->schema();
    if (!ts.derivation) return std::nullopt;
    WriteTarget t;
    t.kind = WriteTarget::Kind::kView;
    t.name = ts.name;
    t.alias = alias;
    t.homeSchema = ts.schemaName;
    t.body = ts.derivation->body;
    for (const ColumnSchema& c : ts.columns) t.columnNames.push_back(c.name);
    t.defaults = ts.derivation->defaults;
    t.with = with;
    t.materialized = true;
    rejectMaintainedSource(binder, t);
    return t;
  }
  std::shared_ptr<const ViewSchema> view = cat.findView(schema, name.name);
  if (!view) return std::nullopt;
  // CREATE VIEW keeps its tags as written; a key the reserved namespace does not know (a retired
  // quereus.update.* routing key, say) fails the write instead of being silently ignored.
  validateReservedTags(view->tags);
  WriteTarget t;
  t.kind = WriteTarget::Kind::kView;
  t.name = view->name;
  t.alias = alias;
  t.homeSchema = view->schemaName;
  t.body = view->select;
  t.columnNames = view->columnNames;
  t.defaults = view->defaults;
  t.with = with;
  rejectMaintainedSource(binder, t);
  return t;
}

}  // namespace optic
