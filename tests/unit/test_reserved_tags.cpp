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
            "Unknown reserved tag 'quereus.bogus' on a DML statement: no such key in the reserved 'quereus.*' namespace");
  EXPECT_EQ(errorOf(db, R"(update t with tags ("quereus.update.default_for.note" = '0') set note = 'y' where id = 1)"),
            "Unknown reserved tag 'quereus.update.default_for.note' on a DML statement: no such key in the reserved 'quereus.*' namespace");
  EXPECT_EQ(errorOf(db, R"(delete from t with tags ("quereus.id" = 'x') where id = 1)"),
            "Reserved tag 'quereus.id' is not allowed on a DML statement; it is valid only on: a basis table, "
            "a physical column, a view declaration, a physical index, a physical constraint");
  EXPECT_EQ(errorOf(db, R"(insert into t with tags (audit = true, "quereus.bogus" = 1) values (4, 'z'))"),
            "Unknown reserved tag 'quereus.bogus' on a DML statement: no such key in the reserved 'quereus.*' namespace");
  EXPECT_EQ(rows(db, "select id, note from t"), "1|seed");
}

TEST_F(ReservedTags, FreeFormKeysAreData) {
  db.exec("insert into t with tags (provenance = 'import', audit = true) values (3, 'y')");
  EXPECT_EQ(rows(db, "select id from t order by id"), "1;3");
}

TEST_F(ReservedTags, AViewCarryingARetiredRoutingKeyIsCreatedButRefusesWrites) {
  db.exec(R"(create view v as select id, note from t with tags ("quereus.update.target" = 't'))");
  EXPECT_EQ(rows(db, "select id from v"), "1");  // reads are unaffected
  EXPECT_EQ(errorOf(db, "insert into v values (5, 'n')"), "Unknown reserved tag 'quereus.update.target': no such key in the reserved 'quereus.*' namespace");
  EXPECT_EQ(rows(db, "select id from t"), "1");
  db.exec(R"(create view hinted as select id from t with tags ("quereus.id" = 'h1'))");  // a known key: inert
  db.exec("delete from hinted where id = 1");
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
}

// A direct CREATE TABLE validates its four tag surfaces at their own sites, as the declarative
// differ does: unknown keys, known keys out of place and ill-shaped values all fail.
TEST_F(ReservedTags, CreateTableValidatesEachSurfaceAtItsSite) {
  EXPECT_EQ(errorOf(db, R"(create table a (id integer primary key) with tags ("quereus.bogus" = 1))"),
            "Unknown reserved tag 'quereus.bogus' on a basis table: no such key in the reserved 'quereus.*' namespace");
  EXPECT_EQ(errorOf(db, R"(create table a (id integer primary key with tags ("quereus.idd" = 'x')))"),
            "Unknown reserved tag 'quereus.idd' on a physical column: no such key in the reserved 'quereus.*' namespace");
  EXPECT_EQ(errorOf(db, R"(create table a (id integer primary key, v integer constraint c check (v > 0) with tags ("quereus.x" = 1)))"),
            "Unknown reserved tag 'quereus.x' on a physical constraint: no such key in the reserved 'quereus.*' namespace");
  EXPECT_EQ(errorOf(db, R"(create table a (id integer primary key) with tags ("quereus.expose_implicit_index" = true))"),
            "Reserved tag 'quereus.expose_implicit_index' is not allowed on a basis table; it is valid only on: a physical constraint");
  EXPECT_EQ(errorOf(db, R"(create table a (id integer primary key, v integer, constraint u unique (v) with tags ("quereus.expose_implicit_index" = 1)))"),
            "Reserved tag 'quereus.expose_implicit_index' on a physical constraint must be a boolean value");
  EXPECT_EQ(errorOf(db, R"(create table a (id integer primary key) with tags ("quereus.lens.decomp.role.d" = 'main'))"),
            "Reserved tag 'quereus.lens.decomp.role.d' on a basis table has invalid value 'main'; expected one of: "
            "primary-storage, auxiliary-access");
  EXPECT_EQ(errorOf(db, R"(create table a (id integer primary key) with tags ("quereus.sync.evict" = 'soon'))"),
            "Reserved tag 'quereus.sync.evict' on a basis table must be 'never', 'immediate', or a non-negative number of milliseconds");
  EXPECT_EQ(errorOf(db, R"(create table a (id integer primary key) with tags ("quereus.lens.decomp.key.d" = 'a, 1b'))"),
            "Reserved tag 'quereus.lens.decomp.key.d' on a basis table must be a non-empty comma-separated list of identifiers");
  db.exec(R"(create table a (id integer primary key with tags ("quereus.id" = 'c1'), v integer,
             constraint u unique (v) with tags ("quereus.expose_implicit_index" = true))
             with tags ("quereus.sync.evict" = 3600, "quereus.lens.decomp.key.d" = 'id', audit = 'x'))");
}

TEST_F(ReservedTags, IndexAndAlterTagsValidateAtTheirSites) {
  EXPECT_EQ(errorOf(db, R"(create index ix on t (note) with tags ("quereus.engine_managed" = true))"),
            "Reserved tag 'quereus.engine_managed' is not allowed on a physical index; it is valid only on: a basis table");
  EXPECT_EQ(errorOf(db, R"(alter table t set tags ("quereus.bogus" = 1))"),
            "Unknown reserved tag 'quereus.bogus' on a basis table: no such key in the reserved 'quereus.*' namespace");
  EXPECT_EQ(errorOf(db, R"(alter table t alter column note set tags ("quereus.sync.replicate" = true))"),
            "Reserved tag 'quereus.sync.replicate' is not allowed on a physical column; it is valid only on: "
            "a view declaration, a basis table");
  db.exec("create index ix on t (note)");
  EXPECT_EQ(errorOf(db, R"(alter index ix set tags ("quereus.lens.writable" = true))"),
            "Reserved tag 'quereus.lens.writable' is not allowed on a physical index; it is valid only on: a logical column");
  db.exec(R"(alter table t set tags ("quereus.sync.replicate" = true))");
}

}  // namespace
}  // namespace optic
