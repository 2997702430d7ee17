// The physical operators. Each is small and does one thing; the binder wires them into plans.
//
// Row layout convention: a join's output row is the left row followed by the right row; an
// aggregate's output row is its group values followed by its aggregate results.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog/catalog.h"
#include "core/execution/operator.h"

namespace optic {

// Exactly one empty row: SELECT without FROM.
class SingleRowOp final : public Operator {
 public:
  void open(ExecState&, const EvalContext*) override { done_ = false; }
  bool next(Row& out) override;
  PlanDescription describe() const override;

 private:
  bool done_ = false;
};

// VALUES (…), (…): each row's expressions evaluated against the outer context.
class ValuesOp final : public Operator {
 public:
  explicit ValuesOp(std::vector<std::vector<BoundExprPtr>> rows) : rows_(std::move(rows)) {}
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  PlanDescription describe() const override;

 private:
  std::vector<std::vector<BoundExprPtr>> rows_;
  size_t pos_ = 0;
  EvalContext ctx_;
};

// Rows produced on open by a callback (table-valued functions, CTE buffers, DML RETURNING).
class GeneratedRowsOp final : public Operator {
 public:
  using Producer = std::function<std::vector<Row>(ExecState&, const EvalContext*)>;
  explicit GeneratedRowsOp(Producer p) : producer_(std::move(p)) {}
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override { rows_.clear(); }
  PlanDescription describe() const override;

 private:
  Producer producer_;
  std::vector<Row> rows_;
  size_t pos_ = 0;
};

// A key range over a table's primary key or an index: bounds are encoded key prefixes.
struct KeyRange {
  std::optional<std::string> lower;  // inclusive prefix bound
  std::optional<std::string> upper;  // inclusive prefix bound (keys starting with it included)
  bool lowerExclusive = false;
  bool upperExclusive = false;
};
// The ranges one open of a scan reads: ascending and disjoint; empty when no row can qualify.
using KeyRanges = std::vector<KeyRange>;

// Where a scan's keys live when it reads a secondary index: entry key = index columns ‖ primary
// key, so the row is fetched from the row store by the key's suffix.
struct IndexSource {
  size_t index = 0;               // into TableSchema::indexes
  std::vector<bool> columnDesc;   // each index column's direction (to skip its component)
};

// What a scan's rows must hold, filled by the planner once the query is bound and it knows
// which columns are read; until then (and when every column is read) rows come whole. Every
// column nothing reads is left NULL:
// - a scan of rows decodes only the columns `decoded` marks (projection pushdown);
// - an index scan whose entries hold every read column reads the entries alone (a covering
//   scan): `target[i]` is the row column the i-th key component (index columns, then
//   primary-key columns) decodes into, -1 to skip it.
struct ScanProjection {
  std::optional<size_t> index;  // the secondary index scanned, if any
  std::vector<bool> decoded;    // empty: decode every column
  bool covering = false;
  size_t width = 0;
  std::vector<int> target;
  std::vector<bool> desc;  // each component's direction
};

// Full or ranged scan of a table's rows, in the key order of its row store (primary key) or of
// one secondary index, forward or in reverse. The ranges are computed per open (parameters,
// outer rows); a null range function reads everything.
class TableScanOp final : public Operator {
 public:
  using RangeFn = std::function<KeyRanges(const EvalContext&)>;
  TableScanOp(std::shared_ptr<Table> table, RangeFn range = nullptr, bool reverse = false,
              std::optional<IndexSource> via = std::nullopt, std::shared_ptr<const ScanProjection> projection = nullptr)
      : table_(std::move(table)), range_(std::move(range)), reverse_(reverse), via_(std::move(via)),
        projection_(std::move(projection)) {}
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override { it_.reset(); }
  PlanDescription describe() const override;
  // The access path as the planner chose it, for introspection: `detail` names the key and its
  // bounds ("index t_g range g >= ?"), `estimatedRows` what it expects to read.
  void notePath(std::string detail, double estimatedRows) {
    pathDetail_ = std::move(detail);
    estimatedRows_ = estimatedRows;
  }

