// Interrupt (core/execution/interrupt.h): a statement that would run forever is stopped from
// another thread (Database::interrupt), at a deadline (Database::setDeadline) or, between its
// rows, by its caller (Statement::interrupt); it fails with kInterrupt "interrupted", is rolled
// back as a failing statement is, and the database stays usable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <new>
#include <thread>

#include "core/api/database.h"
#include "core/api/error_report.h"
#include "sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;
using Clock = std::chrono::steady_clock;

// A recursion whose condition never fails: n < json('{}') is never false.
constexpr const char* kRunaway =
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < json('{}')) select count(*) from r";

struct Outcome {
  ErrorCode code = ErrorCode::kError;
  std::string message;
  bool failed = false;
  double latencyMs = 0;  // from the first interrupt() to the statement's failure
};

// Runs `sql` while another thread, after `delay`, calls interrupt() until it returns (a request
// made before the statement starts is dropped, so it keeps asking).
Outcome runInterrupted(Database& db, const std::string& sql, std::chrono::milliseconds delay = std::chrono::milliseconds(50)) {
  std::atomic<bool> done{false};
  std::atomic<int64_t> firstAt{0};
  std::thread interrupter([&] {
    std::this_thread::sleep_for(delay);
    firstAt = Clock::now().time_since_epoch().count();
    while (!done) {
      db.interrupt();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  Outcome out;
  try {
    db.exec(sql);
  } catch (const Error& e) {
    out.failed = true;
    out.code = e.code();
    out.message = e.what();
  }
  auto end = Clock::now().time_since_epoch().count();
  done = true;
  interrupter.join();
  out.latencyMs = std::chrono::duration<double, std::milli>(Clock::duration(end - firstAt.load())).count();
  std::printf("  [interrupt latency %.2f ms]\n", out.latencyMs);
  return out;
}

void fill(Database& db, int n) {
  db.exec("create table t(x integer primary key, y text)");
  db.exec("insert into t select value, 'row ' || value from generate_series(1, " + std::to_string(n) + ")");
}

void expectInterrupted(const Outcome& o) {
  EXPECT_TRUE(o.failed);
  EXPECT_EQ(o.code, ErrorCode::kInterrupt);
  EXPECT_EQ(o.message, "interrupted");
  EXPECT_LT(o.latencyMs, 2000.0);
}

TEST(Interrupt, StopsARecursionThatNeverEnds) {
  Database db;
  expectInterrupted(runInterrupted(db, kRunaway));
  EXPECT_EQ(rows(db, "select 1 + 1"), "2");  // usable, and the request is gone
}

TEST(Interrupt, StopsABigCrossJoin) {
  Database db;
  fill(db, 2000);
  expectInterrupted(runInterrupted(db, "select count(*) from t a cross join t b cross join t c"));
  EXPECT_EQ(rows(db, "select count(*) from t"), "2000");
}

TEST(Interrupt, StopsASort) {
  Database db;
  fill(db, 2000);
  expectInterrupted(runInterrupted(db, "select a.x, b.y from t a cross join t b order by a.y desc, b.x * 7 % 13 limit 1"));
  EXPECT_EQ(rows(db, "select max(x) from t"), "2000");
}

TEST(Interrupt, StopsAnAggregationAndAWindow) {
  Database db;
  fill(db, 2000);
  expectInterrupted(runInterrupted(db, "select a.x % 7, count(*) from t a cross join t b cross join t c group by 1"));
  expectInterrupted(runInterrupted(
      db, "select count(*) from (select sum(a.x) over (order by a.x, b.x rows between unbounded preceding and "
          "unbounded following) from t a cross join t b)"));
}

TEST(Interrupt, RollsBackTheInterruptedStatementOnly) {
  Database db;
  fill(db, 10);
  // Autocommit: nothing of the interrupted write stays.
  expectInterrupted(runInterrupted(
      db, "insert into t select 100 + a.x * 10000 + b.x, 'z' from t a cross join t b cross join generate_series(1, 1000000)"));
  EXPECT_EQ(rows(db, "select count(*) from t"), "10");
  // Inside an explicit transaction: the statement's rows go, the transaction and its earlier
  // rows stay until the caller ends it.
  db.exec("begin");
  db.exec("insert into t values (11, 'kept')");
  expectInterrupted(runInterrupted(db, "insert into t with recursive r(n) as (select 1000 union all select n + 1 from r "
                                       "where n < json('{}')) select n, 'lost' from r"));
  EXPECT_FALSE(db.autocommit());
  EXPECT_EQ(rows(db, "select count(*), max(x) from t"), "11|11");
  db.exec("rollback");
  EXPECT_EQ(rows(db, "select count(*), max(x) from t"), "10|10");
}

TEST(Interrupt, ARequestWhileIdleIsDropped) {
  Database db;
  db.interrupt();
  EXPECT_EQ(rows(db, "select count(*) from generate_series(1, 5000)"), "5000");
}

TEST(Interrupt, ADeadlineStopsWhatRunsPastIt) {
  Database db;
  db.setDeadline(Clock::now() + std::chrono::milliseconds(30));
  auto start = Clock::now();
  try {
    db.exec(kRunaway);
    ADD_FAILURE() << "ran past its deadline";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInterrupt);
  }
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  EXPECT_LT(ms, 2000.0);
  db.setDeadline(std::nullopt);
  EXPECT_EQ(rows(db, "select count(*) from generate_series(1, 5000)"), "5000");
}

TEST(Interrupt, APollStopsWhatRunsWhenItSaysSo) {
  Database db;
  fill(db, 50);
  // The poll is asked while the statement runs (a flag another thread sets, in the wasm build's
  // worker mode); it says stop after a few thousand rows of work.
  int asked = 0;
  db.setInterruptPoll([&] { return ++asked >= 3; });
  try {
    db.exec("insert into t select 100 + value, 'new' from generate_series(1, 1000000)");
    ADD_FAILURE() << "ran past the poll";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInterrupt);
    EXPECT_STREQ(e.what(), "interrupted");
  }
  EXPECT_EQ(asked, 3);
  // Rolled back as a failing statement is; a poll that says go lets everything run.
  db.setInterruptPoll([] { return false; });
  EXPECT_EQ(rows(db, "select count(*) from t"), "50");
  EXPECT_EQ(rows(db, "select count(*) from generate_series(1, 100000)"), "100000");
  db.setInterruptPoll(nullptr);
  EXPECT_EQ(rows(db, "select count(*) from t"), "50");
}

TEST(Interrupt, AStatementInterruptedBetweenRowsRollsBackItsWrites) {
  Database db;
  db.exec("create table t(x integer primary key)");
  auto st = db.prepare("insert into t select value from generate_series(1, 10) returning x");
  ASSERT_TRUE(st->step());
  st->interrupt();  // reset() here would have kept the ten rows
  try {
    st->step();
    ADD_FAILURE() << "stepped after interrupt()";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInterrupt);
  }
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
  st->reset();
  int n = 0;
  while (st->step()) ++n;
  EXPECT_EQ(n, 10);
  EXPECT_EQ(rows(db, "select count(*) from t"), "10");
}

TEST(Interrupt, ARequestBetweenRowsStopsTheNextStep) {
  Database db;
  auto st = db.prepare("select value from generate_series(1, 100)");
  ASSERT_TRUE(st->step());
  db.interrupt();
  EXPECT_THROW(st->step(), Error);
  st->reset();
  EXPECT_TRUE(st->step());
}

// A failed allocation is the statement's failure, not a bug: it reaches the caller as ERROR "out
// of memory". The wasm's heap is bounded, so a statement can exhaust it: js/test/interrupt.test.ts
// runs one out of it for real.
TEST(OutOfMemory, IsReportedAsAnErrorNotAsABug) {
  try {
    throw std::bad_alloc();
  } catch (...) {
    ErrorReport r = reportCurrentException();
    EXPECT_EQ(r.code, "ERROR");
    EXPECT_EQ(r.message, "out of memory");
  }
}

}  // namespace
}  // namespace optic
