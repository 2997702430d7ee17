// The app-shaped workloads of bench/js/vs-sqljs.mjs, natively, for profiling (perf) and
// before/after figures: `ev`, 100k events with two secondary indexes, queried as an app would.
//   App/IndexedLookup  1k lookups by an indexed column (100 rows each)
//   App/IndexRange     1k ranges on an indexed column (50 rows each)
//   App/PkRange        1k primary-key ranges (100 rows each)
//   App/TopN           200 × `order by ts desc limit 20`
//   App/InList         1k IN lists of 5 values on an indexed column (500 rows each)
//   App/LikePrefix     20 × count over `status like 'ship%'`
//   App/FilteredAgg    20 × count/avg over an unindexed filter
//   App/IndexJoin      20 × join on an indexed column
//   App/UpdateByIndex  1k updates selecting rows by an indexed column, one transaction
//   App/LiveTopN       a live `order by ts desc limit 20`: one autocommitted one-row update that
//                      changes its answer, until the new result is delivered (per iteration)
// Each iteration runs one workload's whole loop (every row stepped); the table is built once.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/api/database.h"
#include "core/api/live_query.h"

namespace {

using optic::Database;
using optic::Value;

constexpr int64_t kN = 100'000;
const char* const kStatuses[] = {"pending", "paid", "shipped", "refunded"};

std::unique_ptr<Database> makeEventDatabase() {
  auto db = std::make_unique<Database>();
  db->exec(
      "create table ev (id integer primary key, cat integer, ts integer, status text, amount real);"
      "create index ev_cat on ev (cat);"
      "create index ev_ts on ev (ts);"
      "create table cats (id integer primary key, label text)");
  db->exec("begin");
  auto ev = db->prepare("insert into ev values (?, ?, ?, ?, ?)");
  for (int64_t i = 0; i < kN; ++i) {
    ev->bind(1, Value::integer(i));
    ev->bind(2, Value::integer((i * 7) % 1000));
    ev->bind(3, Value::integer((i * 7919) % kN));
    ev->bind(4, Value::text(kStatuses[i % 4]));
    ev->bind(5, Value::real(static_cast<double>((i * 31) % 1000)));
    ev->step();
    ev->reset();
  }
  auto cats = db->prepare("insert into cats values (?, ?)");
  for (int64_t i = 0; i < 1000; ++i) {
    cats->bind(1, Value::integer(i));
    cats->bind(2, Value::text("cat" + std::to_string(i)));
    cats->step();
    cats->reset();
  }
  db->exec("commit");
  return db;
}

Database& eventDatabase() {
  static std::unique_ptr<Database> db = makeEventDatabase();
  return *db;
}

using Params = std::function<std::vector<int64_t>(int64_t)>;

// `runs` executions of `sql`, the i-th with params(i); every row stepped.
void runApp(benchmark::State& state, const char* sql, int64_t runs, const Params& params) {
  Database& db = eventDatabase();
  auto st = db.prepare(sql);
  int64_t rows = 0;
  for (auto _ : state) {
    for (int64_t i = 0; i < runs; ++i) {
      std::vector<int64_t> p = params(i);
      for (size_t k = 0; k < p.size(); ++k) st->bind(static_cast<int>(k + 1), Value::integer(p[k]));
      while (st->step()) {
        benchmark::DoNotOptimize(st->row().data());
        ++rows;
      }
      st->reset();
    }
  }
  state.counters["rows/run"] = static_cast<double>(rows) / static_cast<double>(state.iterations() * runs);
}

std::vector<int64_t> none(int64_t) { return {}; }

void BM_AppIndexedLookup(benchmark::State& s) {
  runApp(s, "select id, amount from ev where cat = ?", 1000, [](int64_t i) { return std::vector<int64_t>{(i * 13) % 1000}; });
}
void BM_AppIndexRange(benchmark::State& s) {
  runApp(s, "select id from ev where ts >= ? and ts < ?", 1000, [](int64_t i) {
    int64_t lo = (i * 97) % (kN - 50);
    return std::vector<int64_t>{lo, lo + 50};
  });
}
void BM_AppPkRange(benchmark::State& s) {
  runApp(s, "select id, amount from ev where id >= ? and id < ?", 1000, [](int64_t i) {
    int64_t lo = (i * 89) % (kN - 100);
    return std::vector<int64_t>{lo, lo + 100};
  });
}
void BM_AppTopN(benchmark::State& s) { runApp(s, "select id, ts from ev order by ts desc limit 20", 200, none); }
void BM_AppInList(benchmark::State& s) {
  runApp(s, "select id from ev where cat in (?, ?, ?, ?, ?)", 1000, [](int64_t i) {
    return std::vector<int64_t>{i % 1000, (i + 200) % 1000, (i + 400) % 1000, (i + 600) % 1000, (i + 800) % 1000};
  });
}
void BM_AppLikePrefix(benchmark::State& s) {
  runApp(s, "select count(*) as n from ev where status like 'ship%'", 20, none);
}
void BM_AppFilteredAgg(benchmark::State& s) {
  runApp(s, "select count(*) as n, avg(amount) as a from ev where amount > 900", 20, none);
}
void BM_AppIndexJoin(benchmark::State& s) {
  runApp(s, "select count(*) as n from cats join ev on ev.cat = cats.id where cats.id < 10", 20, none);
}
// Written large table first, filtered on the small one: the planner must start from cats.
void BM_AppJoinOrder(benchmark::State& s) {
  runApp(s, "select ev.id, cats.label from ev join cats on ev.cat = cats.id where cats.id = ?", 1000,
         [](int64_t i) { return std::vector<int64_t>{(i * 13) % 1000}; });
}
void BM_AppUpdateByIndex(benchmark::State& s) {
  Database& db = eventDatabase();
  auto st = db.prepare("update ev set amount = amount + 1 where cat = ?");
  for (auto _ : s) {
    db.exec("begin");
    for (int64_t i = 0; i < 1000; ++i) {
      st->bind(1, Value::integer(i));
      while (st->step()) {
      }
      st->reset();
    }
    db.exec("commit");
  }
}

void BM_AppLiveTopN(benchmark::State& s) {
  std::unique_ptr<Database> db = makeEventDatabase();
  int64_t delivered = 0;
  auto live = optic::LiveQuery::start(*db, "select id, ts from ev order by ts desc limit 20", {},
                                      [&](const optic::LiveResult&) { ++delivered; });
  auto update = db->prepare("update ev set ts = ? where id = ?");
  int64_t ts = kN;
  for (auto _ : s) {
    update->bind(1, Value::integer(ts));
    update->bind(2, Value::integer((ts * 7) % kN));
    ++ts;
    while (update->step()) {
    }
    update->reset();
  }
  live->stop();
  s.counters["deliveries/update"] = static_cast<double>(delivered - 1) / static_cast<double>(s.iterations());
}

BENCHMARK(BM_AppIndexedLookup)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppIndexRange)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppPkRange)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppTopN)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppInList)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppLikePrefix)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppFilteredAgg)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppIndexJoin)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppJoinOrder)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppUpdateByIndex)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppLiveTopN)->Unit(benchmark::kMicrosecond);

}  // namespace
