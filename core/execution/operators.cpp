// Implementations of the physical operators (operators.h).
#include "core/execution/operators.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "core/common/error.h"
#include "core/common/json.h"
#include "core/common/key_codec.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"
#include "core/execution/expression_nodes.h"
#include "core/storage/row_codec.h"

namespace optic {
namespace {

// Hashing and equality of whole rows (or key tuples) under per-column collations and, when
// given, per-column types (a JSON or TIMESPAN column is identified by its semantic comparand, so
// 'PT1H' and 'PT60M' are one value), consistent with compareValues: the building block of
// DISTINCT, GROUP BY, set operations and hash joins.
struct RowIdentity {
  const std::vector<Collation>* collations;
  const std::vector<LogicalType>* types;  // may be null or shorter than the row
  Collation collation(size_t i) const { return i < collations->size() ? (*collations)[i] : Collation::kBinary; }
  Value identity(const Row& r, size_t i) const {
    if (!types || i >= types->size() || !hasSemanticOrdering((*types)[i])) return r[i];
    return semanticComparand(r[i], (*types)[i], true);
  }
};
struct RowHasher {
  RowIdentity id;
  size_t operator()(const Row& r) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the value hashes, 64-bit even in wasm32
    for (size_t i = 0; i < r.size(); ++i) h = (h ^ hashValue(id.identity(r, i), id.collation(i))) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};
struct RowEqual {
  RowIdentity id;
  bool operator()(const Row& a, const Row& b) const {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (compareValues(id.identity(a, i), id.identity(b, i), id.collation(i)) != 0) return false;
    }
    return true;
  }
};
template <typename V>
using RowMap = std::unordered_map<Row, V, RowHasher, RowEqual>;

template <typename V>
RowMap<V> makeRowMap(const std::vector<Collation>& collations, const std::vector<LogicalType>* types = nullptr) {
  RowIdentity id{&collations, types};
  return RowMap<V>(16, RowHasher{id}, RowEqual{id});
}

// A LIMIT or OFFSET count; nullopt when there is none. Negative and NULL counts are 0:
// `limit -1` and `limit null` yield no rows, `offset -1` and `offset null` skip none.
std::optional<int64_t> evalCount(const BoundExpr* e, const EvalContext& ctx) {
  if (!e) return std::nullopt;
  Value v = e->eval(ctx);
  if (v.isNull()) return 0;
  if (v.kind() == ValueKind::kInteger) return std::max<int64_t>(0, v.asInt());
  double d = v.toDouble();
  if (d != d) fail("LIMIT/OFFSET must be a number");
  if (d < 0) return 0;
  return d >= 9.2e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(d);
}

}  // namespace

bool SingleRowOp::next(Row& out) {
  if (done_) return false;
  done_ = true;
  out.clear();
  return true;
}

void ValuesOp::open(ExecState& state, const EvalContext* outer) {
  pos_ = 0;
  ctx_ = EvalContext{nullptr, outer, &state};
  static const Row kEmpty;
  ctx_.row = &kEmpty;
}

bool ValuesOp::next(Row& out) {
  if (pos_ >= rows_.size()) return false;
  const auto& exprs = rows_[pos_++];
  out.resize(exprs.size());
  for (size_t i = 0; i < exprs.size(); ++i) out[i] = exprs[i]->eval(ctx_);
  return true;
}

void GeneratedRowsOp::open(ExecState& state, const EvalContext* outer) {
  rows_ = producer_(state, outer);
  pos_ = 0;
}

bool GeneratedRowsOp::next(Row& out) {
  if (pos_ >= rows_.size()) return false;
  out = rows_[pos_++];
  return true;
}

namespace {

// The first byte string greater than every key starting with `prefix`; nullopt when none is
// (the prefix is all 0xFF bytes).
std::optional<std::string> prefixSuccessor(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xFF) prefix.pop_back();
  if (prefix.empty()) return std::nullopt;
  prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
  return prefix;
}

}  // namespace

