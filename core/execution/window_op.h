// WindowOp: the physical operator behind OVER (…) calls.
//
// It drains its input, and for every distinct window (PARTITION BY + ORDER BY) sorts the rows
// stably by partition keys then order keys, walks each partition and computes its calls' values.
// Each output row is the input row followed by one value per call, in call order; rows are
// emitted in the order of the first window (sql-core.md §5: a window query's natural order).
//
// Invariants: frame offsets are evaluated once per open() (they are constants or parameters)
// and must be non-negative integers; aggregate frames slide with step()/inverse() and rebuild
// from scratch when inverse() is unavailable or the frame moves backwards; finish() is called
// after every frame change, so window aggregates must allow repeated finish().
#pragma once

#include <memory>
#include <vector>

#include "core/execution/function_registry.h"
#include "core/execution/operators.h"

namespace optic {

// PARTITION BY + ORDER BY shared by calls with the same specification.
struct WindowDef {
  std::vector<BoundExprPtr> partition;
  std::vector<Collation> partitionCollations;
  std::vector<SortKey> order;
};

enum class WindowFnKind : uint8_t {
  kRowNumber, kRank, kDenseRank, kPercentRank, kCumeDist, kNtile,
  kLag, kLead, kFirstValue, kLastValue, kAggregate,
};

struct WindowBound {
  enum class Kind : uint8_t { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kCurrentRow;
  BoundExprPtr offset;  // kPreceding / kFollowing
};

// Default (no frame clause): RANGE UNBOUNDED PRECEDING .. CURRENT ROW, i.e. the whole partition
// when there is no ORDER BY (every row is a peer).
struct WindowFrameDef {
  bool range = true;
  WindowBound start{WindowBound::Kind::kUnboundedPreceding, nullptr};
  WindowBound end{WindowBound::Kind::kCurrentRow, nullptr};
};

struct WindowCall {
  WindowFnKind kind = WindowFnKind::kRowNumber;
  const AggregateFunction* fn = nullptr;  // kAggregate
  bool distinct = false;                  // kAggregate
  Collation collation = Collation::kBinary;  // kAggregate: the first argument's
  LogicalType argType = LogicalType::kAny;   // kAggregate: the first argument's
  std::vector<BoundExprPtr> args;
  size_t window = 0;  // index into the operator's WindowDefs
  WindowFrameDef frame;
};

class WindowOp final : public Operator {
 public:
  WindowOp(OperatorPtr child, std::vector<WindowDef> windows, std::vector<WindowCall> calls);
  ~WindowOp() override;
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override;
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace optic
