// query_plan(sql): see query_plan.h. Operators describe themselves (Operator::describe, the
// access path the planner noted on each scan); this file walks the bound tree and lays the
// descriptions out as rows. A write statement is one root row (Insert/Update/Delete, its target
// table) over the plan that finds its rows.
#include "core/ddl/query_plan.h"

#include <cmath>

#include "core/common/error.h"
#include <cctype>
#include "core/execution/context.h"
#include "core/execution/dml.h"
#include "core/parser/parser.h"
#include "core/planner/binder.h"
#include "core/planner/dml_binder.h"

namespace optic {

namespace {

Value textOrNull(const std::string& s) { return s.empty() ? Value() : Value::text(s); }

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

Row planRow(int64_t id, int64_t parent, const PlanDescription& d) {
  Value rows = d.estimatedRows < 0 ? Value() : Value::integer(static_cast<int64_t>(std::llround(d.estimatedRows)));
  return Row{Value::integer(id),
             parent > 0 ? Value::integer(parent) : Value(),
             Value::integer(0),
             Value::text(d.nodeType),
             Value::text(upper(d.nodeType)),
             Value::text(d.detail),
             textOrNull(d.object),
             Value(),
             textOrNull(d.properties),
             Value(),
             Value(),
             std::move(rows)};
}

// Pre-order: a node's row, then each input's subtree in input order.
void walk(const Operator& op, int64_t parent, std::vector<Row>& out) {
  int64_t id = static_cast<int64_t>(out.size()) + 1;
  out.push_back(planRow(id, parent, op.describe()));
  for (const Operator* input : op.inputs()) {
    if (input) walk(*input, id, out);
  }
}

std::string targetName(const ast::QualifiedName& name) {
  return name.schema.empty() ? name.name : name.schema + "." + name.name;
}

// A write: its own row, then the plan that reads the rows it writes (none for a write through a
// view, which is lowered to base-table statements).
void walkWrite(const char* nodeType, const std::string& target, const DmlPlan& plan, std::vector<Row>& out) {
  PlanDescription d;
  d.nodeType = nodeType;
  d.detail = plan.readPlan() ? "writes the rows its input yields" : "writes through the target";
  d.object = target;
  out.push_back(planRow(1, 0, d));
  if (const Operator* input = plan.readPlan()) walk(*input, 1, out);
}

std::vector<Row> queryPlanRows(Args a, FunctionContext& fc) {
  if (fc.ctx == nullptr) fail(ErrorCode::kInternal, "query_plan() called without a database");
  if (!a[0].isText()) fail("query_plan() requires a SQL string argument");
  std::vector<ast::StatementPtr> statements = parseSql(a[0].asText());
  if (statements.size() != 1) fail("query_plan() requires exactly one statement");
  const ast::Statement& st = *statements[0];
  Binder binder(*fc.ctx);
  std::vector<Row> out;
  switch (st.kind) {
    case ast::StatementKind::kSelect: {
      QueryPlan plan = binder.bindQuery(*st.select, nullptr);
      walk(*plan.root, 0, out);
      break;
    }
    case ast::StatementKind::kInsert:
      walkWrite("Insert", targetName(st.insert->table), *bindInsert(binder, *st.insert), out);
      break;
    case ast::StatementKind::kUpdate:
      walkWrite("Update", targetName(st.update->table), *bindUpdate(binder, *st.update), out);
      break;
    case ast::StatementKind::kDelete:
      walkWrite("Delete", targetName(st.del->table), *bindDelete(binder, *st.del), out);
      break;
    default:
      fail("query_plan() explains SELECT, INSERT, UPDATE and DELETE statements");
  }
  return out;
}

}  // namespace

void registerQueryPlanFunction(FunctionRegistry& r) {
  // Not deterministic: the plan follows the schema and its statistics.
  r.addTable({"query_plan", 1, 1, false,
              {"id", "parent_id", "subquery_level", "node_type", "op", "detail", "object_name", "alias", "properties",
               "physical", "est_cost", "est_rows"},
              queryPlanRows});
}

}  // namespace optic