void TableScanOp::open(ExecState& state, const EvalContext* outer) {
  state_ = &state;
  it_ = via_ ? table_->indexStore(via_->index).newIterator() : table_->rows().newIterator();
  spans_.clear();
  spanAt_ = 0;
  positioned_ = false;
  KeyRanges ranges(1);
  if (range_) {
    static const Row kEmpty;
    EvalContext ctx{&kEmpty, outer, &state};
    ranges = range_(ctx);
  }
  for (KeyRange& r : ranges) {
    Span span;
    if (r.lower) {
      if (!r.lowerExclusive) {
        span.start = std::move(*r.lower);
      } else if (std::optional<std::string> after = prefixSuccessor(std::move(*r.lower))) {
        span.start = std::move(*after);
      } else {
        continue;  // nothing sorts after every extension of an all-0xFF prefix
      }
    }
    if (r.upper) span.end = r.upperExclusive ? std::move(r.upper) : prefixSuccessor(std::move(*r.upper));
    if (span.end && *span.end <= span.start) continue;
    spans_.push_back(std::move(span));
  }
}

void TableScanOp::position(const Span& span) {
  if (!reverse_) {
    if (span.start.empty()) it_->seekToFirst();
    else it_->seek(span.start);
    return;
  }
  if (!span.end) {
    it_->seekToLast();
    return;
  }
  it_->seek(*span.end);  // the first key at or past the end: the one before it is the last inside
  if (it_->valid()) it_->prev();
  else it_->seekToLast();
}

bool TableScanOp::emit(std::string_view key, Row& out) {
  const std::vector<bool>* decoded = projection_ && !projection_->decoded.empty() ? &projection_->decoded : nullptr;
  if (!via_) {
    decodeRow(it_->value(), out, decoded);
    return true;
  }
  if (projection_ && projection_->covering) {
    const ScanProjection& p = *projection_;
    out.resize(p.width);
    for (Value& v : out) {
      if (!v.isNull()) v.setNull();
    }
    for (size_t i = 0; i < p.target.size(); ++i) {
      bool ok = p.target[i] < 0 ? skipKeyComponent(key, p.desc[i]) : decodeKey(key, p.desc[i], out[p.target[i]]);
      if (!ok) return false;
    }
    return true;
  }
  for (bool desc : via_->columnDesc) {
    if (!skipKeyComponent(key, desc)) return false;
  }
  if (!table_->rows().get(key, &fetched_)) return false;  // an entry always has its row; never trust bytes
  decodeRow(fetched_, out, decoded);
  return true;
}

bool TableScanOp::next(Row& out) {
  while (spanAt_ < spans_.size()) {
    tickRow(*state_);
    const Span& span = spans_[reverse_ ? spans_.size() - 1 - spanAt_ : spanAt_];
    if (!positioned_) {
      position(span);
      positioned_ = true;
    } else if (reverse_) {
      it_->prev();
    } else {
      it_->next();
    }
    if (it_->valid()) {
      std::string_view key = it_->key();
      // The walk only moves away from where position() put it (at or past the start going
      // forward, before the end going back; a cursor never steps back over a write), so only the
      // bound ahead can be crossed.
      bool inside = reverse_ ? key >= std::string_view(span.start) : !span.end || key < std::string_view(*span.end);
      if (inside) {
        if (emit(key, out)) return true;
        continue;
      }
    }
    positioned_ = false;  // past this span in scan direction: on to the next
    ++spanAt_;
  }
  return false;
}

void FilterOp::open(ExecState& state, const EvalContext* outer) {
  child_->open(state, outer);
  ctx_ = EvalContext{nullptr, outer, &state};
}

bool FilterOp::next(Row& out) {
  while (child_->next(out)) {
    tickRow(*ctx_.exec);
    ctx_.row = &out;
    if (isTrue(pred_->eval(ctx_))) return true;
  }
  return false;
}

void ProjectOp::open(ExecState& state, const EvalContext* outer) {
  child_->open(state, outer);
  ctx_ = EvalContext{nullptr, outer, &state};
}

namespace {

// `to = from`, in place where the kind allows (a text keeps its buffer).
void assignInPlace(Value& to, const Value& from) {
  switch (from.kind()) {
    case ValueKind::kNull: to.setNull(); return;
    case ValueKind::kInteger: to.setInteger(from.asInt()); return;
    case ValueKind::kReal: to.setReal(from.asReal()); return;
    case ValueKind::kBoolean: to.setBoolean(from.asBool()); return;
    case ValueKind::kText: to.setText(from.asText()); return;
    default: to = from;
  }
}

}  // namespace

