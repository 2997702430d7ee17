// Operator: the physical, pull-based (Volcano) iterator every plan is made of.
//
// open() binds the operator to a statement's ExecState and, for operators inside a correlated
// subquery, to the enclosing query's current row; next() produces one row at a time; close()
// releases buffers. An operator may be opened again after close() (subqueries re-run per outer
// row). Operators own their children and their expressions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/execution/expression.h"

namespace optic {

// What plan introspection (`query_plan()`, EXPLAIN: docs/query-plan.md) shows of one operator.
struct PlanDescription {
  std::string nodeType;        // "TableScan", "Filter", "HashJoin", …
  std::string detail;          // how it works, e.g. "index t_g range g >= ?"
  std::string object;          // the table it reads ("schema.name"), "" for none
  std::string properties;      // a JSON object of further facts, "" for none
  double estimatedRows = -1;   // negative: not estimated
};

class Operator {
 public:
  virtual ~Operator() = default;
  virtual void open(ExecState& state, const EvalContext* outer) = 0;
  virtual bool next(Row& out) = 0;
  virtual void close() {}
  // Introspection only: this node and its input operators, in input order (left before right).
  virtual PlanDescription describe() const { return {"Operator"}; }
  virtual std::vector<const Operator*> inputs() const { return {}; }
};
using OperatorPtr = std::unique_ptr<Operator>;

// One column of the rows a plan produces (a query's result, a DML statement's RETURNING).
struct OutputColumn {
  std::string name;
  LogicalType type = LogicalType::kAny;
  Collation collation = Collation::kBinary;
  int collationRank = 0;
};

// Runs `op` to completion and returns its rows (used by subqueries, CTEs and DML sources).
std::vector<Row> drain(Operator& op, ExecState& state, const EvalContext* outer);

}  // namespace optic
