// CREATE VIEW validation (view_definition.h).
#include "core/planner/views/view_definition.h"

#include <set>

#include "core/catalog/catalog.h"
#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/planner/binder.h"

namespace optic {
namespace {

void rejectDataModifyingCtes(const ast::Select& s) {
  if (!s.with) return;
  for (const ast::CommonTableExpr& cte : s.with->ctes) {
    if (cte.dml) fail("A view body cannot contain a data-modifying CTE ('" + cte.name + "')");
  }
}

void rejectDuplicateDefaults(const std::vector<ast::ViewColumnDefault>& defaults) {
  std::set<std::string> seen;
  for (const ast::ViewColumnDefault& d : defaults) {
    if (!seen.insert(lowerName(d.column)).second) fail("Duplicate column '" + d.column + "' in WITH DEFAULTS");
  }
}

// The body's output width, or 0 when the body cannot be bound now.
size_t boundWidth(Context& ctx, const ast::Select& body, const std::string& schema) {
  Binder binder(ctx);
  binder.setHomeSchema(schema);
  try {
    return binder.bindQuery(body, nullptr).columns.size();
  } catch (const Error&) {
    return 0;
  }
}

}  // namespace

void validateViewDefinition(Context& ctx, const ast::CreateView& cv, const std::string& schema) {
  if (cv.dmlBody) fail("A data-modifying statement cannot be used as a view body");
  rejectDataModifyingCtes(*cv.select);
  rejectDuplicateDefaults(cv.defaults);
  if (cv.columns.empty()) return;
  size_t width = boundWidth(ctx, *cv.select, schema);
  if (width != 0 && width != cv.columns.size()) {
    fail("View '" + cv.name.name + "' has " + std::to_string(cv.columns.size()) + " declared columns but body produces " +
         std::to_string(width));
  }
}

}  // namespace optic
