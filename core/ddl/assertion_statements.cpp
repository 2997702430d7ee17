// Assertions: create, drop, assertion_info() (assertion.h).
#include "core/ddl/assertion_statements.h"

#include <set>

#include "core/common/error.h"
#include "core/execution/context.h"
#include "core/execution/function_registry.h"
#include "core/parser/printer.h"
#include "core/planner/binder.h"
#include "core/planner/change_scope.h"
#include "core/planner/expr_binder.h"

namespace optic {

namespace {

// The base tables the body reads, `schema.table` lower-cased, in first-reference order.
std::vector<std::string> dependentTables(Context& ctx, const AssertionSchema& a) {
  Binder binder(ctx);
  binder.setHomeSchema(a.schemaName);
  Scope empty;
  ExprBinder(binder, empty).bind(*a.check);
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const TableRead& r : binder.reads().reads()) {
    std::string name = r.table->schema().schemaName + "." + lowerName(r.table->schema().name);
    if (seen.insert(name).second) out.push_back(name);
  }
  return out;
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::vector<Row> assertionInfoRows(Args, FunctionContext& fc) {
  std::vector<Row> rows;
  for (const auto& [schemaName, schema] : fc.ctx->catalog().schemas()) {
    for (const auto& [key, a] : schema.assertions) {
      std::string deps = "[";
      for (const std::string& t : dependentTables(*fc.ctx, *a)) {
        deps += (deps.size() > 1 ? "," : "") + std::string("{\"base\":") + jsonString(t) + "}";
      }
      deps += "]";
      rows.push_back(Row{Value::text(a->schemaName), Value::text(a->name),
                         Value::text("select 1 where not (" + a->checkText + ")"), Value::integer(1), Value::integer(1),
                         Value::text(deps)});
    }
  }
  return rows;
}

}  // namespace


void executeCreateAssertion(Context& ctx, std::shared_ptr<const ast::Statement> stmt) {
  const ast::CreateAssertion& ca = *stmt->createAssertion;
  Catalog& cat = ctx.catalog();
  std::string schema = ca.name.schema.empty() ? "main" : lowerName(ca.name.schema);
  if (!cat.findSchema(schema)) fail("Schema '" + ca.name.schema + "' not found");
  std::string key = lowerName(ca.name.name);
  if (cat.schema(schema).assertions.count(key)) fail("Assertion '" + ca.name.name + "' already exists");
  auto a = std::make_shared<AssertionSchema>();
  a->schemaName = schema;
  a->name = ca.name.name;
  a->check = ca.check.get();
  a->checkText = printExpr(*ca.check);
  a->keepAlive.push_back(stmt);
  try {
    dependentTables(ctx, *a);  // binds the body: unknown tables and columns fail here
  } catch (const Error& e) {
    throw Error(e.code(), "Cannot create assertion '" + ca.name.name + "': " + e.what(), e.line(), e.column());
  }
  cat.schema(schema).assertions[key] = a;
  cat.bumpVersion();
  ctx.txn().recordUndo([&cat, schema, key] {
    if (Schema* s = cat.findSchema(schema)) s->assertions.erase(key);
    cat.bumpVersion();
  });
}

void executeDropAssertion(Context& ctx, const ast::Drop& drop) {
  Catalog& cat = ctx.catalog();
  std::string key = lowerName(drop.name.name);
  std::vector<std::string> candidates;
  if (!drop.name.schema.empty()) candidates.push_back(lowerName(drop.name.schema));
  else candidates = ctx.searchPath();
  for (const std::string& s : candidates) {
    Schema* schema = cat.findSchema(s);
    if (!schema) continue;
    auto it = schema->assertions.find(key);
    if (it == schema->assertions.end()) continue;
    std::shared_ptr<const AssertionSchema> old = it->second;
    schema->assertions.erase(it);
    cat.bumpVersion();
    ctx.txn().recordUndo([&cat, s, key, old] {
      if (Schema* sc = cat.findSchema(s)) sc->assertions[key] = old;
      cat.bumpVersion();
    });
    return;
  }
  if (drop.ifExists) return;
  fail(ErrorCode::kNotFound, "Assertion '" + drop.name.name + "' not found");
}

void registerAssertionFunctions(FunctionRegistry& r) {
  TableFunction f;
  f.name = "assertion_info";
  // test-corpus.md §4 order.
  f.columns = {"schema_name", "name", "violation_sql", "deferrable", "initially_deferred", "dependent_tables"};
  f.impl = assertionInfoRows;
  r.addTable(std::move(f));
}

}  // namespace optic
