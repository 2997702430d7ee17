// Bound expressions: the executable form of an AST expression, produced by the binder.
//
// Column references are resolved to (depth, index): depth 0 reads the current row, depth d the
// row of the d-th enclosing query (correlated subqueries). Evaluation never allocates on the
// common paths beyond the Values it returns. Three-valued logic: a NULL Value is SQL NULL;
// predicates return Value::boolean or NULL.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/common/collation.h"
#include "core/common/logical_type.h"
#include "core/common/value.h"
#include "core/execution/function_registry.h"

namespace optic {

class Context;

// Statement-wide execution state: parameters, function context, the engine.
struct ExecState {
  Context* ctx = nullptr;
  const std::vector<Value>* params = nullptr;  // slot i (1-based) at index i-1
  FunctionContext fn;
  uint64_t runId = 0;  // distinct per execution; uncorrelated subquery caches key on it
};

// The execution state of a plan the engine runs on its own behalf (maintenance, create-time body
// checks): a fresh run id, the engine's random state, `params` as the plan's parameter slots.
ExecState engineExecState(Context& ctx, const std::vector<Value>* params);

struct EvalContext {
  const Row* row = nullptr;
  const EvalContext* outer = nullptr;
  ExecState* exec = nullptr;
};

class BoundExpr {
 public:
  virtual ~BoundExpr() = default;
  virtual Value eval(const EvalContext& ctx) const = 0;
  // True when the expression reads no row of the current query level (so a plan may evaluate it
  // once); the binder sets it.
  bool constant = false;
  // True when it reads a column of an enclosing query (depth > 0).
  bool correlated = false;
  bool deterministic = true;
  LogicalType type = LogicalType::kAny;
  Collation collation = Collation::kBinary;
  int collationRank = 0;  // 3 explicit COLLATE, 2 declared on a column, 1 defaulted, 0 none
};
using BoundExprPtr = std::unique_ptr<BoundExpr>;

// Leaf constructors the binder and the DML executor use directly.
BoundExprPtr makeLiteral(Value v);
BoundExprPtr makeColumnRef(int depth, int index, LogicalType type);

// Evaluates a predicate for WHERE/ON/HAVING/CHECK: NULL and false are both "not true".
bool isTrue(const Value& v);

// SQL comparison of two values after the dialect's cross-category coercion (sql-core.md §1.9):
// nullopt when either side is NULL.
std::optional<int> sqlCompare(const Value& a, const Value& b, Collation c);
// Numbers and booleans: the category sqlCompare converts text toward.
bool isNumberLike(const Value& v);
// What `v` becomes when sqlCompare compares it with `like` (text toward a number or JSON, else
// `v` itself): an access path encodes a probe's key from it.
Value comparisonOperand(const Value& v, const Value& like);

// `e` wrapped to evaluate to its comparand under `semantic` (semanticComparand; `e` is typed
// when its static type is `semantic`). Comparisons, sort keys and join keys over a JSON or
// TIMESPAN operand compare these.
BoundExprPtr asComparand(BoundExprPtr e, LogicalType semantic);
// A sort or grouping key: `e` itself, or its comparand when its type has a semantic ordering.
BoundExprPtr orderingKey(BoundExprPtr e);
// The semantic ordering a comparison among operands of these static types follows: JSON when any
// is JSON, else TIMESPAN when any is TIMESPAN, else kAny (none: storage-class order).
LogicalType comparisonOrdering(std::initializer_list<LogicalType> types);

// A join key is matched by hashing, not by sqlCompare: when its partner key is of another
// category (a number or JSON against text), its text is converted here as that comparison would
// convert it, and a key of a TIMESPAN pair is read as elapsed time, so values that compare equal
// hash alike. Other keys are returned as they are.
BoundExprPtr coerceKeyToward(BoundExprPtr key, LogicalType partner);

}  // namespace optic
