// Temporal arithmetic (core/execution/temporal_arithmetic.h) through SQL, and the plan-time
// numeric-argument gate of abs/round/floor/ceil/sqrt/clamp.
#include <gtest/gtest.h>

#include "core/execution/temporal_arithmetic.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;
using testing_sql::errorOf;

TEST(TemporalArithmetic, TimespanComparesByElapsedTime) {
  Database db;
  db.exec("create table s (id integer primary key, d timespan); insert into s values (1, 'PT2H'), (2, 'PT90M');");
  EXPECT_EQ(rows(db, "select id from s where d = 'PT120M'"), "1");
  EXPECT_EQ(rows(db, "select id from s where d > 'PT90M'"), "1");
  EXPECT_EQ(rows(db, "select id from s where d between 'PT30M' and 'PT100M'"), "2");
  EXPECT_EQ(rows(db, "select id from s where 'PT5400S' = d"), "2");
  // Plain text keeps comparing as text.
  EXPECT_EQ(rows(db, "select 'PT1H' = 'PT60M'"), "false");
}

TEST(TemporalArithmetic, DateShiftsClampToMonthEnd) {
  Database db;
  EXPECT_EQ(rows(db, "select date('2024-01-31') + timespan('P1M')"), "2024-02-29");
  EXPECT_EQ(rows(db, "select date('2023-01-31') + timespan('P1M')"), "2023-02-28");
  EXPECT_EQ(rows(db, "select timespan('P10D') + date('2024-01-15')"), "2024-01-25");
  EXPECT_EQ(rows(db, "select date('2024-03-31') - timespan('P1M')"), "2024-02-29");
}

TEST(TemporalArithmetic, DifferencesAreTimespans) {
  Database db;
  EXPECT_EQ(rows(db, "select date('2024-01-25') - date('2024-01-15')"), "P10D");
  EXPECT_EQ(rows(db, "select date('2024-01-15') - date('2024-01-25')"), "-P10D");
  EXPECT_EQ(rows(db, "select date('2024-01-15') - date('2024-01-15')"), "PT0S");
  EXPECT_EQ(rows(db, "select time('12:00:00') - time('10:30:00')"), "PT1H30M");
  // The difference is a TIMESPAN, so chaining it with a TIMESPAN is temporal again.
  EXPECT_EQ(rows(db, "select (date('2024-01-20') - date('2024-01-15')) + timespan('P1D')"), "P6D");
}

TEST(TemporalArithmetic, TimeWrapsAroundMidnight) {
  Database db;
  EXPECT_EQ(rows(db, "select time('23:00:00') + timespan('PT2H')"), "01:00:00");
  EXPECT_EQ(rows(db, "select time('01:00:00') - timespan('PT2H')"), "23:00:00");
  EXPECT_EQ(rows(db, "select datetime('2024-01-15T23:00:00') + timespan('PT2H')"), "2024-01-16T01:00:00");
}

TEST(TemporalArithmetic, DurationsCombineAndScale) {
  Database db;
  EXPECT_EQ(rows(db, "select timespan('PT1H') + timespan('PT30M')"), "PT1H30M");
  EXPECT_EQ(rows(db, "select timespan('PT30M') - timespan('PT1H')"), "-PT30M");
  EXPECT_EQ(rows(db, "select timespan('PT1H') * 2"), "PT7200S");
  EXPECT_EQ(rows(db, "select 3 * timespan('P1M')"), "P3M");
  EXPECT_EQ(rows(db, "select timespan('P1Y2M') / 2"), "P7M");
  EXPECT_EQ(rows(db, "select timespan('PT30M') / timespan('PT1H')"), "0.5");
  EXPECT_EQ(rows(db, "select timespan('PT1H') / 0"), "null");
  EXPECT_EQ(rows(db, "select timespan('P1Y') / timespan('P1M')"), "null");
  EXPECT_EQ(rows(db, "select timespan('PT1H') + null"), "null");
}

TEST(TemporalArithmetic, UnsupportedPairingsRaise) {
  Database db;
  const std::string msg = "Unsupported temporal operation";
  EXPECT_EQ(errorOf(db, "select date('2024-01-15') + date('2024-01-16')"), msg);
  EXPECT_EQ(errorOf(db, "select date('2024-01-15') - 5"), msg);
  EXPECT_EQ(errorOf(db, "select (2 * timespan('PT1H')) + 3"), msg);
  EXPECT_EQ(errorOf(db, "select timespan('PT1H') * 9007199254740993"), msg);
}

