// Rename propagation into stored queries (core/catalog/rename_propagation.h,
// core/parser/rename_walk.h): views and materialized views follow ALTER TABLE … RENAME.
#include <gtest/gtest.h>

#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(RenamePropagation, ViewBodiesFollowATableRenameIncludingCorrelatedQualifiers) {
  Database db;
  db.exec("create table a (id integer primary key, v integer); insert into a values (1, 10), (2, 20);");
  db.exec("create view av as select a.id, v from a where exists (select 1 from a as x where x.id = a.id and x.v > 15)");
  db.exec("create table other (id integer primary key); create view ov as select id from other");
  db.exec("alter table a rename to b");
  EXPECT_EQ(rows(db, "select id, v from av"), "2|20");
  EXPECT_EQ(rows(db, "select sql from schema() where name = 'ov'"), "create view \"ov\" as select id from other");
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

TEST(RenamePropagation, TheViewStaysWithItsTableWhenARenameOutlivesRollback) {
  Database db;
  db.exec("create table t (id integer primary key, x integer); create view tv as select x from t;");
  db.exec("begin; alter table t rename column x to y; rollback;");  // permissive: the ALTER stays
  EXPECT_EQ(rows(db, "select name from table_info('t') where name = 'y'"), "y");
  EXPECT_EQ(rows(db, "select sql from schema() where name = 'tv'"), "create view \"tv\" as select y from t");
  EXPECT_EQ(errorOf(db, "select y from tv"), "");
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

}  // namespace
}  // namespace optic
