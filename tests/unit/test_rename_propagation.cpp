// Rename propagation into stored bodies (core/ddl/rename_propagation.h, sql-core.md §8):
// views and materialized views follow a table or column rename, qualified and unqualified
// references resolve like the binder's scopes, bare passthroughs republish the new name one
// level further out, collisions are refused up front, and the bodies stay consistent with the table across a rollback.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

std::string viewSql(Database& db, const std::string& name) {
  return rows(db, "select sql from schema() where name = '" + name + "'");
}

// An assertion's body follows a table or column rename (sql-alter.md), through a view too: it
// keeps enforcing the same rule, and the rename rolls back with its statement.
TEST(RenamePropagation, AssertionBodiesFollowRenames) {
  Database db;
  db.exec("create table t (id integer primary key, x integer)");
  db.exec("create view v as select id, x from t");
  db.exec("create assertion nonneg check (not exists (select 1 from t where x < 0))");
  db.exec("create assertion via_view check (not exists (select 1 from v where x > 100))");
  db.exec("alter table t rename column x to z");
  EXPECT_EQ(rows(db, "select violation_sql from assertion_info() order by name"),
            "select 1 where not (not exists (select 1 from t where z < 0));"
            "select 1 where not (not exists (select 1 from v where z > 100))");
  EXPECT_NE(errorOf(db, "insert into t values (1, -1)").find("nonneg"), std::string::npos);
  EXPECT_NE(errorOf(db, "insert into t values (2, 101)").find("via_view"), std::string::npos);
  db.exec("alter table t rename to t2");
  EXPECT_EQ(rows(db, "select violation_sql from assertion_info() where name = 'nonneg'"),
            "select 1 where not (not exists (select 1 from t2 where z < 0))");
  db.exec("insert into t2 values (3, 5)");
  // A succeeded rename survives a plain rollback (permissive DDL), the rewritten body with it.
  db.exec("begin");
  db.exec("alter table t2 rename column z to w");
  db.exec("rollback");
  EXPECT_EQ(rows(db, "select name from table_info('t2') where cid = 1"), "w");
  EXPECT_EQ(rows(db, "select count(*) from assertion_info() where violation_sql like '%w < 0%'"), "1");
}

// A CTE without a column list that passes the renamed column through re-exposes it: the body's
// readers of the CTE follow the rename; a CTE with its own column list keeps its names.
TEST(RenamePropagation, ACteRepublishingTheColumnCarriesTheRename) {
  Database db;
  db.exec("create table t (id integer primary key, x integer)");
  db.exec("insert into t values (1, 5)");
  db.exec("create view v1 as with c as (select x from t) select x from c where c.x > 0");
  db.exec("create view v2 as with c as (select * from t), d as (select x from c) select x from d");
  db.exec("create view v3 as with c (x) as (select x from t) select x from c");
  db.exec("alter table t rename column x to z");
  EXPECT_EQ(viewSql(db, "v1"), "create view v1 as with c as (select z from t) select z from c where c.z > 0");
  EXPECT_EQ(viewSql(db, "v2"), "create view v2 as with c as (select * from t), d as (select z from c) select z from d");
  EXPECT_EQ(viewSql(db, "v3"), "create view v3 as with c (x) as (select z from t) select x from c");
  EXPECT_EQ(rows(db, "select * from v1"), "5");
  EXPECT_EQ(rows(db, "select * from v2"), "5");
  EXPECT_EQ(rows(db, "select * from v3"), "5");
}

