// Foreign-key rules checked outside the write path: the column arity of an explicit parent list
// at CREATE (core/catalog/table_builder.cpp), and the wording when ALTER finds an existing row
// without a parent (core/catalog/alter.cpp).
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

}  // namespace
}  // namespace optic
