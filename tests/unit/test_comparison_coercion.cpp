// Cross-category comparisons (core/planner/expr_binder.cpp castTextTowardNumber, and the key
// probes of core/planner/access_path.cpp): a TEXT operand compared with a number is cast to the
// number's type at plan time, and a primary-key seek agrees with the filter it stands for. A
// TIMESPAN comparison (=, BETWEEN, IN list, IN subquery, join key) compares elapsed time.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;  // tests/unit/sql_test_util.h

TEST(ComparisonCoercion, TextComparedWithNumberCastsTheText) {
  Database db;
  EXPECT_EQ(rows(db, "select '1abc' = 1, 1 = '1abc', 'abc' = 0, '2' > 1"), "true|true|true|true");
  // The cast goes to the number's type: an INTEGER partner truncates the text's value.
  EXPECT_EQ(rows(db, "select '1.5' = 1, '1.5' = 1.5"), "true|true");
}

// The number side may be computed: an expression, an aggregate, a column of a FROM subquery, or
// a function whose result type follows its arguments (the reference's inferReturnType:
// coalesce/greatest/least the common type, iif/choose that of their value arguments, nullif
// the first argument's). The text side converts to it.
TEST(ComparisonCoercion, AComputedNumberSideConvertsTheText) {
  Database db;
  db.exec("create table t (n integer primary key, s text)");
  db.exec("insert into t values (1, '1.5'), (2, '2'), (3, '10')");
  EXPECT_EQ(rows(db, "select n from t where n * 1.5 >= s order by n"), "1;2");
  EXPECT_EQ(rows(db, "select min('2.5') < 10.5, max(n) >= '3', sum(n) = '6' from t"), "true|true|true");
  // (An INTEGER side truncates the text it converts: '1.5' is 1.)
  EXPECT_EQ(rows(db, "select n from (select n, s from t) q where n = q.s order by n"), "1;2");
  EXPECT_EQ(rows(db, "select n from t where coalesce(n, 0) = '2'"), "2");
  EXPECT_EQ(rows(db, "select n from t where greatest(n, 1.5) > '2.5' order by n"), "3");
  EXPECT_EQ(rows(db, "select n from t where iif(n > 1, n, 0) = '3'"), "3");
  EXPECT_EQ(rows(db, "select n from t where nullif(n, 9) = '1'"), "1");
  EXPECT_EQ(rows(db, "select n from t where choose(1, n) = '2'"), "2");
  EXPECT_EQ(rows(db, "select typeof(coalesce(null, 1)), coalesce(s, 0) = 10 from t where n = 3"), "integer|true");
}

TEST(ComparisonCoercion, TextKeyWithNumberProbeDoesNotSeek) {
  Database db;
  db.exec("create table t (x text primary key)");
  db.exec("create table u (id integer primary key, x text)");
  db.exec("insert into t values ('1'), ('1abc'), ('2')");
  db.exec("insert into u values (1, '1'), (2, '1abc'), (3, '2')");
  EXPECT_EQ(rows(db, "select x from t where x = 1 order by x"), "1;1abc");
  EXPECT_EQ(rows(db, "select x from u where x = 1 order by x"), "1;1abc");
  // Text against text still compares (and seeks) as text.
  EXPECT_EQ(rows(db, "select x from t where x = '1'"), "1");
}

TEST(ComparisonCoercion, NumberKeyWithTextProbeCastsTheProbe) {
  Database db;
  db.exec("create table n (k integer primary key, v text)");
  db.exec("insert into n values (42, 'a'), (43, 'b')");
  EXPECT_EQ(rows(db, "select v from n where k = '42'"), "a");
  EXPECT_EQ(rows(db, "select v from n where k = '42abc'"), "a");
  EXPECT_EQ(rows(db, "select v from n where k = 'x'"), "");
}

TEST(ComparisonCoercion, TimespanComparesElapsedTime) {
  Database db;
  db.exec("create table spans (id integer primary key, d timespan)");
  db.exec("create table spantext (id integer primary key, t text)");
  db.exec("insert into spans values (1, timespan('PT1H')), (2, timespan('P1D'))");
  db.exec("insert into spantext values (1, 'PT60M')");
  EXPECT_EQ(rows(db, "select id from spans where d = 'PT60M'"), "1");
  EXPECT_EQ(rows(db, "select id from spans where d = timespan('PT3600S')"), "1");
  EXPECT_EQ(rows(db, "select id from spans where d in ('PT60M', 'PT2H')"), "1");
  EXPECT_EQ(rows(db, "select id from spans where d between 'PT59M' and 'PT61M'"), "1");
  EXPECT_EQ(rows(db, "select id from spans where d in (select t from spantext)"), "1");
  EXPECT_EQ(rows(db, "select id from spans where d not in (select t from spantext)"), "2");
  EXPECT_EQ(rows(db, "select s.id from spans s join spantext x on s.d = x.t"), "1");
  EXPECT_EQ(rows(db, "select id from spans where d > 'PT2H' order by id"), "2");
}

}  // namespace
}  // namespace optic
