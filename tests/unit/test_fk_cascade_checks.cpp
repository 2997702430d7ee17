// Rows a foreign-key action writes (ON UPDATE CASCADE, ON DELETE SET NULL / SET DEFAULT /
// CASCADE) are checked like any written row: a valid cascaded row lands, a row violating the
// child's CHECK fails the parent's statement and nothing of it stays.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

class FkCascadeChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table p (id integer primary key)");
    db.exec("create table c (id integer primary key, pid integer null references p(id) on update cascade on delete set null, "
            "constraint small check (pid is null or pid < 100))");
    db.exec("insert into p values (1), (2); insert into c values (10, 1), (20, 2)");
  }
  Database db;
};

TEST_F(FkCascadeChecks, AValidCascadedRowLands) {
  db.exec("update p set id = 5 where id = 1");
  EXPECT_EQ(rows(db, "select id, pid from c order by id"), "10|5;20|2");
  db.exec("delete from p where id = 5");
  EXPECT_EQ(rows(db, "select id, pid from c order by id"), "10|null;20|2");
}

TEST_F(FkCascadeChecks, ACascadedRowViolatingTheChildCheckFailsTheStatement) {
  EXPECT_EQ(errorOf(db, "update p set id = 500 where id = 1").rfind("CHECK constraint failed: small", 0), 0u);
  EXPECT_EQ(rows(db, "select id from p order by id"), "1;2");
  EXPECT_EQ(rows(db, "select id, pid from c order by id"), "10|1;20|2");
}

TEST_F(FkCascadeChecks, GrandchildrenReachedThroughACascadeAreCheckedToo) {
  db.exec("create table p2 (id integer primary key)");
  db.exec("create table c2 (id integer primary key, pid integer references p2(id) on delete cascade)");
  db.exec("create table g2 (id integer primary key, cid integer null references c2(id) on delete set null, "
          "constraint keep2 check (cid is not null))");
  db.exec("insert into p2 values (1); insert into c2 values (10, 1); insert into g2 values (7, 10)");
  EXPECT_EQ(errorOf(db, "delete from p2 where id = 1").rfind("CHECK constraint failed: keep2", 0), 0u);
  EXPECT_EQ(rows(db, "select count(*) from c2"), "1");
}

TEST(FkCrossSchema, RestrictHoldsAcrossSchemas) {
  Database db;
  db.exec("declare schema xs {}");
  db.exec("apply schema xs");
  db.exec("create table main.p (pid integer primary key)");
  db.exec("insert into main.p values (1)");
  db.exec("create table xs.c (id integer primary key, p integer references main.p(pid))");
  db.exec("insert into xs.c values (1, 1)");
  EXPECT_NE(errorOf(db, "delete from main.p where pid = 1"), "");
  EXPECT_NE(errorOf(db, "update main.p set pid = 2 where pid = 1"), "");
  EXPECT_EQ(rows(db, "select pid from main.p"), "1");
}

// With foreign keys on, a parent another table still references (a row whose key is all
// non-NULL) cannot be dropped, in any schema; NULL keys and self-references do not block it.
TEST(FkCrossSchema, DropTableRefusesAParentStillReferenced) {
  Database db;
  db.exec("declare schema xs {}");
  db.exec("apply schema xs");
  db.exec("create table main.p (pid integer primary key)");
  db.exec("insert into main.p values (1)");
  db.exec("create table xs.c (id integer primary key, p integer null references main.p(pid))");
  db.exec("insert into xs.c values (1, 1)");
  EXPECT_EQ(errorOf(db, "drop table main.p"),
            "FOREIGN KEY constraint failed: cannot drop table 'p' because table 'c' still has rows referencing it");
  db.exec("update xs.c set p = null");
  db.exec("create table selfref (id integer primary key, up integer null references selfref(id))");
  db.exec("insert into selfref values (1, null), (2, 1)");
  db.exec("drop table selfref");
  db.exec("drop table main.p");
}

}  // namespace
}  // namespace optic