ProjectOp::ProjectOp(OperatorPtr child, std::vector<BoundExprPtr> exprs)
    : child_(std::move(child)), exprs_(std::move(exprs)) {
  for (const BoundExprPtr& e : exprs_) {
    auto* column = dynamic_cast<const ColumnExpr*>(e.get());
    columnOf_.push_back(column && column->depth() == 0 ? column->index() : -1);
  }
}

bool ProjectOp::next(Row& out) {
  if (!child_->next(in_)) return false;
  ctx_.row = &in_;
  out.resize(exprs_.size());
  // A plain column is copied into the output row in place (a text keeps its buffer across rows).
  for (size_t i = 0; i < exprs_.size(); ++i) {
    if (columnOf_[i] >= 0) assignInPlace(out[i], in_[static_cast<size_t>(columnOf_[i])]);
    else out[i] = exprs_[i]->eval(ctx_);
  }
  return true;
}

// ---- nested-loop join ------------------------------------------------------------------------

void NestedLoopJoinOp::open(ExecState& state, const EvalContext* outer) {
  state_ = &state;
  outer_ = outer;
  left_->open(state, outer);
  rightRows_.clear();
  if (!lateral_) rightRows_ = drain(*right_, state, outer);
  rightMatched_.assign(rightRows_.size(), false);
  haveLeft_ = false;
  leftDone_ = false;
  unmatchedPos_ = 0;
}

namespace {

// A lateral inner or left join streams its right side: re-opened for each left row and read row by
// row, never materialized (an index nested-loop join reads one key range per left row). Then
// rightRows_ holds just the current right row and rightPos_ is 1 while the right side is open.
bool streamsRight(bool lateral, JoinKind kind) {
  return lateral && (kind == JoinKind::kInner || kind == JoinKind::kLeft || kind == JoinKind::kCross);
}

}  // namespace

void NestedLoopJoinOp::close() {
  if (streamsRight(lateral_, kind_) && rightPos_ == 1) right_->close();
  rightPos_ = 0;
  left_->close();
  rightRows_.clear();
}

bool NestedLoopJoinOp::advanceLeft() {
  bool streaming = streamsRight(lateral_, kind_);
  if (streaming && rightPos_ == 1) right_->close();
  rightPos_ = 0;
  if (!left_->next(leftRow_)) return false;
  haveLeft_ = true;
  leftMatched_ = false;
  if (lateral_) {
    // The right side reads the left row as its enclosing row.
    lateralCtx_ = EvalContext{&leftRow_, outer_, state_};
    if (streaming) {
      right_->open(*state_, &lateralCtx_);
      rightPos_ = 1;
      rightRows_.resize(1);
    } else {
      rightRows_ = drain(*right_, *state_, &lateralCtx_);
    }
  }
  return true;
}

void NestedLoopJoinOp::emit(const Row* l, const Row* r, Row& out) const {
  out.clear();
  out.reserve(leftWidth_ + rightWidth_);
  if (l) out.insert(out.end(), l->begin(), l->end());
  else out.resize(leftWidth_);
  if (r) out.insert(out.end(), r->begin(), r->end());
  else out.resize(leftWidth_ + rightWidth_);
}

bool NestedLoopJoinOp::next(Row& out) {
  EvalContext ctx{nullptr, outer_, state_};
  while (!leftDone_) {
    if (!haveLeft_ && !advanceLeft()) {
      leftDone_ = true;
      break;
    }
    bool streaming = streamsRight(lateral_, kind_);
    while (streaming && rightPos_ == 1) {
      if (!right_->next(rightRows_[0])) {
        right_->close();
        rightPos_ = 0;
        break;
      }
      tickRow(*state_);
      emit(&leftRow_, &rightRows_[0], out);
      ctx.row = &out;
      if (!on_ || isTrue(on_->eval(ctx))) {
        leftMatched_ = true;
        return true;
      }
    }
    while (!streaming && rightPos_ < rightRows_.size()) {
      tickRow(*state_);
      size_t i = rightPos_++;
      emit(&leftRow_, &rightRows_[i], out);
      ctx.row = &out;
      if (!on_ || isTrue(on_->eval(ctx))) {
        leftMatched_ = true;
        if (!lateral_) rightMatched_[i] = true;
        return true;
      }
    }
    haveLeft_ = false;
    if (!leftMatched_ && (kind_ == JoinKind::kLeft || kind_ == JoinKind::kFull)) {
      emit(&leftRow_, nullptr, out);
      return true;
    }
  }
  if (kind_ == JoinKind::kRight || kind_ == JoinKind::kFull) {
    while (unmatchedPos_ < rightRows_.size()) {
      size_t i = unmatchedPos_++;
      if (!rightMatched_[i]) {
        emit(nullptr, &rightRows_[i], out);
        return true;
      }
    }
  }
  return false;
}

