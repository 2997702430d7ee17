// Foreign-key rules checked outside the write path: the column arity of an explicit parent list
// at CREATE (core/ddl/table_builder.cpp), and the wording when ALTER finds an existing row
// without a parent (core/ddl/alter.cpp).
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;

TEST(ForeignKeyRules, ParentColumnCountMustMatchAtCreate) {
  Database db;
  db.exec("create table p (a integer, b integer, primary key (a, b))");
  std::string msg = errorOf(db, "create table c (id integer primary key, x integer, foreign key (x) references p (a, b))");
  EXPECT_NE(msg.find("1 child column(s) but 2 parent column(s)"), std::string::npos) << msg;
  EXPECT_EQ(errorOf(db, "create table c2 (id integer primary key, x integer, y integer, "
                        "foreign key (x, y) references p (a, b))"), "");
}

TEST(ForeignKeyRules, AlterAddingAForeignKeyNamesTheOrphanRow) {
  Database db;
  db.exec("create table p (id integer primary key);"
          "create table c (id integer primary key, pid integer);"
          "insert into p values (1); insert into c values (10, 1), (11, 2)");
  std::string msg = errorOf(db, "alter table c add constraint c_p foreign key (pid) references p (id)");
  EXPECT_NE(msg.find("foreign key: an existing row of 'c' references no row of 'p'"), std::string::npos) << msg;
}

TEST(ForeignKeyRules, MutualCascadingDeletesStopAtTheRowAlreadyDeleted) {
  Database db;
  db.exec("create table a (aid integer primary key, bref integer null, foreign key (bref) references b(bid) on delete cascade);"
          "create table b (bid integer primary key, aref integer null, foreign key (aref) references a(aid) on delete cascade);"
          "insert into a values (1, null), (2, null); insert into b values (10, null), (20, null);"
          "update a set bref = 10 where aid = 1; update a set bref = 20 where aid = 2;"
          "update b set aref = 1 where bid = 10; update b set aref = 2 where bid = 20");
  db.exec("delete from a where aid = 1");  // cascades to b 10, whose cascade finds a 1 gone
  EXPECT_EQ(testing_sql::rows(db, "select aid, bref from a"), "2|20");
  EXPECT_EQ(testing_sql::rows(db, "select bid, aref from b"), "20|2");
}

TEST(ForeignKeyRules, ADefaultedParentKeyOfTheWrongArityIsRefusedOnBothSides) {
  Database db;
  db.exec("create table mp (a integer not null, b integer not null, primary key (a, b));"
          "create table mc (id integer primary key, x integer null references mp);"
          "insert into mp values (1, 2)");
  const std::string msg = "Foreign key '_fk_mc_x' on table 'main.mc': 1 column(s) reference the primary key of "
                          "'main.mp', which has 2 column(s).";
  EXPECT_EQ(errorOf(db, "insert into mc values (1, 1)"), msg);
  EXPECT_EQ(errorOf(db, "delete from mp where a = 1"), msg);  // RESTRICT is not silently bypassed
  EXPECT_EQ(errorOf(db, "update mp set b = 3 where a = 1"), msg);
  EXPECT_EQ(testing_sql::rows(db, "select a, b from mp"), "1|2");
  EXPECT_EQ(testing_sql::rows(db, "select count(*) from mc"), "0");
  db.exec("pragma foreign_keys = false; delete from mp where a = 1");  // enforcement off is off on both sides
  EXPECT_EQ(testing_sql::rows(db, "select count(*) from mp"), "0");
}

}  // namespace
}  // namespace optic