 private:
  // A range as a half-open byte interval [start, end) of the scanned store's keys.
  struct Span {
    std::string start;               // "" = from the first key
    std::optional<std::string> end;  // nullopt = to the last key
  };
  void position(const Span& span);
  bool emit(std::string_view key, Row& out);
  std::shared_ptr<Table> table_;
  RangeFn range_;
  bool reverse_;
  std::optional<IndexSource> via_;
  std::shared_ptr<const ScanProjection> projection_;
  ExecState* state_ = nullptr;
  std::unique_ptr<KVIterator> it_;
  std::vector<Span> spans_;
  size_t spanAt_ = 0;        // spans consumed so far (in scan direction)
  bool positioned_ = false;  // the iterator is inside spans_[current]
  std::string fetched_;      // a fetched row's bytes (index scans)
  std::string pathDetail_;
  double estimatedRows_ = -1;
};

class FilterOp final : public Operator {
 public:
  FilterOp(OperatorPtr child, BoundExprPtr pred) : child_(std::move(child)), pred_(std::move(pred)) {}
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override { child_->close(); }
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  OperatorPtr child_;
  BoundExprPtr pred_;
  EvalContext ctx_;
};

class ProjectOp final : public Operator {
 public:
  ProjectOp(OperatorPtr child, std::vector<BoundExprPtr> exprs);
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override { child_->close(); }
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  OperatorPtr child_;
  std::vector<BoundExprPtr> exprs_;
  std::vector<int> columnOf_;  // per expression: the input column it only copies, else -1
  Row in_;
  EvalContext ctx_;
};

enum class JoinKind : uint8_t { kInner, kLeft, kRight, kFull, kCross };

// Nested-loop join over a materialized right side. `on` sees the combined row. Existence flags,
// when requested, are appended after the right row's columns (left flag, then right flag).
class NestedLoopJoinOp final : public Operator {
 public:
  NestedLoopJoinOp(OperatorPtr left, OperatorPtr right, JoinKind kind, BoundExprPtr on,
                   size_t leftWidth, size_t rightWidth, bool lateral)
      : left_(std::move(left)), right_(std::move(right)), kind_(kind), on_(std::move(on)),
        leftWidth_(leftWidth), rightWidth_(rightWidth), lateral_(lateral) {}
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override;
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  bool advanceLeft();
  void emit(const Row* l, const Row* r, Row& out) const;
  OperatorPtr left_, right_;
  JoinKind kind_;
  BoundExprPtr on_;
  size_t leftWidth_, rightWidth_;
  bool lateral_;
  ExecState* state_ = nullptr;
  const EvalContext* outer_ = nullptr;
  std::vector<Row> rightRows_;
  std::vector<bool> rightMatched_;
  Row leftRow_;
  bool haveLeft_ = false;
  bool leftMatched_ = false;
  size_t rightPos_ = 0;
  bool leftDone_ = false;
  size_t unmatchedPos_ = 0;
  EvalContext lateralCtx_;
};

// Equi-join: builds a hash table on the right side's keys, probes with the left's.
class HashJoinOp final : public Operator {
 public:
  HashJoinOp(OperatorPtr left, OperatorPtr right, JoinKind kind, std::vector<BoundExprPtr> leftKeys,
             std::vector<BoundExprPtr> rightKeys, std::vector<Collation> collations,
             BoundExprPtr residual, size_t leftWidth, size_t rightWidth);
  ~HashJoinOp() override;
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override;
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct SortKey {
  BoundExprPtr expr;
  bool desc = false;
  bool nullsFirst = true;  // the dialect's default: NULLs first in both directions
  Collation collation = Collation::kBinary;
};

class SortOp final : public Operator {
 public:
  // A key of a semantic-ordering type (JSON, TIMESPAN) sorts by its comparand (orderingKey).
  SortOp(OperatorPtr child, std::vector<SortKey> keys) : child_(std::move(child)), keys_(std::move(keys)) {
    for (SortKey& k : keys_) k.expr = orderingKey(std::move(k.expr));
  }
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override { rows_.clear(); }
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  OperatorPtr child_;
  std::vector<SortKey> keys_;
  std::vector<Row> rows_;
  size_t pos_ = 0;
};

class LimitOp final : public Operator {
 public:
  LimitOp(OperatorPtr child, BoundExprPtr limit, BoundExprPtr offset)
      : child_(std::move(child)), limit_(std::move(limit)), offset_(std::move(offset)) {}
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override { child_->close(); }
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  OperatorPtr child_;
  BoundExprPtr limit_, offset_;
  int64_t remaining_ = -1;  // -1 = unlimited
  int64_t skip_ = 0;
};

// DISTINCT in first-occurrence order.
class DistinctOp final : public Operator {
 public:
  // `types`: the columns' static types; a JSON or TIMESPAN column dedups by its semantic identity.
  DistinctOp(OperatorPtr child, std::vector<Collation> collations, std::vector<LogicalType> types = {});
  ~DistinctOp() override;
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override;
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct AggregateCall {
  const AggregateFunction* fn = nullptr;
  std::vector<BoundExprPtr> args;
  bool distinct = false;
  Collation collation = Collation::kBinary;  // the first argument's: min/max order, DISTINCT identity
  LogicalType argType = LogicalType::kAny;   // the first argument's: min/max semantic ordering
};

// GROUP BY with hashing, groups emitted in first-occurrence order. With no GROUP BY it emits
// exactly one row even over empty input.
class HashAggregateOp final : public Operator {
 public:
  HashAggregateOp(OperatorPtr child, std::vector<BoundExprPtr> groups, std::vector<Collation> groupCollations,
                  std::vector<AggregateCall> aggs);
  ~HashAggregateOp() override;
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override;
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

enum class SetOpKind : uint8_t { kUnion, kUnionAll, kIntersect, kExcept, kDiff };

// Membership flags of a set operation (`A union exists left as inA, exists right as inB B`):
// which of them each output row carries, appended after the data columns (left's, then right's).
struct SetOpMembership {
  bool left = false;   // the row is a row of the left input
  bool right = false;  // the row is a row of the right input
};

class SetOpOp final : public Operator {
 public:
  // `types`: the merged column types; a JSON or TIMESPAN column matches by its semantic identity.
  SetOpOp(OperatorPtr left, OperatorPtr right, SetOpKind kind, std::vector<Collation> collations,
          std::vector<LogicalType> types = {}, SetOpMembership membership = {});
  ~SetOpOp() override;
  void open(ExecState& state, const EvalContext* outer) override;
  bool next(Row& out) override;
  void close() override;
  PlanDescription describe() const override;
  std::vector<const Operator*> inputs() const override;

 private:
  struct Impl;
  static void combine(Impl& m, const std::vector<Row>& l, const std::vector<Row>& r);
  std::unique_ptr<Impl> impl_;
};

}  // namespace optic