// ---- hash join -------------------------------------------------------------------------------

struct HashJoinOp::Impl {
  OperatorPtr left, right;
  JoinKind kind;
  std::vector<BoundExprPtr> leftKeys, rightKeys;
  std::vector<Collation> collations;
  BoundExprPtr residual;
  size_t leftWidth, rightWidth;

  ExecState* state = nullptr;
  const EvalContext* outer = nullptr;
  std::vector<Row> rightRows;
  std::vector<bool> rightMatched;
  RowMap<std::vector<size_t>> table = makeRowMap<std::vector<size_t>>(collations);
  Row leftRow;
  const std::vector<size_t>* bucket = nullptr;
  size_t bucketPos = 0;
  bool haveLeft = false, leftMatched = false, leftDone = false;
  size_t unmatchedPos = 0;

  // Evaluates the key tuple; false when any key is NULL (NULL never joins).
  bool keyOf(const std::vector<BoundExprPtr>& keys, const Row& row, Row& key) const {
    EvalContext ctx{&row, outer, state};
    key.resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      key[i] = keys[i]->eval(ctx);
      if (key[i].isNull()) return false;
    }
    return true;
  }
  void emit(const Row* l, const Row* r, Row& out) const {
    out.clear();
    if (l) out.insert(out.end(), l->begin(), l->end());
    else out.resize(leftWidth);
    if (r) out.insert(out.end(), r->begin(), r->end());
    else out.resize(leftWidth + rightWidth);
  }
};

HashJoinOp::HashJoinOp(OperatorPtr left, OperatorPtr right, JoinKind kind, std::vector<BoundExprPtr> leftKeys,
                       std::vector<BoundExprPtr> rightKeys, std::vector<Collation> collations,
                       BoundExprPtr residual, size_t leftWidth, size_t rightWidth)
    : impl_(new Impl{std::move(left), std::move(right), kind, std::move(leftKeys), std::move(rightKeys),
                     std::move(collations), std::move(residual), leftWidth, rightWidth}) {
  impl_->table = makeRowMap<std::vector<size_t>>(impl_->collations);
}

HashJoinOp::~HashJoinOp() = default;

void HashJoinOp::open(ExecState& state, const EvalContext* outer) {
  Impl& m = *impl_;
  m.state = &state;
  m.outer = outer;
  m.rightRows = drain(*m.right, state, outer);
  m.rightMatched.assign(m.rightRows.size(), false);
  m.table.clear();
  Row key;
  for (size_t i = 0; i < m.rightRows.size(); ++i) {
    tickRow(state);
    if (m.keyOf(m.rightKeys, m.rightRows[i], key)) m.table[key].push_back(i);
  }
  m.left->open(state, outer);
  m.haveLeft = m.leftDone = false;
  m.unmatchedPos = 0;
}

void HashJoinOp::close() {
  impl_->left->close();
  impl_->rightRows.clear();
  impl_->table.clear();
}

