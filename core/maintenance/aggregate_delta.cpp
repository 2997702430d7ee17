// Aggregate delta maintenance (aggregate_delta.h).
#include "core/maintenance/aggregate_delta.h"

#include <algorithm>
#include <map>

#include "core/catalog/table_store.h"
#include "core/maintenance/derived_row_contract.h"
#include "core/common/error.h"
#include "core/common/key_codec.h"
#include "core/common/logical_type.h"
#include "core/common/value_ops.h"
#include "core/execution/arithmetic.h"
#include "core/execution/context.h"
#include "core/execution/operator.h"
#include "core/parser/ast_clone.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/planner/expr_binder.h"
#include "core/storage/row_codec.h"

namespace optic {
namespace {

// Per aggregate, the state columns after the group's count(*).
enum StateSlot : size_t { kCount, kSum, kMin, kMax, kAvg, kTotal, kNonInteger, kSlots };

// A running exact sum moved by one non-NULL input; false when it cannot stay an exact integer (a
// non-integer input, or a result past int64): the group is then recomputed from its rows.
bool moveSum(Value& sum, const Value& x, int sign) {
  if (x.kind() != ValueKind::kInteger) return false;
  Value next = sum.isNull() ? x : (sign > 0 ? add(sum, x) : subtract(sum, x));
  if (next.kind() != ValueKind::kInteger) return false;
  sum = std::move(next);
  return true;
}

// A running min (dir -1) or max (dir 1) of `arg` moved by one non-NULL input; false when a
// removed input was the extremum (only the group's rows know the next one). Inputs rank as the
// aggregate ranks them: under the argument's collation and its type's semantic ordering (a
// TIMESPAN by elapsed time). A removed input is the extremum only when it is that very value: any
// other input leaves the row holding the extremum in place.
bool moveExtremum(Value& best, const Value& x, int sign, int dir, const BoundExpr& arg) {
  if (sign < 0) return !best.isNull() && compareValues(x, best) != 0;
  if (best.isNull()) {
    best = x;
    return true;
  }
  int c = hasSemanticOrdering(arg.type) ? compareValues(semanticComparand(x, arg.type, true),
                                                        semanticComparand(best, arg.type, true), arg.collation)
                                        : compareValues(x, best, arg.collation);
  if (c * dir > 0) best = x;
  return true;
}

}  // namespace

AggregateDelta::AggregateDelta(Context& ctx, const MvAnalysis& analysis, const ast::Select& body,
                               std::shared_ptr<const TableSchema> source, const MaterializedView* derivation,
                               bool backingExact)
    : ctx_(ctx), analysis_(analysis), source_(std::move(source)), derivation_(derivation),
      state_(newMemoryKVStore()), valid_(std::make_shared<bool>(false)) {
  // The state query: the group columns, count(*), and the per-aggregate state columns.
  stateAst_ = ast::clone(body);
  stateAst_->columns.clear();
  auto addColumn = [&](ast::ExprPtr e) {
    ast::ResultColumn rc;
    rc.expr = std::move(e);
    stateAst_->columns.push_back(std::move(rc));
  };
  for (int k : analysis.key) addColumn(ast::clone(*body.columns[k].expr));
  addColumn(parseExpression("count(*)"));
  for (const MvAggregate& g : analysis.aggregates) {
    std::string a = g.arg ? "(" + printExpr(*g.arg) + ")" : "1";
    for (const char* f : {"count", "sum", "min", "max", "avg", "total"}) addColumn(parseExpression(std::string(f) + "(" + a + ")"));
    addColumn(parseExpression("sum(case when " + a + " is null or typeof(" + a + ") = 'integer' then 0 else 1 end)"));
  }
  Binder binder(ctx);
  binder.setHomeSchema(source_->schemaName);
  statePlan_ = binder.bindQuery(*stateAst_, nullptr);
  stateResidualAst_ = residualQuery(*stateAst_, analysis, *source_);
  Binder residualBinder(ctx);
  residualBinder.setHomeSchema(source_->schemaName);
  stateResidual_ = residualBinder.bindQuery(*stateResidualAst_, nullptr);

  // Row-level expressions over the source's columns.
  Scope scope;
  for (const ColumnSchema& c : source_->columns) {
    ScopeColumn sc;
    sc.table = analysis.keyedQualifier;
    sc.name = c.name;
    sc.type = c.type;
    sc.collation = c.collation;
    sc.collationRank = c.collationDeclared ? 2 : 0;
    scope.columns.push_back(sc);
  }
  Binder exprBinder(ctx);
  exprBinder.setHomeSchema(source_->schemaName);
  if (analysis.filter) filter_ = ExprBinder(exprBinder, scope).bind(*analysis.filter);
  for (const MvAggregate& g : analysis.aggregates) args_.push_back(g.arg ? ExprBinder(exprBinder, scope).bind(*g.arg) : nullptr);
  for (int col : analysis.keySourceColumns) keyColumns_.push_back(KeyColumn{col, false, source_->columns[col].collation});
  planBackingState();
  // The backing is the state and already exact: nothing to build. (It reverts with the source on
  // rollback, so no undo is needed either.)
  if (backingState_ && backingExact) *valid_ = true;
}

void AggregateDelta::planBackingState() {
  const std::vector<MvAggregate>& aggs = analysis_.aggregates;
  for (const MvAggregate& g : aggs) if (g.kind == MvAggregate::Kind::kCountStar) countStarOutput_ = g.output;
  if (countStarOutput_ < 0) return;
  auto notNullColumn = [&](const ast::Expr& e) {
    if (e.kind != ast::ExprKind::kColumn) return false;
    if (!e.table.empty() && lowerName(e.table) != lowerName(analysis_.keyedQualifier)) return false;
    int col = source_->findColumn(e.name);
    return col >= 0 && source_->columns[col].notNull;
  };
  countOutput_.assign(aggs.size(), -1);
  for (size_t i = 0; i < aggs.size(); ++i) {
    const MvAggregate& g = aggs[i];
    switch (g.kind) {
      case MvAggregate::Kind::kCountStar:
      case MvAggregate::Kind::kCount:
        break;
      case MvAggregate::Kind::kSum:
      case MvAggregate::Kind::kMin:
      case MvAggregate::Kind::kMax: {
        if (notNullColumn(*g.arg)) break;
        std::string arg = printExpr(*g.arg);
        auto count = std::find_if(aggs.begin(), aggs.end(), [&](const MvAggregate& c) {
          return c.kind == MvAggregate::Kind::kCount && printExpr(*c.arg) == arg;
        });
        if (count == aggs.end()) return;
        countOutput_[i] = count->output;
        break;
      }
      case MvAggregate::Kind::kTotal:
      case MvAggregate::Kind::kAvg:
        return;  // their value does not give back the exact integer sum
    }
  }
  backingState_ = true;
}

void AggregateDelta::build() {
  state_->clear();
  if (backingState_) {
    markBuilt();  // the caller's rebuild makes the backing (the state) exact
    return;
  }
  std::vector<Value> none;
  ExecState st = engineExecState(ctx_, &none);
  size_t nk = analysis_.key.size();
  for (Row& r : drain(*statePlan_.root, st, nullptr)) {
    std::string gk;
    for (size_t i = 0; i < nk; ++i) encodeKey(r[i], keyColumns_[i].collation, false, gk);
    Row state(r.begin() + static_cast<long>(nk), r.end());
    state_->put(gk, encodeRow(state));
  }
  markBuilt();
}

void AggregateDelta::markBuilt() {
  *valid_ = true;
  // Rolled back past this build: the state no longer mirrors the source; rebuild on next use.
  std::shared_ptr<bool> valid = valid_;
  ctx_.txn().recordUndo([valid] { *valid = false; });
}

Row AggregateDelta::recompute(const std::vector<Value>& key) {
  ExecState st = engineExecState(ctx_, &key);
  std::vector<Row> rows = drain(*stateResidual_.root, st, nullptr);
  if (rows.empty()) return Row{};
  Row& r = rows.front();
  return Row(r.begin() + static_cast<long>(analysis_.key.size()), r.end());
}

Row AggregateDelta::outputRow(const std::vector<Value>& key, const Row& state, size_t width) const {
  Row out = ctx_.txn().spareRow();
  out.resize(width);
  for (size_t i = 0; i < analysis_.key.size(); ++i) out[analysis_.key[i]] = key[i];
  for (size_t i = 0; i < analysis_.aggregates.size(); ++i) {
    const MvAggregate& g = analysis_.aggregates[i];
    const Value* s = &state[1 + i * kSlots];
    Value v;
    switch (g.kind) {
      case MvAggregate::Kind::kCountStar: v = state[0]; break;
      case MvAggregate::Kind::kCount: v = s[kCount]; break;
      case MvAggregate::Kind::kSum: v = s[kSum]; break;
      case MvAggregate::Kind::kTotal: v = s[kTotal]; break;
      case MvAggregate::Kind::kAvg: v = s[kAvg]; break;
      case MvAggregate::Kind::kMin: v = s[kMin]; break;
      case MvAggregate::Kind::kMax: v = s[kMax]; break;
    }
    out[g.output] = v;
  }
  return out;
}

// One group's pending change within apply(). Reused across calls: its buffers keep their capacity.
struct AggregateDelta::Group {
  std::string id;          // the backing key (backing-as-state) or the state store's group key
  std::vector<Value> key;  // the group's values
  std::string pk;          // the group's backing key
  bool hasState = false;   // else a new group
  Row state;
  bool hasPrevious = false;  // the state store's bytes (state-store mode)
  std::string previous;
  bool hasStored = false;  // the backing's row
  std::string stored;
  Row current;
  Row next;                // backing-state: the group's new backing row, built on a copy of current
  bool recompute = false;
};

AggregateDelta::~AggregateDelta() = default;

bool AggregateDelta::apply(Table& backing, const std::vector<size_t>& changes) {
  if (!*valid_) {
    build();
    return false;
  }
  TableStore out(backing, ctx_.txn());
  probe_.resize(backing.schema().columns.size());
  used_ = 0;
  index_.clear();
  std::vector<Value> none;
  ExecState st = engineExecState(ctx_, &none);
  // Every change's contribution first: the writes below append to the log these rows live in.
  const std::vector<RowChange>& log = ctx_.txn().changes();
  for (size_t i : changes) {
    if (log[i].oldRow) contribute(*log[i].oldRow, -1, st, out);
    if (log[i].newRow) contribute(*log[i].newRow, +1, st, out);
  }
  for (size_t g = 0; g < used_; ++g) write(*groups_[g], out);
  return true;
}

void AggregateDelta::contribute(const Row& row, int sign, ExecState& st, const TableStore& out) {
  EvalContext ctx{&row, nullptr, &st};
  if (filter_ && truthValue(filter_->eval(ctx)) != true) return;
  Group& g = groupOf(row, out);
  if (g.recompute) return;
  if (backingState_) {
    contributeToBacking(g, sign, ctx);
    return;
  }
  size_t nagg = analysis_.aggregates.size();
  if (!g.hasState) {
    if (sign < 0) {
      g.recompute = true;
      return;
    }
    g.state.assign(1 + nagg * kSlots, Value());
    g.state[0] = Value::integer(0);
    for (size_t i = 0; i < nagg; ++i) {
      g.state[1 + i * kSlots + kCount] = Value::integer(0);
      g.state[1 + i * kSlots + kTotal] = Value::real(0);
      g.state[1 + i * kSlots + kNonInteger] = Value::integer(0);
    }
    g.hasState = true;
  }
  Row& s = g.state;
  s[0] = Value::integer(s[0].asInt() + sign);
  for (size_t i = 0; i < nagg && !g.recompute; ++i) {
    MvAggregate::Kind kind = analysis_.aggregates[i].kind;
    if (kind == MvAggregate::Kind::kCountStar) continue;
    Value x = args_[i]->eval(ctx);
    if (x.isNull()) continue;
    Value* slot = &s[1 + i * kSlots];
    int64_t count = slot[kCount].asInt() + sign;
    slot[kCount] = Value::integer(count);
    bool numeric = kind == MvAggregate::Kind::kSum || kind == MvAggregate::Kind::kTotal || kind == MvAggregate::Kind::kAvg;
    if (numeric && x.kind() != ValueKind::kInteger) {
      g.recompute = true;  // floating-point and text inputs: the body's own evaluation decides
      break;
    }
    if (count == 0) {
      slot[kSum] = Value();
      slot[kAvg] = Value();
      slot[kTotal] = Value::real(0);
      slot[kMin] = Value();
      slot[kMax] = Value();
      continue;
    }
    if (numeric) {
      if (!moveSum(slot[kSum], x, sign)) {
        g.recompute = true;
        break;
      }
      double sum = static_cast<double>(slot[kSum].asInt());
      slot[kTotal] = Value::real(sum);
      slot[kAvg] = Value::real(sum / static_cast<double>(count));
    } else if (kind == MvAggregate::Kind::kMin || kind == MvAggregate::Kind::kMax) {
      bool min = kind == MvAggregate::Kind::kMin;
      if (!moveExtremum(slot[min ? kMin : kMax], x, sign, min ? -1 : 1, *args_[i])) g.recompute = true;
    }
  }
}

// Backing-state contribution: the counts move first, so a sum or extremum reads its input count
// (the count(*) or count(x) column it shares) as it is after this row.
void AggregateDelta::contributeToBacking(Group& g, int sign, const EvalContext& ctx) {
  const std::vector<MvAggregate>& aggs = analysis_.aggregates;
  if (!g.hasState) {
    if (sign < 0) {
      g.recompute = true;
      return;
    }
    if (g.next.capacity() == 0) g.next = ctx_.txn().spareRow();
    g.next.assign(probe_.size(), Value());
    for (size_t i = 0; i < g.key.size(); ++i) g.next[analysis_.key[i]] = g.key[i];
    for (const MvAggregate& a : aggs) {
      if (a.kind == MvAggregate::Kind::kCountStar || a.kind == MvAggregate::Kind::kCount) g.next[a.output] = Value::integer(0);
    }
    g.hasState = true;
  }
  Row& b = g.next;
  auto bump = [&](Value& count) { count = Value::integer(count.asInt() + sign); };
  bump(b[countStarOutput_]);
  for (size_t i = 0; i < aggs.size(); ++i) {
    if (aggs[i].kind != MvAggregate::Kind::kCount) continue;
    if (!args_[i]->eval(ctx).isNull()) bump(b[aggs[i].output]);
  }
  for (size_t i = 0; i < aggs.size() && !g.recompute; ++i) {
    const MvAggregate& a = aggs[i];
    if (a.kind == MvAggregate::Kind::kCountStar || a.kind == MvAggregate::Kind::kCount) continue;
    Value x = args_[i]->eval(ctx);
    if (x.isNull()) continue;
    Value& v = b[a.output];
    if (b[countOutput_[i] < 0 ? countStarOutput_ : countOutput_[i]].asInt() == 0) {
      v = Value();
      continue;
    }
    bool moved = a.kind == MvAggregate::Kind::kSum ? moveSum(v, x, sign)
                                                   : moveExtremum(v, x, sign, a.kind == MvAggregate::Kind::kMin ? -1 : 1, *args_[i]);
    if (!moved) g.recompute = true;
  }
}

// The group `row` belongs to, started (and its current state read) on first sight. Groups are
// told apart by the backing key when the backing is the state (one encoding, not two), by the
// state store's key otherwise.
AggregateDelta::Group& AggregateDelta::groupOf(const Row& row, const TableStore& out) {
  const std::vector<int>& cols = analysis_.keySourceColumns;
  id_.clear();
  if (backingState_) {
    for (size_t i = 0; i < cols.size(); ++i) probe_[analysis_.key[i]] = row[cols[i]];
    out.primaryKey(probe_, id_);
  } else {
    for (size_t i = 0; i < cols.size(); ++i) encodeKey(row[cols[i]], keyColumns_[i].collation, false, id_);
  }
  // A statement touches few groups as a rule: a scan beats hashing until there are many.
  constexpr size_t kScanned = 8;
  if (used_ <= kScanned) {
    for (size_t i = 0; i < used_; ++i) if (groups_[i]->id == id_) return *groups_[i];
  } else if (auto it = index_.find(id_); it != index_.end()) {
    return *groups_[it->second];
  }
  if (used_ == groups_.size()) groups_.push_back(std::make_unique<Group>());
  Group& g = *groups_[used_++];
  g.id.assign(id_);
  g.key.clear();
  for (int col : cols) g.key.push_back(row[col]);
  g.recompute = false;
  if (used_ == kScanned + 1) {
    for (size_t i = 0; i < used_; ++i) index_.emplace(groups_[i]->id, i);
  } else if (used_ > kScanned + 1) {
    index_.emplace(g.id, used_ - 1);
  }
  load(g, out);
  return g;
}

void AggregateDelta::load(Group& g, const TableStore& out) {
  if (backingState_) {
    g.pk.assign(g.id);
  } else {
    for (size_t i = 0; i < g.key.size(); ++i) probe_[analysis_.key[i]] = g.key[i];
    g.pk.clear();
    out.primaryKey(probe_, g.pk);
  }
  g.hasStored = out.getEncoded(g.pk, &g.stored);
  if (g.hasStored) {
    if (g.current.capacity() == 0) g.current = ctx_.txn().spareRow();  // the last one went to the log
    decodeRow(g.stored, g.current);
  }
  if (backingState_) {
    g.hasState = g.hasStored;
    if (g.hasState) {
      if (g.next.capacity() == 0) g.next = ctx_.txn().spareRow();
      g.next.assign(g.current.begin(), g.current.end());
    }
    g.hasPrevious = false;
  } else {
    g.hasPrevious = state_->get(g.id, &g.previous);
    g.hasState = g.hasPrevious;
    if (g.hasState) decodeRow(g.previous, g.state);
  }
}

// Writes the group's state and backing row; a value-identical row is not written.
void AggregateDelta::write(Group& g, TableStore& out) {
  if (g.recompute) {
    Row r = recompute(g.key);
    g.hasState = !r.empty();
    if (g.hasState && backingState_) g.next = outputRow(g.key, r, probe_.size());
    else if (g.hasState) g.state = std::move(r);
  }
  if (g.hasState && (backingState_ ? g.next[countStarOutput_] : g.state[0]).asInt() == 0) g.hasState = false;
  Transaction& txn = ctx_.txn();
  if (!backingState_) {
    if (g.hasState) {
      encoded_.clear();
      encodeRow(g.state, encoded_);
      if (!g.hasPrevious || g.previous != encoded_) {
        txn.recordWrite(state_.get(), g.id, g.hasPrevious ? std::optional<std::string>(std::move(g.previous)) : std::nullopt);
        state_->put(g.id, encoded_);
      }
    } else if (g.hasPrevious) {
      txn.recordWrite(state_.get(), g.id, std::move(g.previous));
      state_->erase(g.id);
    }
  }
  if (g.hasState) {
    Row next = backingState_ ? std::move(g.next) : outputRow(g.key, g.state, probe_.size());
    if (contract_) contract_->apply(next);
    encoded_.clear();
    encodeRow(next, encoded_);
    if (g.hasStored && g.stored == encoded_) return;
    if (g.hasStored) out.replaceEncoded(g.pk, std::move(g.stored), std::move(g.current), std::move(next), encoded_);
    else out.insertEncoded(g.pk, std::move(next), encoded_);
  } else if (g.hasStored) {
    out.eraseEncoded(g.pk, std::move(g.stored), std::move(g.current));
  }
}

}  // namespace optic
