// Resolution of view-like DML targets (write_target.h): the statement's own CTEs first (an
// unqualified name), then the catalog's views through the reader's search path.
#include "core/planner/write_target.h"

#include "core/api/engine.h"
#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/planner/binder.h"

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
  t.recursive = with->recursive;
  return t;
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
  Catalog& cat = binder.engine().catalog();
  std::string schema = binder.resolveTableSchema(name);
  std::shared_ptr<const ViewSchema> view = cat.findView(schema, name.name);
  if (!view || cat.findTable(schema, name.name)) return std::nullopt;
  WriteTarget t;
  t.kind = WriteTarget::Kind::kView;
  t.name = view->name;
  t.alias = alias;
  t.homeSchema = view->schemaName;
  t.body = view->select;
  t.columnNames = view->columnNames;
  t.defaults = view->defaults;
  t.with = with;
  return t;
}

}  // namespace optic