bool HashJoinOp::next(Row& out) {
  Impl& m = *impl_;
  EvalContext ctx{nullptr, m.outer, m.state};
  Row key;
  while (!m.leftDone) {
    if (!m.haveLeft) {
      if (!m.left->next(m.leftRow)) {
        m.leftDone = true;
        break;
      }
      m.haveLeft = true;
      m.leftMatched = false;
      m.bucket = nullptr;
      m.bucketPos = 0;
      if (m.keyOf(m.leftKeys, m.leftRow, key)) {
        auto it = m.table.find(key);
        if (it != m.table.end()) m.bucket = &it->second;
      }
    }
    while (m.bucket && m.bucketPos < m.bucket->size()) {
      tickRow(*m.state);
      size_t i = (*m.bucket)[m.bucketPos++];
      m.emit(&m.leftRow, &m.rightRows[i], out);
      ctx.row = &out;
      if (!m.residual || isTrue(m.residual->eval(ctx))) {
        m.leftMatched = true;
        m.rightMatched[i] = true;
        return true;
      }
    }
    m.haveLeft = false;
    if (!m.leftMatched && (m.kind == JoinKind::kLeft || m.kind == JoinKind::kFull)) {
      m.emit(&m.leftRow, nullptr, out);
      return true;
    }
  }
  if (m.kind == JoinKind::kRight || m.kind == JoinKind::kFull) {
    while (m.unmatchedPos < m.rightRows.size()) {
      size_t i = m.unmatchedPos++;
      if (!m.rightMatched[i]) {
        m.emit(nullptr, &m.rightRows[i], out);
        return true;
      }
    }
  }
  return false;
}

// ---- sort ------------------------------------------------------------------------------------

void SortOp::open(ExecState& state, const EvalContext* outer) {
  std::vector<Row> input = drain(*child_, state, outer);
  // Decorate each row with its evaluated keys once, then sort stably.
  struct Item {
    Row keys;
    size_t index;
  };
  std::vector<Item> items(input.size());
  EvalContext ctx{nullptr, outer, &state};
  for (size_t i = 0; i < input.size(); ++i) {
    ctx.row = &input[i];
    items[i].index = i;
    items[i].keys.reserve(keys_.size());
    for (const SortKey& k : keys_) items[i].keys.push_back(k.expr->eval(ctx));
  }
  std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
    tickRow(state);  // a comparison is a unit of work: a sort of n rows makes n log n of them
    for (size_t k = 0; k < keys_.size(); ++k) {
      const Value& x = a.keys[k];
      const Value& y = b.keys[k];
      if (x.isNull() || y.isNull()) {
        if (x.isNull() && y.isNull()) continue;
        bool xFirst = x.isNull() == keys_[k].nullsFirst;
        return xFirst;
      }
      int c = compareValues(x, y, keys_[k].collation);
      if (c != 0) return keys_[k].desc ? c > 0 : c < 0;
    }
    return false;
  });
  rows_.clear();
  rows_.reserve(items.size());
  for (Item& it : items) rows_.push_back(std::move(input[it.index]));
  pos_ = 0;
}

bool SortOp::next(Row& out) {
  if (pos_ >= rows_.size()) return false;
  out = std::move(rows_[pos_++]);
  return true;
}

// ---- limit -----------------------------------------------------------------------------------

void LimitOp::open(ExecState& state, const EvalContext* outer) {
  static const Row kEmpty;
  EvalContext ctx{&kEmpty, outer, &state};
  remaining_ = evalCount(limit_.get(), ctx).value_or(-1);
  skip_ = evalCount(offset_.get(), ctx).value_or(0);
  child_->open(state, outer);
}

bool LimitOp::next(Row& out) {
  if (remaining_ == 0) return false;
  while (skip_ > 0) {
    if (!child_->next(out)) return false;
    --skip_;
  }
  if (!child_->next(out)) return false;
  if (remaining_ > 0) --remaining_;
  return true;
}

// ---- distinct --------------------------------------------------------------------------------

struct DistinctOp::Impl {
  OperatorPtr child;
  std::vector<Collation> collations;
  std::vector<LogicalType> types;
  RowMap<bool> seen = makeRowMap<bool>(collations, &types);
  ExecState* state = nullptr;
};

DistinctOp::DistinctOp(OperatorPtr child, std::vector<Collation> collations, std::vector<LogicalType> types)
    : impl_(new Impl{std::move(child), std::move(collations), std::move(types)}) {
  impl_->seen = makeRowMap<bool>(impl_->collations, &impl_->types);
}
DistinctOp::~DistinctOp() = default;

void DistinctOp::open(ExecState& state, const EvalContext* outer) {
  impl_->seen.clear();
  impl_->state = &state;
  impl_->child->open(state, outer);
}

