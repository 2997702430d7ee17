// Writes through set-operation bodies (core/planner/views/setop_mutation.h, views.md §2.6): reading
// membership flags, the data fan-out of UPDATE and DELETE to the legs a row is in, flag flips
// that delete from or insert into a leg, INSERT routed by literal flags, a join leg written
// through its own machinery, the flag-less rules (discriminated `union all`, `intersect`,
// `except`) and the structured rejections (which change nothing).
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::reasonOf;
using testing_sql::rows;

class MembershipWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table a (id integer primary key, x integer);"
            "create table b (id integer primary key, x integer);"
            "insert into a values (1, 10), (2, 20);"
            "insert into b values (2, 20), (3, 30);"
            "create view v as select id, x from a union exists left as inA, exists right as inB select id, x from b");
  }
  std::string state() { return rows(db, "select id, x from a order by id") + " / " + rows(db, "select id, x from b order by id"); }
  Database db;
};

TEST_F(MembershipWrite, FlagsSayWhichLegARowIsIn) {
  EXPECT_EQ(rows(db, "select id, x, inA, inB from v order by id"), "1|10|true|false;2|20|true|true;3|30|false|true");
  EXPECT_EQ(rows(db, "select id from (select id, x from a intersect exists left as l, exists right as r select id, x from b)"),
            "2");
}

TEST_F(MembershipWrite, DataUpdateFansOutToEveryLegTheRowIsIn) {
  db.exec("update v set x = x + 1 where id = 2");
  EXPECT_EQ(state(), "1|10;2|21 / 2|21;3|30");
  db.exec("update v set x = 0 where inA = true and inB = false");
  EXPECT_EQ(state(), "1|0;2|21 / 2|21;3|30");
}

TEST_F(MembershipWrite, FlagFlipsDeleteFromOrInsertIntoALeg) {
  db.exec("update v set inA = false where id = 2");
  EXPECT_EQ(state(), "1|10 / 2|20;3|30");
  db.exec("update v set inB = true where id in (1, 3)");  // id 3 is already in b: a no-op
  EXPECT_EQ(state(), "1|10 / 1|10;2|20;3|30");
  db.exec("update v set x = 99, inA = true where id = 3");  // joins a with its new value
  EXPECT_EQ(state(), "1|10;3|99 / 1|10;2|20;3|99");
}

TEST_F(MembershipWrite, DeleteRemovesTheRowFromEveryLegItIsIn) {
  db.exec("delete from v where id = 2");
  EXPECT_EQ(state(), "1|10 / 3|30");
}

TEST_F(MembershipWrite, InsertRoutesByTheSuppliedFlags) {
  db.exec("insert into v (id, x, inA, inB) values (7, 70, true, false), (8, 80, true, false)");
  db.exec("insert into v values (9, 90, true, true)");
  EXPECT_EQ(state(), "1|10;2|20;7|70;8|80;9|90 / 2|20;3|30;9|90");
}

TEST_F(MembershipWrite, RejectionsCarryTheirReasonAndChangeNothing) {
  EXPECT_EQ(reasonOf(db, "insert into v (id, x, inA) values (7, 70, true)"), "unsupported-set-op|v|inB|insert");
  EXPECT_EQ(reasonOf(db, "insert into v values (7, 70, true, false), (8, 80, false, false)"), "unsupported-set-op|v|inA|insert");
  EXPECT_EQ(reasonOf(db, "insert into v values (7, 70, false, false)"), "unsupported-set-op|v||insert");
  EXPECT_EQ(reasonOf(db, "insert into v select 7, 70, true, false"), "unsupported-source|v||insert");
  EXPECT_EQ(reasonOf(db, "update v set inA = 1 where id = 1"), "no-inverse|v|inA|update");
  EXPECT_EQ(reasonOf(db, "update v set nope = 1"), "unknown-view-column|v|nope|update");
  EXPECT_EQ(reasonOf(db, "delete from v where id = 1 returning id"), "returning-through-view|v||delete");
  db.exec("create view d as select id, x from a diff exists left as l, exists right as r select id, x from b;"
          "create view n as select id, x from a union exists left as l, exists right as r "
          "select id, x from b union select id, x from b");
  EXPECT_EQ(reasonOf(db, "delete from d where id = 1"), "unsupported-set-op|d||delete");
  EXPECT_EQ(reasonOf(db, "delete from n where id = 1"), "unsupported-set-op|n||delete");
  EXPECT_EQ(state(), "1|10;2|20 / 2|20;3|30");
}

TEST_F(MembershipWrite, IntrospectionMatchesTheDynamicWrite) {
  EXPECT_EQ(rows(db, "select is_insertable_into, is_updatable, is_deletable, effective_targets from view_info('v')"),
            "YES|YES|YES|[\"a\",\"b\"]");
  EXPECT_EQ(rows(db, "select column_name, is_updatable, base_table from column_info('v')"),
            "id|YES|null;x|YES|null;inA|YES|null;inB|YES|null");
  // A leg whose only column is computed takes no update or insert; deletes still fan out.
  db.exec("create view w as select lower(x) as lx from a union exists left as l, exists right as r select lower(x) from b");
  EXPECT_EQ(rows(db, "select is_insertable_into, is_updatable, is_deletable from view_info('w')"), "NO|NO|YES");
  EXPECT_EQ(rows(db, "select is_updatable from column_info('w')"), "NO;NO;NO");
  // A diff body is not writable at all.
  db.exec("create view d as select id, x from a diff exists left as l, exists right as r select id, x from b");
  EXPECT_EQ(rows(db, "select is_insertable_into, is_updatable, is_deletable from view_info('d')"), "NO|NO|NO");
}

