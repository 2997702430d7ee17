// Aggregate delta maintenance (aggregate_delta.h).
#include "core/maintenance/aggregate_delta.h"

#include <algorithm>
#include <map>

#include "core/api/engine.h"
#include "core/common/error.h"
#include "core/common/key_codec.h"
#include "core/common/value_ops.h"
#include "core/execution/arithmetic.h"
#include "core/execution/operator.h"
#include "core/parser/ast_clone.h"
#include "core/planner/expr_binder.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"
#include "core/storage/row_codec.h"
#include "core/storage/table_store.h"

namespace optic {
namespace {

// Per aggregate, the state columns after the group's count(*).
enum StateSlot : size_t { kCount, kSum, kMin, kMax, kAvg, kTotal, kNonInteger, kSlots };

}  // namespace

AggregateDelta::AggregateDelta(Engine& engine, const MvAnalysis& analysis, const ast::Select& body,
                               std::shared_ptr<const TableSchema> source, const MaterializedView* derivation)
    : engine_(engine), analysis_(analysis), source_(std::move(source)), derivation_(derivation),
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
  Binder binder(engine);
  binder.setHomeSchema(source_->schemaName);
  statePlan_ = binder.bindQuery(*stateAst_, nullptr);
  stateResidualAst_ = residualQuery(*stateAst_, analysis, *source_);
  Binder residualBinder(engine);
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
  Binder exprBinder(engine);
  exprBinder.setHomeSchema(source_->schemaName);
  if (analysis.filter) filter_ = ExprBinder(exprBinder, scope).bind(*analysis.filter);
  for (const MvAggregate& g : analysis.aggregates) args_.push_back(g.arg ? ExprBinder(exprBinder, scope).bind(*g.arg) : nullptr);
  for (int col : analysis.keySourceColumns) keyColumns_.push_back(KeyColumn{col, false, source_->columns[col].collation});
  planBackingState();
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

Row AggregateDelta::stateFromBacking(const Row& b) const {
  size_t nagg = analysis_.aggregates.size();
  Row s(1 + nagg * kSlots);
  s[0] = b[countStarOutput_];
  for (size_t i = 0; i < nagg; ++i) {
    const MvAggregate& g = analysis_.aggregates[i];
    Value* slot = &s[1 + i * kSlots];
    slot[kTotal] = Value::real(0);
    slot[kNonInteger] = Value::integer(0);
    if (g.kind == MvAggregate::Kind::kCountStar) continue;
    slot[kCount] = g.kind == MvAggregate::Kind::kCount ? b[g.output] : b[countOutput_[i] < 0 ? countStarOutput_ : countOutput_[i]];
    if (g.kind == MvAggregate::Kind::kSum) slot[kSum] = b[g.output];
    if (g.kind == MvAggregate::Kind::kMin) slot[kMin] = b[g.output];
    if (g.kind == MvAggregate::Kind::kMax) slot[kMax] = b[g.output];
  }
  return s;
}

std::string AggregateDelta::groupKey(const std::vector<Value>& key) const {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) encodeKey(key[i], keyColumns_[i].collation, false, out);
  return out;
}

void AggregateDelta::build() {
  state_->clear();
  if (backingState_) {
    markBuilt();  // the caller's rebuild makes the backing (the state) exact
    return;
  }
  std::vector<Value> none;
  ExecState st = engineExecState(engine_, &none);
  size_t nk = analysis_.key.size();
  for (Row& r : drain(*statePlan_.root, st, nullptr)) {
    std::vector<Value> key(r.begin(), r.begin() + static_cast<long>(nk));
    Row state(r.begin() + static_cast<long>(nk), r.end());
    state_->put(groupKey(key), encodeRow(state));
  }
  markBuilt();
}

void AggregateDelta::markBuilt() {
  *valid_ = true;
  // Rolled back past this build: the state no longer mirrors the source; rebuild on next use.
  std::shared_ptr<bool> valid = valid_;
  engine_.txn().recordUndo([valid] { *valid = false; });
}

Row AggregateDelta::recompute(const std::vector<Value>& key) {
  ExecState st = engineExecState(engine_, &key);
  std::vector<Row> rows = drain(*stateResidual_.root, st, nullptr);
  if (rows.empty()) return Row{};
  Row& r = rows.front();
  return Row(r.begin() + static_cast<long>(analysis_.key.size()), r.end());
}