bool DistinctOp::next(Row& out) {
  while (impl_->child->next(out)) {
    tickRow(*impl_->state);
    if (impl_->seen.emplace(out, true).second) return true;
  }
  return false;
}

void DistinctOp::close() {
  impl_->child->close();
  impl_->seen.clear();
}

// ---- aggregate -------------------------------------------------------------------------------

struct HashAggregateOp::Impl {
  OperatorPtr child;
  std::vector<BoundExprPtr> groups;
  std::vector<Collation> groupCollations;
  std::vector<AggregateCall> aggs;

  struct Group {
    Row key;
    std::vector<std::unique_ptr<AggregateState>> states;
    std::vector<RowMap<bool>> distinctSeen;
  };
  std::vector<Group> out;
  size_t pos = 0;
  std::vector<std::vector<Collation>> distinctCollations;  // per call; the RowMaps point into it
  std::vector<std::vector<LogicalType>> distinctTypes;      // per call: its arguments' types
  std::vector<LogicalType> groupTypes;                      // a JSON/TIMESPAN key groups by identity

  Group newGroup(Row key) {
    Group g;
    g.key = std::move(key);
    for (const AggregateCall& a : aggs) {
      g.states.push_back(a.fn->create(a.collation, a.argType));
      size_t i = g.states.size() - 1;
      g.distinctSeen.push_back(makeRowMap<bool>(distinctCollations[i], &distinctTypes[i]));
    }
    return g;
  }
};

HashAggregateOp::HashAggregateOp(OperatorPtr child, std::vector<BoundExprPtr> groups,
                                 std::vector<Collation> groupCollations, std::vector<AggregateCall> aggs)
    : impl_(new Impl{std::move(child), std::move(groups), std::move(groupCollations), std::move(aggs)}) {
  for (const AggregateCall& a : impl_->aggs) {
    impl_->distinctCollations.emplace_back(a.args.size(), a.collation);
    impl_->distinctTypes.emplace_back();
    for (const BoundExprPtr& arg : a.args) impl_->distinctTypes.back().push_back(arg->type);
  }
  for (const BoundExprPtr& g : impl_->groups) impl_->groupTypes.push_back(g->type);
}
HashAggregateOp::~HashAggregateOp() = default;

void HashAggregateOp::open(ExecState& state, const EvalContext* outer) {
  Impl& m = *impl_;
  m.out.clear();
  m.pos = 0;
  RowMap<size_t> index = makeRowMap<size_t>(m.groupCollations, &m.groupTypes);
  m.child->open(state, outer);
  Row in, key, args;
  EvalContext ctx{nullptr, outer, &state};
  while (m.child->next(in)) {
    tickRow(state);
    ctx.row = &in;
    if (m.groups.empty() && m.out.empty()) m.out.push_back(m.newGroup({}));
    size_t group = 0;  // without GROUP BY there is one group: no key to hash per row
    if (!m.groups.empty()) {
      key.resize(m.groups.size());
      for (size_t i = 0; i < m.groups.size(); ++i) key[i] = m.groups[i]->eval(ctx);
      auto [it, inserted] = index.emplace(key, m.out.size());
      if (inserted) m.out.push_back(m.newGroup(key));
      group = it->second;
    }
    Impl::Group& g = m.out[group];
    for (size_t a = 0; a < m.aggs.size(); ++a) {
      const AggregateCall& call = m.aggs[a];
      args.resize(call.args.size());
      for (size_t i = 0; i < call.args.size(); ++i) args[i] = call.args[i]->eval(ctx);
      if (call.fn->coercesNumericText) {
        for (Value& v : args) coerceAggregateArgument(v);
      }
      if (call.distinct) {
        bool anyNull = std::any_of(args.begin(), args.end(), [](const Value& v) { return v.isNull(); });
        if (anyNull || !g.distinctSeen[a].emplace(args, true).second) continue;
      }
      g.states[a]->step(Args(args.data(), args.size()));
    }
  }
  m.child->close();
  if (m.out.empty() && m.groups.empty()) m.out.push_back(m.newGroup({}));
}

