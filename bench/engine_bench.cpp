// opticdb_bench: Google Benchmark workloads over the public API (Database / Statement).
//   Insert100k       100k prepared inserts inside one transaction
//   PointSelect10k   10k prepared primary-key lookups over a 100k-row table (autocommit each)
//   PointSelect10kInTxn  the same lookups inside one explicit transaction
//   ScanAggregate    select count(*), sum(v) over 100k rows
//   GroupBy100       100-group GROUP BY over 100k rows
//   EquiJoin         10k x 1k equi-join, count(*)
// Table setup happens outside the timed region; every workload reports items/second, where an
// item is one inserted row, one lookup, or one input row of the scanned / joined table.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/api/database.h"

namespace {

using optic::Database;
using optic::Statement;
using optic::Value;

constexpr int64_t kTableRows = 100'000;
constexpr int64_t kGroups = 100;
constexpr int64_t kPointSelects = 10'000;
constexpr int64_t kJoinLeftRows = 10'000;
constexpr int64_t kJoinRightRows = 1'000;

// Creates `create table t (id integer primary key, g integer, v real)`.
void createMainTable(Database& db) {
  db.exec("create table t (id integer primary key, g integer, v real)");
}

// Fills t with ids 1..rows, g = id % kGroups, v = id * 0.5, in one transaction.
void fillMainTable(Database& db, int64_t rows) {
  auto insert = db.prepare("insert into t values (?, ?, ?)");
  db.exec("begin");
  for (int64_t id = 1; id <= rows; ++id) {
    insert->bind(1, Value::integer(id));
    insert->bind(2, Value::integer(id % kGroups));
    insert->bind(3, Value::real(static_cast<double>(id) * 0.5));
    insert->step();
    insert->reset();
  }
  db.exec("commit");
}

// A fresh database holding t with kTableRows rows.
std::unique_ptr<Database> makeFilledDatabase() {
  auto db = std::make_unique<Database>();
  createMainTable(*db);
  fillMainTable(*db, kTableRows);
  return db;
}

// Creates a(id, k) with kJoinLeftRows rows (k cycles over b's ids) and b(id, name) with
// kJoinRightRows rows.
std::unique_ptr<Database> makeJoinDatabase() {
  auto db = std::make_unique<Database>();
  db->exec("create table a (id integer primary key, k integer)");
  db->exec("create table b (id integer primary key, name text)");
  db->exec("begin");
  auto insertA = db->prepare("insert into a values (?, ?)");
  for (int64_t id = 1; id <= kJoinLeftRows; ++id) {
    insertA->bind(1, Value::integer(id));
    insertA->bind(2, Value::integer(id % kJoinRightRows + 1));
    insertA->step();
    insertA->reset();
  }
  auto insertB = db->prepare("insert into b values (?, ?)");
  for (int64_t id = 1; id <= kJoinRightRows; ++id) {
    insertB->bind(1, Value::integer(id));
    insertB->bind(2, Value::text("name" + std::to_string(id)));
    insertB->step();
    insertB->reset();
  }
  db->exec("commit");
  return db;
}

// Steps a prepared statement to completion; returns the number of rows it produced.
int64_t drain(Statement& stmt) {
  int64_t rows = 0;
  while (stmt.step()) {
    benchmark::DoNotOptimize(stmt.row().data());
    ++rows;
  }
  stmt.reset();
  return rows;
}

// Runs `sql` once per iteration over `db`, checking it yields `expectedRows` rows.
void runQuery(benchmark::State& state, Database& db, const char* sql, int64_t expectedRows,
              int64_t itemsPerRun) {
  auto stmt = db.prepare(sql);
  for (auto _ : state) {
    int64_t rows = drain(*stmt);
    if (rows != expectedRows) {
      state.SkipWithError("unexpected row count");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * itemsPerRun);
}

// Shared 100k-row database for the read-only workloads (built once, on first use).
Database& filledDatabase() {
  static std::unique_ptr<Database> db = makeFilledDatabase();
  return *db;
}

Database& joinDatabase() {
  static std::unique_ptr<Database> db = makeJoinDatabase();
  return *db;
}

void BM_Insert100k(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto db = std::make_unique<Database>();
    createMainTable(*db);
    state.ResumeTiming();
    fillMainTable(*db, kTableRows);
    state.PauseTiming();
    db.reset();  // teardown not timed
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kTableRows);
}

// Runs kPointSelects primary-key lookups; false (after flagging the error) when one misses.
bool pointSelects(benchmark::State& state, Statement& select) {
  for (int64_t i = 0; i < kPointSelects; ++i) {
    int64_t id = (i * 7919) % kTableRows + 1;  // spread over the key range
    select.bind(1, Value::integer(id));
    if (!select.step()) {
      state.SkipWithError("point select found no row");
      return false;
    }
    benchmark::DoNotOptimize(select.row().data());
    select.reset();
  }
  return true;
}

// Each lookup autocommits (the common case for an application issuing reads).
void BM_PointSelect10k(benchmark::State& state) {
  Database& db = filledDatabase();
  auto select = db.prepare("select g, v from t where id = ?");
  for (auto _ : state) {
    if (!pointSelects(state, *select)) return;
  }
  state.SetItemsProcessed(state.iterations() * kPointSelects);
}

// The same lookups inside one explicit transaction: no commit between steps, so this isolates
// the per-commit cost (see README: every commit currently forces prepared plans to re-bind).
void BM_PointSelect10kInTxn(benchmark::State& state) {
  Database& db = filledDatabase();
  auto select = db.prepare("select g, v from t where id = ?");
  for (auto _ : state) {
    db.exec("begin");
    bool ok = pointSelects(state, *select);
    db.exec("commit");
    if (!ok) return;
  }
  state.SetItemsProcessed(state.iterations() * kPointSelects);
}

void BM_ScanAggregate(benchmark::State& state) {
  runQuery(state, filledDatabase(), "select count(*), sum(v) from t", 1, kTableRows);
}

void BM_GroupBy100(benchmark::State& state) {
  runQuery(state, filledDatabase(), "select g, count(*), sum(v) from t group by g", kGroups,
           kTableRows);
}

void BM_EquiJoin(benchmark::State& state) {
  runQuery(state, joinDatabase(), "select count(*) from a join b on a.k = b.id", 1,
           kJoinLeftRows);
}

BENCHMARK(BM_Insert100k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PointSelect10k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PointSelect10kInTxn)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanAggregate)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GroupBy100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EquiJoin)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