// A table renamed onto a name already a qualifier where its source sits (a sibling's alias, a
// CTE) keeps its old name as a pinned alias, so its qualifiers go on reading it; a CTE of that
// name makes the table schema-qualified too. No collision, no alias.
TEST(RenamePropagation, ARenameOntoAVisibleQualifierPinsTheOldNameAsAnAlias) {
  Database db;
  db.exec("create table t (id integer primary key, x integer)");
  db.exec("create table u (id integer primary key, x integer)");
  db.exec("insert into t values (1, 10)");
  db.exec("insert into u values (1, 77)");
  db.exec("create view v as select t.x as a, t2.x as b from t join u as t2 on t.id = t2.id");
  db.exec("create view w as with t2 as (select 1 as id) select t.x from t, t2 where t.id = t2.id");
  db.exec("create view plain as select t.x from t");
  db.exec("alter table t rename to t2");
  EXPECT_EQ(viewSql(db, "v"), "create view v as select t.x as a, t2.x as b from t2 as t inner join u as t2 on t.id = t2.id");
  EXPECT_EQ(rows(db, "select a, b from v"), "10|77");
  EXPECT_EQ(viewSql(db, "w"), "create view w as with t2 as (select 1 as id) select t.x from main.t2 as t, t2 where t.id = t2.id");
  EXPECT_EQ(viewSql(db, "plain"), "create view plain as select t2.x from t2");
}

TEST(RenamePropagation, TableRenameRewritesQualifiedAndUnqualifiedReferences) {
  Database db;
  db.exec("create table t (id integer primary key, x integer);"
          "insert into t values (1, 10), (2, 20);"
          "create view v as select t.id, x from t where t.x > (select min(x) from t)");
  db.exec("alter table t rename to t2");
  EXPECT_EQ(rows(db, "select id, x from v"), "2|20");
  EXPECT_EQ(viewSql(db, "v").find("from t "), std::string::npos) << viewSql(db, "v");
  db.exec("insert into t2 values (3, 30)");
  EXPECT_EQ(rows(db, "select id from v order by id"), "2;3");
}

TEST(RenamePropagation, ColumnRenameLeavesOtherSourcesColumnsAlone) {
  Database db;
  db.exec("create table a (id integer primary key, x integer);"
          "create table b (bid integer primary key, x integer);"
          "insert into a values (1, 5); insert into b values (7, 5);"
          // `x` in the subquery binds to b, the nearest source that has it.
          "create view v as select id, x as ax, (select count(*) from b where b.x = a.x and x = 5) as n from a");
  db.exec("alter table a rename column x to y");
  EXPECT_EQ(rows(db, "select id, ax, n from v"), "1|5|1");
  std::string sql = viewSql(db, "v");
  EXPECT_NE(sql.find("b.x = a.y"), std::string::npos) << sql;
  EXPECT_NE(sql.find("x = 5"), std::string::npos) << sql;
}

TEST(RenamePropagation, AliasedOutputsKeepTheirNamesBarePassthroughsRepublish) {
  Database db;
  db.exec("create table t (id integer primary key, x integer);"
          "insert into t values (1, 4);"
          "create view pinned (a, b) as select id, x from t;"
          "create view aliased as select id, x as val from t;"
          "create view bare as select id, x from t;"
          "create view outer_v as select id, x from bare");
  db.exec("alter table t rename column x to y");
  EXPECT_EQ(rows(db, "select a, b from pinned"), "1|4");
  EXPECT_EQ(rows(db, "select id, val from aliased"), "1|4");
  EXPECT_EQ(rows(db, "select id, y from bare"), "1|4");
  // The reader of the republishing view follows in the next round.
  EXPECT_EQ(rows(db, "select id, y from outer_v"), "1|4");
  EXPECT_NE(errorOf(db, "select x from bare"), "");
}

TEST(RenamePropagation, MaterializedViewStaysMaintainedAndRenamesItsBackingColumn) {
  Database db;
  db.exec("create table t (id integer primary key, x integer);"
          "insert into t values (1, 4);"
          "create materialized view m as select id, x from t;"
          "create materialized view m2 as select id, x from m");
  db.exec("alter table t rename column x to y");
  db.exec("insert into t values (2, 6)");
  EXPECT_EQ(rows(db, "select id, y from m order by id"), "1|4;2|6");
  EXPECT_EQ(rows(db, "select id, y from m2 order by id"), "1|4;2|6");
  db.exec("alter table t rename to t3");
  db.exec("update t3 set y = 5 where id = 1");
  EXPECT_EQ(rows(db, "select id, y from m2 order by id"), "1|5;2|6");
}

