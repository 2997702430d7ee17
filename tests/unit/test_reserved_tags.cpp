// Reserved tags (core/catalog/reserved_tags.h): a DML statement takes no `quereus.*` key (unknown
// ones are unknown, known ones mis-sited), the retired `quereus.update.*` routing keys are unknown
// everywhere, free-form keys pass, and a refused statement writes nothing.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

class ReservedTags : public ::testing::Test {
 protected:
  void SetUp() override { db.exec("create table t (id integer primary key, note text); insert into t values (1, 'seed')"); }
  Database db;
};

TEST_F(ReservedTags, DmlStatementsRefuseReservedKeysAndWriteNothing) {
  EXPECT_EQ(errorOf(db, R"(insert into t with tags ("quereus.bogus" = 1) values (2, 'x'))"),
            "unknown reserved tag 'quereus.bogus'");
  EXPECT_EQ(errorOf(db, R"(update t with tags ("quereus.update.default_for.note" = '0') set note = 'y' where id = 1)"),
            "unknown reserved tag 'quereus.update.default_for.note'");
  EXPECT_EQ(errorOf(db, R"(delete from t with tags ("quereus.id" = 'x') where id = 1)"),
            "reserved tag 'quereus.id' is not allowed on a DML statement");
  EXPECT_EQ(errorOf(db, R"(insert into t with tags (audit = true, "quereus.bogus" = 1) values (4, 'z'))"),
            "unknown reserved tag 'quereus.bogus'");
  EXPECT_EQ(rows(db, "select id, note from t"), "1|seed");
}

TEST_F(ReservedTags, FreeFormKeysAreData) {
  db.exec("insert into t with tags (provenance = 'import', audit = true) values (3, 'y')");
  EXPECT_EQ(rows(db, "select id from t order by id"), "1;3");
}

TEST_F(ReservedTags, AViewCarryingARetiredRoutingKeyIsCreatedButRefusesWrites) {
  db.exec(R"(create view v as select id, note from t with tags ("quereus.update.target" = 't'))");
  EXPECT_EQ(rows(db, "select id from v"), "1");  // reads are unaffected
  EXPECT_EQ(errorOf(db, "insert into v values (5, 'n')"), "unknown reserved tag 'quereus.update.target'");
  EXPECT_EQ(rows(db, "select id from t"), "1");
  db.exec(R"(create view hinted as select id from t with tags ("quereus.id" = 'h1'))");  // a known key: inert
  db.exec("delete from hinted where id = 1");
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
}

}  // namespace
}  // namespace optic