bool HashAggregateOp::next(Row& out) {
  Impl& m = *impl_;
  if (m.pos >= m.out.size()) return false;
  Impl::Group& g = m.out[m.pos++];
  out = std::move(g.key);
  for (auto& s : g.states) out.push_back(s->finish());
  return true;
}

void HashAggregateOp::close() { impl_->out.clear(); }

// ---- set operations --------------------------------------------------------------------------

struct SetOpOp::Impl {
  OperatorPtr left, right;
  SetOpKind kind;
  std::vector<Collation> collations;
  std::vector<LogicalType> types;
  SetOpMembership membership;
  std::vector<Row> out;
  size_t pos = 0;

  // Appends the requested membership flags to every output row (by data value, so a union row
  // found in both inputs is a member of both).
  void flagMembership(const std::vector<Row>& l, const std::vector<Row>& r) {
    if (!membership.left && !membership.right) return;
    RowMap<bool> inLeft = makeRowMap<bool>(collations, &types);
    RowMap<bool> inRight = makeRowMap<bool>(collations, &types);
    for (const Row& row : l) inLeft.emplace(row, true);
    for (const Row& row : r) inRight.emplace(row, true);
    for (Row& row : out) {
      bool a = inLeft.count(row) > 0, b = inRight.count(row) > 0;
      if (membership.left) row.push_back(Value::boolean(a));
      if (membership.right) row.push_back(Value::boolean(b));
    }
  }
};

SetOpOp::SetOpOp(OperatorPtr left, OperatorPtr right, SetOpKind kind, std::vector<Collation> collations,
                 std::vector<LogicalType> types, SetOpMembership membership)
    : impl_(new Impl{std::move(left), std::move(right), kind, std::move(collations), std::move(types), membership}) {}
SetOpOp::~SetOpOp() = default;

void SetOpOp::open(ExecState& state, const EvalContext* outer) {
  Impl& m = *impl_;
  m.out.clear();
  m.pos = 0;
  std::vector<Row> l = drain(*m.left, state, outer);
  std::vector<Row> r = drain(*m.right, state, outer);
  combine(m, l, r);
  m.flagMembership(l, r);
}

void SetOpOp::combine(Impl& m, const std::vector<Row>& l, const std::vector<Row>& r) {
  if (m.kind == SetOpKind::kUnionAll) {
    m.out = l;
    m.out.insert(m.out.end(), r.begin(), r.end());
    return;
  }
  RowMap<bool> inRight = makeRowMap<bool>(m.collations, &m.types);
  for (const Row& row : r) inRight.emplace(row, true);
  RowMap<bool> emitted = makeRowMap<bool>(m.collations, &m.types);
  auto emitOnce = [&](const Row& row) {
    if (emitted.emplace(row, true).second) m.out.push_back(row);
  };
  switch (m.kind) {
    case SetOpKind::kUnion:
      for (const Row& row : l) emitOnce(row);
      for (const Row& row : r) emitOnce(row);
      break;
    case SetOpKind::kIntersect:
      for (const Row& row : l) if (inRight.count(row)) emitOnce(row);
      break;
    case SetOpKind::kExcept:
      for (const Row& row : l) if (!inRight.count(row)) emitOnce(row);
      break;
    case SetOpKind::kDiff: {
      RowMap<bool> inLeft = makeRowMap<bool>(m.collations, &m.types);
      for (const Row& row : l) inLeft.emplace(row, true);
      for (const Row& row : l) if (!inRight.count(row)) emitOnce(row);
      for (const Row& row : r) if (!inLeft.count(row)) emitOnce(row);
      break;
    }
    case SetOpKind::kUnionAll:
      break;
  }
}

bool SetOpOp::next(Row& out) {
  Impl& m = *impl_;
  if (m.pos >= m.out.size()) return false;
  out = m.out[m.pos++];
  return true;
}

void SetOpOp::close() { impl_->out.clear(); }

// ---- introspection (query_plan(), docs/query-plan.md) ---------------------------------------