TEST(RenamePropagation, CollisionIsRefusedBeforeAnyChange) {
  Database db;
  db.exec("create table t (id integer primary key, x integer);"
          "create view v as select id, x, id + 1 as y from t");
  std::string err = errorOf(db, "alter table t rename column x to y");
  EXPECT_NE(err.find("already publishes a column named 'y'"), std::string::npos) << err;
  EXPECT_EQ(rows(db, "select name from table_info('t') order by cid"), "id;x");
  EXPECT_EQ(rows(db, "select count(*) from v"), "0");
}

TEST(RenamePropagation, BodiesStayWithTheTableAcrossARollback) {
  // Under the default permissive DDL policy a rolled-back transaction keeps its ALTER
  // (sql-core.md §6); the rewritten bodies stay with it, so nothing is left naming `x`.
  Database db;
  db.exec("create table t (id integer primary key, x integer);"
          "insert into t values (1, 2);"
          "create view v as select id, x from t;"
          "create materialized view m as select id, x from t");
  db.exec("begin");
  db.exec("alter table t rename column x to y");
  EXPECT_EQ(rows(db, "select id, y from v"), "1|2");
  db.exec("rollback");
  EXPECT_EQ(rows(db, "select name from table_info('t') order by cid"), "id;y");
  EXPECT_EQ(rows(db, "select id, y from v"), "1|2");
  db.exec("insert into t values (2, 3)");
  EXPECT_EQ(rows(db, "select id, y from m order by id"), "1|2;2|3");
}

TEST(RenamePropagation, ViewBodiesFollowATableRenameIncludingCorrelatedQualifiers) {
  Database db;
  db.exec("create table a (id integer primary key, v integer); insert into a values (1, 10), (2, 20);");
  db.exec("create view av as select a.id, v from a where exists (select 1 from a as x where x.id = a.id and x.v > 15)");
  db.exec("create table other (id integer primary key); create view ov as select id from other");
  db.exec("alter table a rename to b");
  EXPECT_EQ(rows(db, "select id, v from av"), "2|20");
  EXPECT_EQ(rows(db, "select sql from schema() where name = 'ov'"), "create view ov as select id from other");
  EXPECT_NE(errorOf(db, "select * from a"), "");
}

TEST(RenamePropagation, ViewBodiesAndDefaultsFollowAColumnRename) {
  Database db;
  db.exec("create table emp (id integer primary key, fullname text, created integer not null)");
  db.exec("create view ev as select id, fullname from emp with defaults (created = 7)");
  db.exec("create view unrelated as select 1 as fullname");
  db.exec("alter table emp rename column fullname to full_name");
  db.exec("alter table emp rename column created to created_at");
  db.exec("insert into ev values (1, 'Ann')");
  EXPECT_EQ(rows(db, "select id, full_name from ev"), "1|Ann");
  EXPECT_EQ(rows(db, "select created_at from emp"), "7");
  EXPECT_EQ(rows(db, "select fullname from unrelated"), "1");  // reads no emp: untouched
}

TEST(RenamePropagation, MaterializedViewsKeepMaintainingAfterRenames) {
  Database db;
  db.exec("create table s (id integer primary key, amount integer not null); insert into s values (1, 5);");
  db.exec("create materialized view m as select id, amount from s");
  db.exec("alter table s rename to s2");
  db.exec("alter table s2 rename column amount to qty");
  db.exec("insert into s2 values (2, 7)");
  EXPECT_EQ(rows(db, "select id, qty from m order by id"), "1|5;2|7");
}

TEST(RenamePropagation, OtherTablesCheckAndDefaultSubqueriesFollowATableRename) {
  Database db;
  db.exec("create table lookup (code text primary key); insert into lookup values ('a');");
  db.exec("create table uses (id integer primary key, code text, constraint ck check (code in (select code from lookup)))");
  db.exec("create table k (id integer primary key, n integer null default ((select count(*) from lookup)))");
  db.exec("alter table lookup rename to lookup2");
  EXPECT_EQ(errorOf(db, "insert into uses values (1, 'a')"), "");
  EXPECT_NE(errorOf(db, "insert into uses values (2, 'zz')").find("CHECK constraint failed"), std::string::npos);
  db.exec("insert into k (id) values (5)");
  EXPECT_EQ(rows(db, "select id, n from k"), "5|1");
}

}  // namespace
}  // namespace optic
