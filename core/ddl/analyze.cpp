// ANALYZE (analyze.h).
#include "core/ddl/analyze.h"

#include "core/common/error.h"
#include "core/execution/committed_scan.h"
#include "core/planner/binder.h"

namespace optic {

// ANALYZE [t | s.t | s.*]: one {table, rows} row per table (statistics are the row counts).
std::vector<Row> executeAnalyze(Context& ctx, const ast::Analyze& a) {
  Catalog& cat = ctx.catalog();
  std::vector<std::shared_ptr<Table>> tables;
  const ast::QualifiedName& n = a.target;
  auto addSchema = [&](const std::string& schema) {
    for (const auto& [key, t] : cat.schema(schema).tables) tables.push_back(t);
  };
  if (n.name.empty()) {
    for (const auto& [name, schema] : cat.schemas()) addSchema(name);
  } else if (n.name == "*") {
    if (!cat.findSchema(n.schema)) fail("Schema not found: " + n.schema);
    addSchema(lowerName(n.schema));
  } else {
    std::string schema;
    // committed.<name> names the same stored object as <name> through the search path.
    bool committed = isCommittedName(cat, n);
    if (!n.schema.empty() && !committed) {
      schema = lowerName(n.schema);
      if (!cat.findTable(schema, n.name) && !cat.findView(schema, n.name)) {
        throw Error(ErrorCode::kNotFound, "Table not found: " + n.schema + "." + n.name);
      }
    } else {
      ast::QualifiedName unqualified = n;
      unqualified.schema.clear();
      schema = Binder(ctx).resolveTableSchema(unqualified);
    }
    if (cat.findView(schema, n.name)) {
      fail("Cannot ANALYZE view '" + schema + "." + n.name + "': a view has no stored rows to collect statistics from.");
    }
    tables.push_back(cat.findTable(schema, n.name));
  }
  std::vector<Row> rows;
  for (const auto& t : tables) {
    rows.push_back(Row{Value::text(t->schema().name), Value::integer(static_cast<int64_t>(t->rows().size()))});
  }
  return rows;
}

}  // namespace optic
