// WindowOp: sorts the drained input per window, then computes each call partition by partition.
// See window_op.h for the contract. Positions below index a window's sorted order; `rows`
// indices are input order.
#include "core/execution/window_op.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/execution/context.h"

namespace optic {

namespace {

// The sort order of one key: <0 when x sorts before y.
int compareKey(const Value& x, const Value& y, bool desc, bool nullsFirst, Collation c) {
  if (x.isNull() || y.isNull()) {
    if (x.isNull() && y.isNull()) return 0;
    return (x.isNull() == nullsFirst) ? -1 : 1;
  }
  int r = compareValues(x, y, c);
  return desc ? -r : r;
}

// A window's sorted view: partitions and peer groups as position ranges.
struct Layout {
  std::vector<size_t> rowAt;      // position -> input row index
  std::vector<Row> orderKeys;     // per position
  std::vector<size_t> partStart;  // per position: first position of its partition
  std::vector<size_t> partEnd;    // per position: one past its partition's last position
  std::vector<size_t> peerStart;  // per position: first position of its peer group
  std::vector<size_t> peerEnd;
  std::vector<int64_t> denseRank;  // per position: 1-based peer-group number in the partition
};

Row evalAll(const std::vector<BoundExprPtr>& exprs, EvalContext& ctx) {
  Row out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) out.push_back(e->eval(ctx));
  return out;
}

bool samePartition(const Row& a, const Row& b, const WindowDef& w) {
  for (size_t k = 0; k < a.size(); ++k) {
    if (compareKey(a[k], b[k], false, true, w.partitionCollations[k]) != 0) return false;
  }
  return true;
}

bool samePeers(const Row& a, const Row& b, const WindowDef& w) {
  for (size_t k = 0; k < a.size(); ++k) {
    const SortKey& s = w.order[k];
    if (compareKey(a[k], b[k], s.desc, s.nullsFirst, s.collation) != 0) return false;
  }
  return true;
}

void sortRows(const WindowDef& w, const std::vector<Row>& rows, EvalContext ctx, Layout& l) {
  std::vector<Row> partKeys(rows.size()), orderKeys(rows.size());
  std::vector<BoundExprPtr> const* parts = &w.partition;
  for (size_t i = 0; i < rows.size(); ++i) {
    ctx.row = &rows[i];
    partKeys[i] = evalAll(*parts, ctx);
    orderKeys[i].reserve(w.order.size());
    for (const SortKey& k : w.order) orderKeys[i].push_back(k.expr->eval(ctx));
  }
  l.rowAt.resize(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) l.rowAt[i] = i;
  std::stable_sort(l.rowAt.begin(), l.rowAt.end(), [&](size_t a, size_t b) {
    tickRow(*ctx.exec);
    for (size_t k = 0; k < w.partition.size(); ++k) {
      int c = compareKey(partKeys[a][k], partKeys[b][k], false, true, w.partitionCollations[k]);
      if (c != 0) return c < 0;
    }
    for (size_t k = 0; k < w.order.size(); ++k) {
      const SortKey& s = w.order[k];
      int c = compareKey(orderKeys[a][k], orderKeys[b][k], s.desc, s.nullsFirst, s.collation);
      if (c != 0) return c < 0;
    }
    return false;
  });
  l.orderKeys.resize(rows.size());
  std::vector<Row> sortedParts(rows.size());
  for (size_t p = 0; p < rows.size(); ++p) {
    l.orderKeys[p] = std::move(orderKeys[l.rowAt[p]]);
    sortedParts[p] = std::move(partKeys[l.rowAt[p]]);
  }
  size_t n = rows.size();
  l.partStart.resize(n);
  l.partEnd.resize(n);
  l.peerStart.resize(n);
  l.peerEnd.resize(n);
  l.denseRank.resize(n);
  for (size_t ps = 0; ps < n;) {
    size_t pe = ps + 1;
    while (pe < n && samePartition(sortedParts[ps], sortedParts[pe], w)) ++pe;
    int64_t dense = 0;
    for (size_t gs = ps; gs < pe;) {
      size_t ge = gs + 1;
      while (ge < pe && samePeers(l.orderKeys[gs], l.orderKeys[ge], w)) ++ge;
      ++dense;
      for (size_t p = gs; p < ge; ++p) {
        l.partStart[p] = ps;
        l.partEnd[p] = pe;
        l.peerStart[p] = gs;
        l.peerEnd[p] = ge;
        l.denseRank[p] = dense;
      }
      gs = ge;
    }
    ps = pe;
  }
}

// A frame bound with its offset evaluated.
struct Bound {
  WindowBound::Kind kind;
  int64_t offset = 0;
};

int64_t evalOffset(const WindowBound& b, const EvalContext& ctx) {
  if (!b.offset) return 0;
  Value v = b.offset->eval(ctx);
  double d = v.isNumeric() ? v.toDouble() : -1;
  if (!v.isNumeric() || !std::isfinite(d) || d < 0 || d != std::floor(d)) {
    fail("Invalid window frame offset");
  }
  return static_cast<int64_t>(d);
}

// Frame [lo, hi) of the row at position p, as positions.
class FrameFinder {
 public:
  FrameFinder(const Layout& l, const WindowFrameDef& f, const WindowDef& w, const EvalContext& ctx)
      : l_(l), range_(f.range), start_{f.start.kind, evalOffset(f.start, ctx)},
        end_{f.end.kind, evalOffset(f.end, ctx)}, desc_(!w.order.empty() && w.order[0].desc) {}