Row AggregateDelta::outputRow(const std::vector<Value>& key, const Row& state, size_t width) const {
  Row out(width);
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

bool AggregateDelta::apply(Table& backing, const std::vector<size_t>& changes) {
  if (!*valid_) {
    build();
    return false;
  }
  Transaction& txn = engine_.txn();
  TableStore out(backing, txn);
  size_t width = backing.schema().columns.size();
  // Group contributions of every changed row, in log order.
  struct Pending {
    std::vector<Value> key;
    std::optional<Row> state;  // current state (absent: a new group)
    std::optional<std::string> previous;  // the state store's bytes (state-store mode)
    std::string pk;                       // the group's backing key and stored row
    std::optional<std::string> stored;
    std::optional<Row> current;
    bool recompute = false;
  };
  Row probe(width);
  auto backingKey = [&](const std::vector<Value>& key) {
    for (size_t i = 0; i < analysis_.key.size(); ++i) probe[analysis_.key[i]] = key[i];
    return out.primaryKey(probe);
  };
  auto load = [&](Pending& p, const std::string& gk) {
    if (p.pk.empty()) p.pk = backingKey(p.key);
    p.stored = backing.rows().get(p.pk);
    if (p.stored) p.current = decodeRow(*p.stored);
    if (backingState_) {
      if (p.current) p.state = stateFromBacking(*p.current);
    } else if ((p.previous = state_->get(gk))) {
      p.state = decodeRow(*p.previous);
    }
  };
  std::map<std::string, Pending> groups;
  std::vector<Value> none;
  ExecState st = engineExecState(engine_, &none);
  const std::vector<RowChange>& log = engine_.txn().changes();
  size_t nagg = analysis_.aggregates.size();
  auto contribute = [&](const Row& row, int sign) {
    EvalContext ctx{&row, nullptr, &st};
    if (filter_ && truthValue(filter_->eval(ctx)) != true) return;
    std::vector<Value> key;
    key.reserve(analysis_.keySourceColumns.size());
    for (int col : analysis_.keySourceColumns) key.push_back(row[col]);
    // Groups are told apart by the backing key when the backing is the state (one encoding,
    // not two); the state store is keyed by the group key otherwise.
    std::string gk = backingState_ ? backingKey(key) : groupKey(key);
    auto [it, fresh] = groups.try_emplace(gk);
    Pending& p = it->second;
    if (fresh) {
      if (backingState_) p.pk = gk;
      p.key = std::move(key);
      load(p, gk);
    }
    if (p.recompute) return;
    if (!p.state) {
      if (sign < 0) {
        p.recompute = true;
        return;
      }
      Row s(1 + nagg * kSlots);
      s[0] = Value::integer(0);
      for (size_t i = 0; i < nagg; ++i) {
        s[1 + i * kSlots + kCount] = Value::integer(0);
        s[1 + i * kSlots + kTotal] = Value::real(0);
        s[1 + i * kSlots + kNonInteger] = Value::integer(0);
      }
      p.state = std::move(s);
    }
    Row& s = *p.state;
    s[0] = Value::integer(s[0].asInt() + sign);
    for (size_t i = 0; i < nagg && !p.recompute; ++i) {
      MvAggregate::Kind kind = analysis_.aggregates[i].kind;
      if (kind == MvAggregate::Kind::kCountStar) continue;
      Value x = args_[i]->eval(ctx);
      if (x.isNull()) continue;
      Value* slot = &s[1 + i * kSlots];
      int64_t count = slot[kCount].asInt() + sign;
      slot[kCount] = Value::integer(count);
      bool numeric = kind == MvAggregate::Kind::kSum || kind == MvAggregate::Kind::kTotal || kind == MvAggregate::Kind::kAvg;
      if (numeric && x.kind() != ValueKind::kInteger) {
        p.recompute = true;  // floating-point and text inputs: the body's own evaluation decides
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
        Value sum = slot[kSum].isNull() ? x : (sign > 0 ? add(slot[kSum], x) : subtract(slot[kSum], x));
        if (sum.kind() != ValueKind::kInteger) {
          p.recompute = true;
          break;
        }
        slot[kSum] = sum;
        slot[kTotal] = Value::real(static_cast<double>(sum.asInt()));
        slot[kAvg] = Value::real(static_cast<double>(sum.asInt()) / static_cast<double>(count));
      } else if (kind == MvAggregate::Kind::kMin || kind == MvAggregate::Kind::kMax) {
        Value& best = slot[kind == MvAggregate::Kind::kMin ? kMin : kMax];
        int dir = kind == MvAggregate::Kind::kMin ? -1 : 1;
        if (sign > 0) {
          if (best.isNull() || compareValues(x, best) * dir > 0) best = x;
        } else if (best.isNull() || compareValues(x, best) == 0) {
          p.recompute = true;  // the group's extremum left: only its rows know the next one
        }
      }
    }
  };
  for (size_t i : changes) {
    if (log[i].oldRow) contribute(*log[i].oldRow, -1);
    if (log[i].newRow) contribute(*log[i].newRow, +1);
  }
  // Write the states and the backing rows.
  for (auto& [gk, p] : groups) {
    std::optional<Row> state = std::move(p.state);
    if (p.recompute) {
      Row r = recompute(p.key);
      state = r.empty() ? std::nullopt : std::optional<Row>(std::move(r));
    }
    if (state && state->at(0).asInt() == 0) state.reset();
    if (!backingState_) {
      if (state) {
        std::string enc = encodeRow(*state);
        if (!p.previous || *p.previous != enc) {
          txn.recordWrite(state_.get(), gk, p.previous);
          state_->put(gk, enc);
        }
      } else if (p.previous) {
        txn.recordWrite(state_.get(), gk, p.previous);
        state_->erase(gk);
      }
    }
    if (state) {
      Row next = outputRow(p.key, *state, width);
      std::string enc = encodeRow(next);
      if (p.stored && *p.stored == enc) continue;
      if (p.stored) out.replaceEncoded(p.pk, std::move(*p.stored), std::move(*p.current), std::move(next), std::move(enc));
      else out.insertEncoded(p.pk, std::move(next), std::move(enc));
    } else if (p.stored) {
      out.eraseEncoded(p.pk, std::move(*p.stored), std::move(*p.current));
    }
  }
  return true;
}

}  // namespace optic
