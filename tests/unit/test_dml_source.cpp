// DML used as a relation (core/planner/dml_source.h): `from (insert … returning …)`, scalar
// subqueries over DML, data-modifying CTE members and `insert into t insert … returning`. The
// write runs exactly once per statement execution, also when unreferenced or under LIMIT 0; its
// changes reach the change log (watch events) and roll back with the statement or transaction;
// a DML relation without RETURNING is rejected with the statement's position.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;  // tests/unit/sql_test_util.h

class DmlSourceTest : public ::testing::Test {
 protected:
  void SetUp() override { db.exec("create table t (k integer primary key, v integer default 0)"); }
  Database db;
};

TEST_F(DmlSourceTest, FromItemReturnsRowsAndWrites) {
  EXPECT_EQ(rows(db, "select n.k + 100 from (insert into t (k) values (1), (2) returning k) as n order by 1"),
            "101;102");
  EXPECT_EQ(rows(db, "select k, v from t order by k"), "1|0;2|0");
  EXPECT_EQ(rows(db, "select d.k from (delete from t where k = 1 returning k) as d"), "1");
  EXPECT_EQ(rows(db, "select k from t"), "2");
}

TEST_F(DmlSourceTest, CteReferencedTwiceWritesOnce) {
  db.exec("insert into t values (1, 0), (2, 0)");
  EXPECT_EQ(rows(db, "with c as (update t set v = v + 1 returning k, v) "
                     "select (select count(*) from c), (select sum(v) from c)"),
            "2|2");
  EXPECT_EQ(rows(db, "select k, v from t order by k"), "1|1;2|1");
}

TEST_F(DmlSourceTest, SelfJoinOfCteWritesOnce) {
  EXPECT_EQ(rows(db, "with c as (insert into t (k) values (5) returning k) select count(*) from c c1 join c c2 on c1.k = c2.k"),
            "1");
  EXPECT_EQ(rows(db, "select count(*) from t"), "1");
}

TEST_F(DmlSourceTest, UnreferencedMemberAndLimitZeroStillWrite) {
  EXPECT_EQ(rows(db, "with c as (insert into t (k) values (1) returning k) select 42 as x"), "42");
  EXPECT_EQ(rows(db, "with c as (insert into t (k) values (2) returning k) select k from c limit 0"), "");
  EXPECT_EQ(rows(db, "select k from t order by k"), "1;2");
}

TEST_F(DmlSourceTest, EachExecutionOfAPreparedStatementWritesOnce) {
  auto st = db.prepare("with c as (update t set v = v + 1 returning k) select count(*) from c");
  db.exec("insert into t values (1, 0)");
  for (int i = 0; i < 3; ++i) {
    st->reset();
    ASSERT_TRUE(st->step());
    while (st->step()) {
    }
  }
  EXPECT_EQ(rows(db, "select v from t"), "3");
}

TEST_F(DmlSourceTest, LaterMemberReadsEarlierMembersRows) {
  db.exec("create table u (k integer primary key)");
  EXPECT_EQ(rows(db, "with a as (insert into t (k) values (1) returning k), "
                     "b as (insert into u (k) select k + 10 from a returning k) select k from a"),
            "1");
  EXPECT_EQ(rows(db, "select k from u"), "11");
  EXPECT_EQ(rows(db, "select count(*) from t"), "1");
}

TEST_F(DmlSourceTest, InsertFromDmlSource) {
  db.exec("create table src (k integer primary key, v integer)");
  db.exec("insert into src values (1, 7), (2, 8)");
  db.exec("insert into t delete from src where k = 2 returning k, v");
  EXPECT_EQ(rows(db, "select k, v from t"), "2|8");
  EXPECT_EQ(rows(db, "select k from src"), "1");
}

TEST_F(DmlSourceTest, RollbackUndoesTheWrite) {
  db.exec("begin");
  EXPECT_EQ(rows(db, "with c as (insert into t (k) values (1) returning k) select count(*) from c"), "1");
  db.exec("rollback");
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
}

TEST_F(DmlSourceTest, FailingMainStatementUndoesTheEffect) {
  db.exec("create table u (k integer primary key)");
  db.exec("insert into u values (1)");
  EXPECT_THROW(db.exec("with c as (insert into t (k) values (1) returning k) insert into u (k) values (1)"), Error);
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
  EXPECT_THROW(db.exec("with c as (insert into u (k) values (1) returning k) select 1"), Error);
  EXPECT_EQ(rows(db, "select count(*) from u"), "1");
}

TEST_F(DmlSourceTest, WriteReachesTheChangeLog) {
  ChangeScope scope;
  TableWatch w;
  w.schema = "main";
  w.table = "t";
  scope.watches.push_back(w);
  int events = 0;
  db.watch(scope, [&events](const WatchEvent&) { ++events; });
  EXPECT_EQ(rows(db, "select count(*) from (insert into t (k) values (1) returning k)"), "1");
  EXPECT_EQ(events, 1);
}

TEST_F(DmlSourceTest, MissingReturningIsAPositionedError) {
  try {
    db.exec("select * from\n  (insert into t values (1, 1)) as s");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("must have a RETURNING clause"), std::string::npos) << e.what();
    EXPECT_EQ(e.line(), 2);
  }
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
}

TEST_F(DmlSourceTest, NestedDataModifyingCteIsRejected) {
  try {
    db.exec("select * from (with c as (insert into t (k) values (1) returning k) select k from c)");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("only allowed in a statement's own leading WITH"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
}

TEST_F(DmlSourceTest, TableDefaultsDoNotSeeTheStatementsCtes) {
  db.exec("create table c (k integer primary key)");
  db.exec("insert into c values (1), (2), (3)");
  db.exec("create table d (id integer primary key, w integer default (select count(*) from c))");
  EXPECT_EQ(rows(db, "with c as (select 1 as k), b as (insert into d (id) values (1) returning w) select w from b"),
            "3");
}

}  // namespace
}  // namespace optic
