// A maintained table's declared CHECK and child-side FOREIGN KEY constraints hold over the rows
// its derivation writes (the reference's docs/mv-constraints.md): the source write that derives a
// violating row fails, attributed to the maintained table, and writes nothing. A foreign key
// referencing a maintained table sees its maintenance writes as the parent's deletes/updates.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"
#include "tests/unit/store_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(MaintainedConstraints, CheckHoldsOverDerivedRows) {
  Database db;
  db.exec("create table src (id integer primary key, v integer)");
  db.exec("insert into src values (1, 5)");
  db.exec("create table m (id integer primary key, v integer, constraint pos check (v > 0)) maintained as select id, v from src");
  EXPECT_EQ(errorOf(db, "insert into src values (2, -3)"),
            "CHECK constraint failed: pos (v > 0) — row derived into maintained table 'main.m' violates its declared constraint");
  EXPECT_EQ(rows(db, "select id from src order by id"), "1");
  EXPECT_NE(errorOf(db, "update src set v = 0 where id = 1"), "");
  db.exec("update src set v = 9 where id = 1");
  EXPECT_EQ(rows(db, "select id, v from m"), "1|9");
}

TEST(MaintainedConstraints, CreateFillIsValidated) {
  Database db;
  db.exec("create table src (id integer primary key, v integer)");
  db.exec("insert into src values (1, 5), (2, -3)");
  EXPECT_NE(errorOf(db, "create table m (id integer primary key, v integer check (v > 0)) maintained as select id, v from src"), "");
}

TEST(MaintainedConstraints, ChildSideForeignKeyHoldsOverDerivedRows) {
  Database db;
  db.exec("create table par (k integer primary key)");
  db.exec("insert into par values (1)");
  db.exec("create table src (id integer primary key, k integer null)");
  db.exec("create table m (id integer primary key, k integer null references par(k)) maintained as select id, k from src");
  db.exec("insert into src values (1, 1), (2, null)");  // a NULL key is exempt
  EXPECT_NE(errorOf(db, "insert into src values (3, 99)"), "");
  EXPECT_EQ(rows(db, "select id from m order by id"), "1;2");
}

// A foreign key of an ordinary table that references a maintained table sees the maintenance
// writes as deletes and updates of its parent (mv-constraints.md, parent-side referential
// enforcement): RESTRICT fails the source write, which rolls back whole; SET NULL and CASCADE
// rewrite the children.
TEST(MaintainedConstraints, ParentSideForeignKeyActionsFollowMaintenance) {
  Database db;
  db.exec("pragma foreign_keys = on");
  db.exec("create table src (id integer primary key, v text)");
  db.exec("insert into src values (1, 'a'), (2, 'b'), (3, 'c')");
  db.exec("create table m (id integer primary key, v text) maintained as select id, v from src");
  db.exec("create table r (id integer primary key, mid integer references m(id))");
  db.exec("insert into r values (10, 1)");
  EXPECT_EQ(errorOf(db, "delete from src where id = 1"),
            "FOREIGN KEY constraint failed: DELETE on 'm' violates RESTRICT from 'r'");
  EXPECT_EQ(rows(db, "select count(*) from src where id = 1"), "1");  // the source write rolled back
  EXPECT_EQ(rows(db, "select count(*) from m where id = 1"), "1");
  db.exec("update src set v = 'z' where id = 1");  // a non-key change moves no reference
  EXPECT_EQ(rows(db, "select v from m where id = 1"), "z");
  db.exec("drop table r");
  db.exec("create table s (id integer primary key, mid integer null references m(id) on delete set null)");
  db.exec("create table c (id integer primary key, mid integer references m(id) on delete cascade)");
  db.exec("insert into s values (20, 2)");
  db.exec("insert into c values (30, 3)");
  db.exec("delete from src where id = 2");
  EXPECT_EQ(rows(db, "select id, mid from s"), "20|null");
  db.exec("delete from src where id = 3");
  EXPECT_EQ(rows(db, "select count(*) from c"), "0");
  db.exec("insert into c values (31, 1)");
  db.exec("pragma foreign_keys = off");
  db.exec("delete from src where id = 1");  // no action with the pragma off
  EXPECT_EQ(rows(db, "select count(*) from c"), "1");
}

// ALTER TABLE … ADD / DROP CONSTRAINT on a maintained table (mv-constraints.md: the rows it holds
// entered through validated maintenance or ADD CONSTRAINT). ADD validates the rows the table holds
// now; from then on the constraint holds over every row maintenance derives, with the reference's
// attributed messages; DROP lifts it. The table's shape, and so its derivation, are untouched.
TEST(MaintainedConstraints, AlterAddsAndDropsConstraintsOnAMaintainedTable) {
  Database db;
  db.exec("create table p (id integer primary key); insert into p values (1), (2)");
  db.exec("create table s (id integer primary key, v integer, pid integer)");
  db.exec("insert into s values (1, 5, 1), (2, 50, 2)");
  db.exec("create table m (id integer primary key, v integer, pid integer) maintained as select id, v, pid from s");
  EXPECT_EQ(errorOf(db, "alter table m add constraint tiny check (v < 10)"), "CHECK constraint failed: tiny (v < 10)");
  db.exec("alter table m add constraint small check (v < 100)");
  EXPECT_EQ(errorOf(db, "insert into s values (3, 500, 1)"),
            "CHECK constraint failed: small (v < 100) — row derived into maintained table 'main.m' violates its declared constraint");
  db.exec("insert into s values (3, 60, 1)");
  db.exec("alter table m add constraint uv unique (v)");
  EXPECT_EQ(errorOf(db, "insert into s values (4, 60, 2)"),
            "UNIQUE constraint failed: uv (v) — row derived into maintained table 'main.m' collides on its declared UNIQUE "
            "constraint (key: 60)");
  db.exec("alter table m add constraint fp foreign key (pid) references p (id)");
  EXPECT_EQ(errorOf(db, "insert into s values (5, 70, 9)"),
            "FOREIGN KEY constraint failed: fp — row derived into maintained table 'main.m' references a missing 'main.p'");
  EXPECT_EQ(rows(db, "select id, v, pid from m order by id"), "1|5|1;2|50|2;3|60|1");
  EXPECT_EQ(rows(db, "select id from s order by id"), "1;2;3");  // each refused source write wrote nothing
  db.exec("alter table m drop constraint small");
  db.exec("insert into s values (6, 600, 1)");
  EXPECT_EQ(rows(db, "select count(*) from m"), "4");
  // The shape stays the body's.
  EXPECT_NE(errorOf(db, "alter table m add column w integer"), "");
}

// The added constraint is part of the stored schema: after a reopen it still holds.
TEST(MaintainedConstraints, AnAddedConstraintHoldsAfterReopen) {
  testing_sql::TempDatabaseFile file;
  {
    auto db = file.open();
    db->exec("create table s (id integer primary key, v integer)");
    db->exec("insert into s values (1, 5)");
    db->exec("create table m (id integer primary key, v integer) maintained as select id, v from s");
    db->exec("alter table m add constraint small check (v < 100)");
  }
  auto db = file.open();
  EXPECT_EQ(errorOf(*db, "insert into s values (2, 500)"),
            "CHECK constraint failed: small (v < 100) — row derived into maintained table 'main.m' violates its declared constraint");
  db->exec("insert into s values (2, 50)");
  EXPECT_EQ(rows(*db, "select id, v from m order by id"), "1|5;2|50");
}

}  // namespace
}  // namespace optic
