// View write-through benchmarks: the same prepared write against a base table and through a
// passthrough view over it, side by side in one run (issue 5 target: view ≤ 1.2× base).
//   InsertBase / InsertThroughView   10k prepared inserts inside one transaction
//   UpdateBase / UpdateThroughView   10k prepared primary-key updates inside one transaction
// The view is `create view tv as select id, g, v from t`; a write through it is lowered to the
// base statement at prepare time, so per-row execution should cost the same. Setup is untimed;
// an item is one written row.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/api/database.h"

namespace {

using optic::Database;
using optic::Value;

constexpr int64_t kRows = 10'000;

std::unique_ptr<Database> makeDatabase() {
  auto db = std::make_unique<Database>();
  db->exec("create table t (id integer primary key, g integer, v real)");
  db->exec("create view tv as select id, g, v from t");
  return db;
}

void runInserts(benchmark::State& state, const std::string& target) {
  for (auto _ : state) {
    state.PauseTiming();
    auto db = makeDatabase();
    auto insert = db->prepare("insert into " + target + " (id, g, v) values (?, ?, ?)");
    state.ResumeTiming();
    db->exec("begin");
    for (int64_t id = 1; id <= kRows; ++id) {
      insert->bind(1, Value::integer(id));
      insert->bind(2, Value::integer(id % 100));
      insert->bind(3, Value::real(static_cast<double>(id)));
      insert->step();
      insert->reset();
    }
    db->exec("commit");
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

void runUpdates(benchmark::State& state, const std::string& target) {
  auto db = makeDatabase();
  auto fill = db->prepare("insert into t values (?, ?, ?)");
  db->exec("begin");
  for (int64_t id = 1; id <= kRows; ++id) {
    fill->bind(1, Value::integer(id));
    fill->bind(2, Value::integer(id % 100));
    fill->bind(3, Value::real(0));
    fill->step();
    fill->reset();
  }
  db->exec("commit");
  auto update = db->prepare("update " + target + " set v = v + 1 where id = ?");
  for (auto _ : state) {
    db->exec("begin");
    for (int64_t id = 1; id <= kRows; ++id) {
      update->bind(1, Value::integer(id));
      update->step();
      update->reset();
    }
    db->exec("commit");
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

void BM_InsertBase(benchmark::State& state) { runInserts(state, "t"); }
void BM_InsertThroughView(benchmark::State& state) { runInserts(state, "tv"); }
void BM_UpdateBase(benchmark::State& state) { runUpdates(state, "t"); }
void BM_UpdateThroughView(benchmark::State& state) { runUpdates(state, "tv"); }

BENCHMARK(BM_InsertBase)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InsertThroughView)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UpdateBase)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UpdateThroughView)->Unit(benchmark::kMillisecond);

}  // namespace