namespace {

const char* joinKindName(JoinKind k) {
  switch (k) {
    case JoinKind::kInner: return "inner";
    case JoinKind::kLeft: return "left";
    case JoinKind::kRight: return "right";
    case JoinKind::kFull: return "full";
    case JoinKind::kCross: return "cross";
  }
  return "";
}

const char* setOpName(SetOpKind k) {
  switch (k) {
    case SetOpKind::kUnion: return "union";
    case SetOpKind::kUnionAll: return "union all";
    case SetOpKind::kIntersect: return "intersect";
    case SetOpKind::kExcept: return "except";
    case SetOpKind::kDiff: return "diff";
  }
  return "";
}

std::string countOf(size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

PlanDescription SingleRowOp::describe() const { return {"SingleRow", "one empty row"}; }
PlanDescription ValuesOp::describe() const { return {"Values", countOf(rows_.size(), "row")}; }
PlanDescription GeneratedRowsOp::describe() const { return {"GeneratedRows", "rows made when opened"}; }

PlanDescription TableScanOp::describe() const {
  const TableSchema& schema = table_->schema();
  PlanDescription d;
  d.nodeType = via_ ? "IndexScan" : "TableScan";
  d.object = schema.schemaName + "." + schema.name;
  d.detail = pathDetail_.empty() ? "primary key full scan" : pathDetail_;
  bool covering = projection_ && projection_->covering;
  if (reverse_) d.detail += ", reverse";
  if (covering) d.detail += ", covering";
  d.properties = std::string("{\"reverse\":") + (reverse_ ? "true" : "false") + ",\"covering\":" +
                 (covering ? "true" : "false");
  if (projection_ && !projection_->decoded.empty()) {  // the columns its rows hold; absent: all
    d.properties += ",\"columns\":[";
    const char* sep = "";
    for (size_t c = 0; c < projection_->decoded.size(); ++c) {
      if (!projection_->decoded[c]) continue;
      d.properties += sep;
      appendJsonString(schema.columns[c].name, d.properties);
      sep = ",";
    }
    d.properties += "]";
  }
  d.properties += "}";
  d.estimatedRows = estimatedRows_;
  return d;
}

PlanDescription FilterOp::describe() const { return {"Filter", "rows matching the condition"}; }
std::vector<const Operator*> FilterOp::inputs() const { return {child_.get()}; }

PlanDescription ProjectOp::describe() const { return {"Project", countOf(exprs_.size(), "column")}; }
std::vector<const Operator*> ProjectOp::inputs() const { return {child_.get()}; }

PlanDescription NestedLoopJoinOp::describe() const {
  std::string how = lateral_ ? "index nested loop: right side re-read for each left row"
                             : "nested loop over the materialized right side";
  return {"NestedLoopJoin", std::string(joinKindName(kind_)) + " join, " + how};
}
std::vector<const Operator*> NestedLoopJoinOp::inputs() const { return {left_.get(), right_.get()}; }

PlanDescription HashJoinOp::describe() const {
  return {"HashJoin", std::string(joinKindName(impl_->kind)) + " join on " + countOf(impl_->leftKeys.size(), "key") +
                          ", hashing the right side"};
}
std::vector<const Operator*> HashJoinOp::inputs() const { return {impl_->left.get(), impl_->right.get()}; }

PlanDescription SortOp::describe() const { return {"Sort", "by " + countOf(keys_.size(), "key")}; }
std::vector<const Operator*> SortOp::inputs() const { return {child_.get()}; }

PlanDescription LimitOp::describe() const { return {"Limit", offset_ ? "limit with offset" : "limit"}; }
std::vector<const Operator*> LimitOp::inputs() const { return {child_.get()}; }

PlanDescription DistinctOp::describe() const { return {"Distinct", "hashing each row"}; }
std::vector<const Operator*> DistinctOp::inputs() const { return {impl_->child.get()}; }

PlanDescription HashAggregateOp::describe() const {
  std::string groups = impl_->groups.empty() ? "one group" : "grouped by " + countOf(impl_->groups.size(), "key");
  return {"Aggregate", countOf(impl_->aggs.size(), "aggregate") + ", " + groups};
}
std::vector<const Operator*> HashAggregateOp::inputs() const { return {impl_->child.get()}; }

PlanDescription SetOpOp::describe() const { return {"SetOperation", setOpName(impl_->kind)}; }
std::vector<const Operator*> SetOpOp::inputs() const { return {impl_->left.get(), impl_->right.get()}; }

}  // namespace optic
