// A maintained table's declared CHECK and child-side FOREIGN KEY constraints hold over the rows
// its derivation writes (the reference's docs/mv-constraints.md): the source write that derives a
// violating row fails, attributed to the maintained table, and writes nothing.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

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

}  // namespace
}  // namespace optic