// Operands that are not both statically numbers are sniffed per row, as the reference's generic
// arithmetic path does: text shaped like a temporal value takes part in temporal arithmetic, and
// text starting with 'P' is a duration ('Peter' + 1 is an unsupported pairing).
TEST(TemporalArithmetic, TextShapedLikeATemporalValueIsSniffed) {
  Database db;
  EXPECT_EQ(rows(db, "select '2024-01-10' - '2024-01-01', '10:00:00' - '09:30:00'"), "P9D|PT30M");
  EXPECT_EQ(rows(db, "select 'PT1H' + 'PT30M', '2024-01-01' + 'P1D', 'PT1H' * 2"), "PT1H30M|2024-01-02|PT7200S");
  EXPECT_EQ(rows(db, "select '10' + '5', 'abc' - 1"), "15|-1");
  EXPECT_EQ(errorOf(db, "select 'Peter' + 1"), "Unsupported temporal operation");
  db.exec("create table q (id integer primary key, s text, n integer)");
  db.exec("insert into q values (1, '2024-03-01', 5)");
  EXPECT_EQ(rows(db, "select s - '2024-02-01', n * 2 from q"), "P29D|10");
}

TEST(TemporalArithmetic, ResultTypesFollowTheTable) {
  EXPECT_EQ(temporalResultType(TemporalOp::kSub, LogicalType::kDate, LogicalType::kDateTime), LogicalType::kTimespan);
  EXPECT_EQ(temporalResultType(TemporalOp::kAdd, LogicalType::kTimespan, LogicalType::kTime), LogicalType::kTime);
  EXPECT_EQ(temporalResultType(TemporalOp::kDiv, LogicalType::kTimespan, LogicalType::kTimespan), LogicalType::kReal);
  EXPECT_EQ(temporalResultType(TemporalOp::kMul, LogicalType::kInteger, LogicalType::kTimespan),
            LogicalType::kTimespan);
  EXPECT_EQ(temporalResultType(TemporalOp::kAdd, LogicalType::kDate, LogicalType::kDate), LogicalType::kAny);
  EXPECT_EQ(temporalResultType(TemporalOp::kAdd, LogicalType::kText, LogicalType::kTimespan), LogicalType::kAny);
}

TEST(TemporalArithmetic, TimestampStaysNumeric) {
  Database db;
  db.exec("create table ts_int (id integer primary key, t timestamp)");
  db.exec("insert into ts_int values (1, 1705276800000)");
  EXPECT_EQ(rows(db, "select t + 1 from ts_int"), "1705276800001");
}

TEST(TemporalConversion, IntegersIntoDatetimeAreEpochMilliseconds) {
  Database db;
  db.exec("create table d (id integer primary key, ts datetime, dd date)");
  db.exec("insert into d values (1, 1500000000000, 1705320600000)");
  EXPECT_EQ(rows(db, "select ts, dd from d"), "2017-07-14T02:40:00|2024-01-15");
}

TEST(NumericArgumentGate, TextIsRejectedAtPlanTime) {
  Database db;
  db.exec("create table t (id integer primary key, s text, n integer)");
  EXPECT_EQ(errorOf(db, "select abs('abc')"), "Invalid argument types for function abs");
  EXPECT_EQ(errorOf(db, "select clamp('a', 1, 2)"), "Invalid argument types for function clamp");
  EXPECT_EQ(errorOf(db, "select floor(s) from t"), "Invalid argument types for function floor");
  // NULL, numbers and untyped values pass the gate.
  EXPECT_EQ(rows(db, "select abs(null), abs(-2), round(2.5)"), "null|2|3");
  EXPECT_EQ(rows(db, "select abs(json_extract('{\"a\":\"x\"}', '$.a'))"), "null");
  // Functions without the gate accept text.
  EXPECT_EQ(errorOf(db, "select pow('2', 3)"), "");
  // The gate covers the required arguments only (the reference validates round's first
  // argument, clamp's three): round's digits may be text, a non-number giving NULL.
  EXPECT_EQ(rows(db, "select round(2.567, '2'), round(1.5, 'a'), round(1234.5, -2)"), "2.57|null|1200");
  EXPECT_EQ(errorOf(db, "select round('1.5', 1)"), "Invalid argument types for function round");
  EXPECT_EQ(errorOf(db, "select clamp(1, '0', 5)"), "Invalid argument types for function clamp");
}

TEST(LengthFunction, OnlyTextAndBlobsHaveALength) {
  Database db;
  EXPECT_EQ(rows(db, "select length('héllo'), length(x'0102'), length(12345), length(3.14), length(null)"),
            "5|2|null|null|null");
}

}  // namespace
}  // namespace optic
