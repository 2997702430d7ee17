// Watch matching cost (api-and-watch.md §5, issue 6): an autocommit UPDATE of one row of a
// 10k-row table, with 0 watches, with 1,000 row-scoped watches on other rows of that table (none
// fires) and with 1,000 row-scoped watches of which the updated row's fires. Side by side in
// one run; the target is ≤ 2× the no-watch time. Items = committed updates.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "core/api/database.h"

namespace {

using optic::ChangeScope;
using optic::Database;
using optic::ScopeValue;
using optic::TableWatch;
using optic::Value;
using optic::WatchKind;

constexpr int64_t kRows = 10'000;
constexpr int64_t kWatches = 1'000;
constexpr int64_t kUpdatedId = 5'000;

ChangeScope rowWatch(int64_t id) {
  ChangeScope s;
  TableWatch w;
  w.schema = "main";
  w.table = "t";
  w.scope.kind = WatchKind::kRows;
  w.scope.columns = {"id"};
  w.scope.values.push_back({ScopeValue::literal(Value::integer(id))});
  s.watches.push_back(std::move(w));
  return s;
}

// `watches` row watches on ids 1..watches, shifted past kUpdatedId unless `includeUpdated`.
void runUpdates(benchmark::State& state, int64_t watches, bool includeUpdated) {
  Database db;
  db.exec("create table t (id integer primary key, v integer)");
  auto insert = db.prepare("insert into t values (?, 0)");
  db.exec("begin");
  for (int64_t id = 1; id <= kRows; ++id) {
    insert->bind(1, Value::integer(id));
    insert->step();
    insert->reset();
  }
  db.exec("commit");
  int64_t fired = 0;
  for (int64_t i = 0; i < watches; ++i) {
    int64_t id = includeUpdated ? kUpdatedId - watches / 2 + i : kUpdatedId + 1 + i;
    db.watch(rowWatch(id), [&fired](const optic::WatchEvent&) { ++fired; });
  }
  auto update = db.prepare("update t set v = v + 1 where id = ?");
  update->bind(1, Value::integer(kUpdatedId));
  for (auto _ : state) {
    update->step();
    update->reset();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["fired_per_commit"] = static_cast<double>(fired) / static_cast<double>(state.iterations());
}

void BM_UpdateOneRow_NoWatches(benchmark::State& state) { runUpdates(state, 0, false); }
void BM_UpdateOneRow_1000RowWatches_NoneHit(benchmark::State& state) { runUpdates(state, kWatches, false); }
void BM_UpdateOneRow_1000RowWatches_OneHit(benchmark::State& state) { runUpdates(state, kWatches, true); }

}  // namespace

BENCHMARK(BM_UpdateOneRow_NoWatches)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UpdateOneRow_1000RowWatches_NoneHit)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_UpdateOneRow_1000RowWatches_OneHit)->Unit(benchmark::kMicrosecond);
