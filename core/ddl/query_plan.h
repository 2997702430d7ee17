// Plan introspection: `query_plan(sql)`, the table-valued function behind `EXPLAIN` and
// `EXPLAIN QUERY PLAN` (docs/query-plan.md).
//
// It parses one statement, binds it exactly as running it would (same access-path choice, same
// settings, `pragma use_indexes` included) and returns one row per operator of the bound plan,
// parents before children (pre-order), without running the statement. Column names follow the
// reference's `query_plan`: id, parent_id, subquery_level, node_type, op, detail, object_name,
// alias, properties, physical, est_cost, est_rows.
#pragma once

#include "core/execution/function_registry.h"

namespace optic {

void registerQueryPlanFunction(FunctionRegistry& r);

}  // namespace optic