TEST(MembershipHomeSchema, LegTablesResolveInTheViewsSchema) {
  Database db;
  db.exec("declare schema app { table a (id integer primary key, x integer) table b (id integer primary key, x integer) }");
  db.exec("apply schema app");
  db.exec("insert into app.a values (1, 10); insert into app.b values (2, 20);"
          "create view app.v as select id, x from a union exists left as inA, exists right as inB select id, x from b;"
          "create table a (id integer primary key, x integer)");  // main.a must stay untouched
  db.exec("update app.v set inA = true where id = 2");
  db.exec("update app.v set x = x + 1");
  EXPECT_EQ(rows(db, "select id, x from app.a order by id"), "1|11;2|21");
  EXPECT_EQ(rows(db, "select count(*) from main.a"), "0");
  EXPECT_EQ(rows(db, "select is_insertable_into, is_updatable, is_deletable from view_info('app.v')"), "YES|YES|YES");
}

TEST(MembershipJoinLeg, AJoinLegWritesThroughTheJoinMachinery) {
  Database db;
  db.exec("create table j1 (id integer primary key, x integer);"
          "create table j2 (id integer primary key);"
          "create table p (id integer primary key, x integer);"
          "insert into j1 values (1, 10); insert into j2 values (1); insert into p values (1, 10), (2, 20);"
          "create view m as select j1.id as id, j1.x as x from j1 join j2 on j1.id = j2.id "
          "union exists left as inJ, exists right as inP select id, x from p");
  db.exec("update m set inJ = true where id = 2");  // the join leg's shared key is supplied
  EXPECT_EQ(rows(db, "select id from j2 order by id"), "1;2");
  db.exec("update m set x = x + 1 where inJ = true");
  EXPECT_EQ(rows(db, "select id, x from j1 order by id"), "1|11;2|21");
  EXPECT_EQ(rows(db, "select id, x from p order by id"), "1|11;2|21");
  db.exec("delete from m where id = 1");
  EXPECT_EQ(rows(db, "select id from j1") + " " + rows(db, "select id from j2") + " " + rows(db, "select id from p"), "2 2 2");
}

class FlaglessSetOpWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table t (id integer primary key, color text, x integer);"
            "insert into t values (1, 'red', 10), (2, 'blue', 20);"
            "create view rb as select id, 'red' as kind, x from t where color = 'red' "
            "union all select id, 'blue' as kind, x from t where color = 'blue';"
            "create table a (id integer primary key, x integer);"
            "create table b (id integer primary key, x integer);"
            "insert into a values (1, 10), (2, 20); insert into b values (2, 20), (3, 30);"
            "create view ex as select id, x from a except select id, x from b;"
            "create view it as select id, x from a intersect select id, x from b");
  }
  std::string ab() { return rows(db, "select id, x from a order by id") + " / " + rows(db, "select id, x from b order by id"); }
  Database db;
};

TEST_F(FlaglessSetOpWrite, UnionAllRoutesEachRowByItsDiscriminator) {
  db.exec("insert into rb (id, kind, x) values (3, 'red', 30), (4, 'blue', 40)");
  EXPECT_EQ(rows(db, "select id, color, x from t order by id"), "1|red|10;2|blue|20;3|red|30;4|blue|40");
  db.exec("update rb set x = x + 1 where kind = 'blue'");
  db.exec("delete from rb where id = 1");
  EXPECT_EQ(rows(db, "select id, color, x from t order by id"), "2|blue|21;3|red|30;4|blue|41");
  EXPECT_EQ(reasonOf(db, "insert into rb (id, kind, x) values (5, 'green', 50)"), "unsupported-set-op|rb||insert");
  EXPECT_EQ(reasonOf(db, "update rb set kind = 'red' where id = 2"), "no-inverse|rb|kind|update");
  EXPECT_EQ(rows(db, "select count(*) from t"), "3");
}

TEST_F(FlaglessSetOpWrite, ExceptWritesTheLeftLegAndClearsTheRightWhenNeeded) {
  db.exec("update ex set id = 3, x = 30 where id = 1");  // (3, 30) would stay hidden by b
  EXPECT_EQ(ab(), "2|20;3|30 / 2|20");
  EXPECT_THROW(db.exec("insert into ex values (2, 20)"), Error);  // a's key: nothing changes
  EXPECT_EQ(ab(), "2|20;3|30 / 2|20");
  db.exec("delete from a where id = 2; insert into ex values (2, 20), (4, 40)");  // (2, 20) leaves b
  EXPECT_EQ(ab(), "2|20;3|30;4|40 / ");
  db.exec("delete from ex where id = 3");
  EXPECT_EQ(ab(), "2|20;4|40 / ");
}

TEST_F(FlaglessSetOpWrite, IntersectWritesBothLegs) {
  db.exec("insert into it values (7, 70)");
  EXPECT_EQ(ab(), "1|10;2|20;7|70 / 2|20;3|30;7|70");
  db.exec("update it set x = 71 where id = 7");
  EXPECT_EQ(ab(), "1|10;2|20;7|71 / 2|20;3|30;7|71");
  db.exec("delete from it where id = 7");
  EXPECT_EQ(ab(), "1|10;2|20 / 2|20;3|30");
}

TEST_F(FlaglessSetOpWrite, PlainUnionAndUndiscriminatedUnionAllStayRejected) {
  db.exec("create view u as select id, x from a union select id, x from b;"
          "create view ua as select id, x from a union all select id, x from b");
  EXPECT_EQ(reasonOf(db, "delete from u"), "unsupported-set-op|u||delete");
  EXPECT_EQ(reasonOf(db, "delete from ua"), "unsupported-set-op|ua||delete");
  EXPECT_EQ(ab(), "1|10;2|20 / 2|20;3|30");
}

}  // namespace
}  // namespace optic
