// Equi-join keys (core/planner/binder.cpp bindJoin, core/execution HashJoinOp): USING desugars to
// `l.k = r.k` with the same collation rules and errors as the ON form, pairs each side's first
// column of the name, and a hash key whose partner is of another category (number or JSON
// against text) is converted the way the comparison converts it, so ON, USING and WHERE agree.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(JoinKeys, CrossCategoryKeysMatchAsTheComparisonDoes) {
  Database db;
  db.exec("create table jl (id integer primary key, k json); create table jr (id integer primary key, k text);"
          "insert into jl values (1, '{\"a\":1,\"b\":2}'); insert into jr values (10, '{\"b\":2,\"a\":1}'), (11, '[1]');"
          "create table il (id integer primary key, k integer); create table ir (id integer primary key, k text);"
          "insert into il values (1, 5), (2, 6); insert into ir values (20, '5'), (21, '5.0'), (22, 'five')");
  EXPECT_EQ(rows(db, "select jl.id, jr.id from jl join jr using (k)"), "1|10");
  EXPECT_EQ(rows(db, "select jl.id, jr.id from jl join jr on jr.k = jl.k"), "1|10");
  EXPECT_EQ(rows(db, "select il.id, ir.id from il join ir on il.k = ir.k order by ir.id"), "1|20;1|21");
  EXPECT_EQ(rows(db, "select il.id, ir.id from il left join ir using (k) order by il.id, ir.id"), "1|20;1|21;2|null");
  // Text against text is untouched: 'five' does not equal 'six' by becoming 0.
  db.exec("create table tl (k text); insert into tl values ('five'), ('six')");
  EXPECT_EQ(rows(db, "select count(*) from ir join tl using (k)"), "1");
}

TEST(JoinKeys, UsingFollowsTheComparisonRules) {
  Database db;
  db.exec("create table a (id integer primary key, name text collate nocase);"
          "create table b (id integer primary key, name text collate rtrim);"
          "create table c (id integer primary key, name text)");
  EXPECT_EQ(errorOf(db, "select a.id from a join b using (name)"),
            "ambiguous collation for comparison: column collations NOCASE vs RTRIM differ; apply an explicit COLLATE");
  EXPECT_EQ(errorOf(db, "select a.id from a join b on a.name = b.name"), errorOf(db, "select a.id from a join b using (name)"));
  EXPECT_EQ(errorOf(db, "select 1 from a join c using (zzz)"), "USING column not found on left side of join: zzz");
  EXPECT_EQ(errorOf(db, "select 1 from a join (select id from c) s using (name)"),
            "USING column not found on right side of join: name");
}

TEST(JoinKeys, ASecondUsingPairsTheFirstColumnOfEachSide) {
  Database db;
  db.exec("create table t3a (id integer primary key, k integer); create table t3b (id integer primary key, k integer);"
          "create table t3c (id integer primary key, k integer);"
          "insert into t3a values (1, 10), (2, 20); insert into t3b values (11, 10);"
          "insert into t3c values (111, 10), (222, 20)");
  EXPECT_EQ(rows(db, "select t3a.id, t3c.id from t3a left join t3b using (k) join t3c using (k) order by t3a.id"),
            "1|111;2|222");
}

}  // namespace
}  // namespace optic