  std::pair<size_t, size_t> frame(size_t p) const {
    size_t lo = bound(p, start_, true), hi = bound(p, end_, false);
    return {lo, std::max(lo, hi)};
  }

 private:
  using K = WindowBound::Kind;

  size_t bound(size_t p, const Bound& b, bool isStart) const {
    int64_t ps = static_cast<int64_t>(l_.partStart[p]), pe = static_cast<int64_t>(l_.partEnd[p]);
    if (b.kind == K::kUnboundedPreceding) return static_cast<size_t>(ps);
    if (b.kind == K::kUnboundedFollowing) return static_cast<size_t>(pe);
    bool peersOnly = b.kind == K::kCurrentRow || (range_ && l_.orderKeys[p].empty());
    if (range_ && (peersOnly || l_.orderKeys[p][0].isNull())) return isStart ? l_.peerStart[p] : l_.peerEnd[p];
    int64_t delta = b.kind == K::kPreceding ? -b.offset : b.kind == K::kFollowing ? b.offset : 0;
    if (range_) return rangeBound(p, delta, isStart);
    int64_t pos = static_cast<int64_t>(p) + delta + (isStart ? 0 : 1);
    return static_cast<size_t>(std::clamp(pos, ps, pe));
  }

  // RANGE with an offset: the first position (among the partition's non-NULL keys) past the
  // rows ordered before value+delta (start) or at/before it (end).
  size_t rangeBound(size_t p, int64_t delta, bool isStart) const {
    size_t lo = l_.partStart[p], hi = l_.partEnd[p];
    while (lo < hi && l_.orderKeys[lo][0].isNull()) ++lo;
    while (hi > lo && l_.orderKeys[hi - 1][0].isNull()) --hi;
    double target = l_.orderKeys[p][0].toDouble() + static_cast<double>(desc_ ? -delta : delta);
    auto before = [&](size_t q) {
      double k = l_.orderKeys[q][0].toDouble();
      if (desc_) return isStart ? k > target : k >= target;
      return isStart ? k < target : k <= target;
    };
    while (lo < hi) {  // partition point of `before` over [lo, hi)
      size_t mid = lo + (hi - lo) / 2;
      if (before(mid)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  const Layout& l_;
  bool range_;
  Bound start_, end_;
  bool desc_;
};

// An aggregate over a moving frame: slides with step/inverse, rebuilds when it cannot.
class FrameAggregate {
 public:
  FrameAggregate(const WindowCall& c, const std::vector<Row>& args, ExecState& exec)
      : call_(c), args_(args), exec_(exec) {}

  Value value(size_t lo, size_t hi) {
    if (state_ && lo == lo_ && hi == hi_) return last_;
    if (!state_ || call_.distinct || lo < lo_ || hi < hi_ || !slide(lo, hi)) rebuild(lo, hi);
    lo_ = lo;
    hi_ = hi;
    last_ = state_->finish();
    return last_;
  }

 private:
  Args argsAt(size_t p) const { return Args(args_[p].data(), args_[p].size()); }

  bool slide(size_t lo, size_t hi) {
    for (size_t p = lo_; p < std::min(lo, hi_); ++p) {
      if (!state_->inverse(argsAt(p))) return false;
    }
    for (size_t p = std::max(hi_, lo); p < hi; ++p) {
      tickRow(exec_);
      state_->step(argsAt(p));
    }
    return true;
  }

  void rebuild(size_t lo, size_t hi) {
    state_ = call_.fn->create(call_.collation, call_.argType);
    Collation c = call_.collation;
    auto less = [c](const Value& a, const Value& b) { return compareValues(a, b, c) < 0; };
    std::set<Value, decltype(less)> seen(less);
    for (size_t p = lo; p < hi; ++p) {
      tickRow(exec_);  // a frame rebuilt per row makes a partition's work quadratic
      if (call_.distinct && !args_[p].empty() && !seen.insert(args_[p][0]).second) continue;
      state_->step(argsAt(p));
    }
  }

  const WindowCall& call_;
  const std::vector<Row>& args_;  // per position
  ExecState& exec_;
  std::unique_ptr<AggregateState> state_;
  size_t lo_ = 0, hi_ = 0;
  Value last_;
};

int64_t ntileBucket(int64_t i, int64_t n, int64_t buckets) {
  int64_t q = n / buckets, r = n % buckets;
  if (i < r * (q + 1)) return i / (q + 1) + 1;
  return r + (i - r * (q + 1)) / q + 1;
}

int64_t integerArg(const Row& args, size_t k, int64_t dflt) {
  if (args.size() <= k || args[k].isNull()) return dflt;
  return static_cast<int64_t>(args[k].toDouble());
}

// The value of a non-aggregate, non-frame call at position p.
Value rankingValue(const WindowCall& c, const Layout& l, const std::vector<Row>& args, size_t p) {
  int64_t ps = static_cast<int64_t>(l.partStart[p]);
  int64_t n = static_cast<int64_t>(l.partEnd[p]) - ps;
  int64_t i = static_cast<int64_t>(p) - ps;
  int64_t rank = static_cast<int64_t>(l.peerStart[p]) - ps + 1;
  switch (c.kind) {
    case WindowFnKind::kRowNumber: return Value::integer(i + 1);
    case WindowFnKind::kRank: return Value::integer(rank);
    case WindowFnKind::kDenseRank: return Value::integer(l.denseRank[p]);
    case WindowFnKind::kPercentRank:
      return Value::real(n > 1 ? static_cast<double>(rank - 1) / static_cast<double>(n - 1) : 0.0);
    case WindowFnKind::kCumeDist:
      return Value::real(static_cast<double>(static_cast<int64_t>(l.peerEnd[p]) - ps) / static_cast<double>(n));
    case WindowFnKind::kNtile: {
      int64_t buckets = integerArg(args[p], 0, 0);
      if (buckets <= 0) fail("argument of ntile must be a positive integer");
      return Value::integer(ntileBucket(i, n, buckets));
    }
    case WindowFnKind::kLag:
    case WindowFnKind::kLead: {
      int64_t off = integerArg(args[p], 1, 1);
      int64_t target = i + (c.kind == WindowFnKind::kLag ? -off : off);
      if (target < 0 || target >= n) return args[p].size() > 2 ? args[p][2] : Value();
      return args[static_cast<size_t>(ps + target)][0];
    }
    default: return Value();
  }
}

bool usesFrame(WindowFnKind k) {
  return k == WindowFnKind::kAggregate || k == WindowFnKind::kFirstValue || k == WindowFnKind::kLastValue;
}

}  // namespace

struct WindowOp::Impl {
  OperatorPtr child;
  std::vector<WindowDef> windows;
  std::vector<WindowCall> calls;
  std::vector<Row> rows;
  std::vector<size_t> emitOrder;
  size_t pos = 0;

  // Fills results[rowIndex] for one call.
  void computeCall(const WindowCall& c, const Layout& l, EvalContext ctx, std::vector<Value>& results) {
    std::vector<Row> args(rows.size());  // per position
    for (size_t p = 0; p < rows.size(); ++p) {
      ctx.row = &rows[l.rowAt[p]];
      args[p] = evalAll(c.args, ctx);
    }
    ctx.row = nullptr;
    if (!usesFrame(c.kind)) {
      for (size_t p = 0; p < rows.size(); ++p) results[l.rowAt[p]] = rankingValue(c, l, args, p);
      return;
    }
    static const Row kEmpty;
    EvalContext constCtx = ctx;
    constCtx.row = &kEmpty;
    FrameFinder finder(l, c.frame, windows[c.window], constCtx);
    std::unique_ptr<FrameAggregate> agg;
    for (size_t p = 0; p < rows.size(); ++p) {
      if (p == l.partStart[p]) agg = c.kind == WindowFnKind::kAggregate ? std::make_unique<FrameAggregate>(c, args, *ctx.exec) : nullptr;
      auto [lo, hi] = finder.frame(p);
      Value v;
      if (agg) v = agg->value(lo, hi);
      else if (lo < hi) v = args[c.kind == WindowFnKind::kFirstValue ? lo : hi - 1][0];
      results[l.rowAt[p]] = std::move(v);
    }
  }
};

WindowOp::WindowOp(OperatorPtr child, std::vector<WindowDef> windows, std::vector<WindowCall> calls)
    : impl_(std::make_unique<Impl>()) {
  impl_->child = std::move(child);
  impl_->windows = std::move(windows);
  impl_->calls = std::move(calls);
}

WindowOp::~WindowOp() = default;

void WindowOp::open(ExecState& state, const EvalContext* outer) {
  Impl& m = *impl_;
  m.rows = drain(*m.child, state, outer);
  m.pos = 0;
  EvalContext ctx{nullptr, outer, &state};
  std::vector<std::vector<Value>> results(m.calls.size(), std::vector<Value>(m.rows.size()));
  for (size_t w = 0; w < m.windows.size(); ++w) {
    Layout layout;
    sortRows(m.windows[w], m.rows, ctx, layout);
    for (size_t c = 0; c < m.calls.size(); ++c) {
      if (m.calls[c].window == w) m.computeCall(m.calls[c], layout, ctx, results[c]);
    }
    if (w == 0) m.emitOrder = layout.rowAt;
  }
  for (size_t i = 0; i < m.rows.size(); ++i) {
    for (auto& r : results) m.rows[i].push_back(std::move(r[i]));
  }
}

bool WindowOp::next(Row& out) {
  Impl& m = *impl_;
  if (m.pos >= m.emitOrder.size()) return false;
  out = std::move(m.rows[m.emitOrder[m.pos++]]);
  return true;
}

void WindowOp::close() {
  impl_->rows.clear();
  impl_->emitOrder.clear();
}

PlanDescription WindowOp::describe() const {
  return {"Window", std::to_string(impl_->calls.size()) + " window function call(s) over " +
                        std::to_string(impl_->windows.size()) + " window(s)"};
}
std::vector<const Operator*> WindowOp::inputs() const { return {impl_->child.get()}; }

}  // namespace optic
