// Mutation context (core/execution/mutation_context.h, bound by core/planner/dml_binder.h) and
// statement-level `with schema` on DML: declared variables read bare or as `context.v` in DEFAULT
// and CHECK, missing and unknown variables, NULL vs NOT NULL declarations, conversion to the
// declared type, forwarding through a view write, deferred CHECKs, and the statement search path
// on insert/update/delete.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(MutationContext, DefaultReadsBareAndQualifiedVariable) {
  Database db;
  db.exec("create table t (id integer primary key, a integer default markup, b integer default (context.markup * 2))"
          " with context (markup integer)");
  db.exec("insert into t (id) with context markup = 5 values (1)");
  db.exec("insert into t (id) values (2) with context markup = 7");
  EXPECT_EQ(rows(db, "select id, a, b from t order by id"), "1|5|10;2|7|14");
}

TEST(MutationContext, BareNameMeansVariableOverColumnInDefault) {
  Database db;
  db.exec("create table t (id integer primary key, v integer null, l integer default v, q integer default (new.v))"
          " with context (v integer)");
  db.exec("insert into t (id, v) with context v = 9 values (1, 3)");
  EXPECT_EQ(rows(db, "select l, q from t"), "9|3");
}

TEST(MutationContext, CheckReadsVariableOnInsertUpdateDelete) {
  Database db;
  db.exec("create table t (id integer primary key, q integer, constraint c check (q >= floor_v),"
          " constraint d check on delete (context.allow = 1)) with context (floor_v integer null, allow integer null)");
  db.exec("insert into t with context floor_v = 10 values (1, 20)");
  EXPECT_NE(errorOf(db, "insert into t with context floor_v = 50 values (2, 30)").find("CHECK constraint failed: c"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "update t with context floor_v = 30 set q = 25").find("CHECK constraint failed: c"),
            std::string::npos);
  db.exec("update t with context floor_v = 20 set q = 25");
  EXPECT_NE(errorOf(db, "delete from t with context allow = 0").find("CHECK constraint failed: d"), std::string::npos);
  EXPECT_EQ(rows(db, "select id, q from t"), "1|25");
  db.exec("delete from t with context allow = 1");
  EXPECT_EQ(rows(db, "select count(*) from t"), "0");
}

TEST(MutationContext, MissingNotNullVariableIsReportedWhereRead) {
  Database db;
  db.exec("create table t (id integer primary key, constraint c check (context.k = 'k'))"
          " with context (k text, sig text null, unread text)");
  const std::string msg = "table 'main.t' requires mutation context variable 'k'";
  EXPECT_NE(errorOf(db, "insert into t values (1)").find(msg), std::string::npos);
  EXPECT_NE(errorOf(db, "insert into t with context sig = 'x' values (1)").find(msg), std::string::npos);
  // Raised at bind time: an UPDATE that matches no row still needs the variable.
  EXPECT_NE(errorOf(db, "update t set id = 2").find(msg), std::string::npos);
  // Supplied k; the NULL-marked sig and the never-read NOT NULL `unread` may be omitted.
  EXPECT_EQ(errorOf(db, "insert into t with context k = 'k' values (1)"), "");
  // The CHECK is not DELETE-scoped: a DELETE reads no variable.
  EXPECT_EQ(errorOf(db, "delete from t"), "");
}

TEST(MutationContext, UnknownVariableIsIgnored) {
  Database db;
  db.exec("create table t (id integer primary key, a integer default x) with context (x integer)");
  db.exec("insert into t (id) with context x = 1, bogus = 2 values (1)");
  EXPECT_EQ(rows(db, "select a from t"), "1");
}

TEST(MutationContext, NullableVariableReadsNullWhenOmitted) {
  Database db;
  db.exec("create table t (id integer primary key, a integer default coalesce(lim, 999)) with context (lim integer null)");
  db.exec("insert into t (id) values (1)");
  db.exec("insert into t (id) with context lim = null values (2)");
  db.exec("insert into t (id) with context lim = 5 values (3)");
  EXPECT_EQ(rows(db, "select a from t order by id"), "999;999;5");
}

TEST(MutationContext, NotNullVariableRefusesNullAndConvertsStrictly) {
  Database db;
  db.exec("create table t (id integer primary key, a integer default n) with context (n integer)");
  EXPECT_NE(errorOf(db, "insert into t (id) with context n = null values (1)").find("may not be NULL"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "insert into t (id) with context n = 'abc' values (1)").find("Type conversion failed"),
            std::string::npos);
  db.exec("insert into t (id) with context n = '12' values (1)");
  EXPECT_EQ(rows(db, "select typeof(a), a from t"), "integer|12");
}

TEST(MutationContext, ValueIsEvaluatedOncePerStatementFromASubquery) {
  Database db;
  db.exec("create table src (id integer primary key); insert into src values (1), (2), (3);");
  db.exec("create table t (id integer primary key, w integer default who) with context (who integer)");
  db.exec("insert into t (id) with context who = (select count(*) from src) values (1), (2)");
  EXPECT_EQ(rows(db, "select id, w from t order by id"), "1|3;2|3");
}

TEST(MutationContext, ForwardedThroughViewWrite) {
  Database db;
  db.exec("create table evt (id integer primary key, created integer default now_ms) with context (now_ms integer)");
  db.exec("create view evt_v as select id from evt");
  db.exec("insert into evt_v with context now_ms = 12345 values (1), (2)");
  EXPECT_EQ(rows(db, "select id, created from evt order by id"), "1|12345;2|12345");
  EXPECT_NE(errorOf(db, "insert into evt_v values (3)").find("table 'main.evt' requires mutation context variable"),
            std::string::npos);
}

TEST(MutationContext, DeferredCheckSeesCapturedContext) {
  Database db;
  db.exec("create table t (id integer primary key, s integer, constraint c check (s >= m and exists"
          " (select 1 from t where id = new.id))) with context (m integer)");
  db.exec("begin");
  db.exec("insert into t with context m = 10 values (1, 15)");
  EXPECT_EQ(errorOf(db, "commit"), "");
  db.exec("begin");
  db.exec("insert into t with context m = 99 values (2, 15)");
  EXPECT_NE(errorOf(db, "commit").find("CHECK constraint failed"), std::string::npos);
}

TEST(MutationContext, SchemaCatalogShowsDeclaration) {
  Database db;
  db.exec("create table t (id integer primary key) with context (a integer, b text null)");
  EXPECT_NE(rows(db, "select sql from schema() where name = 't'").find("with context (\"a\" INTEGER, \"b\" TEXT null)"),
            std::string::npos);
}

TEST(MutationContext, GeneratedColumnNeverReadsContext) {
  Database db;
  db.exec("create table t (id integer primary key, a integer, g integer generated always as (a + 1) stored)"
          " with context (a integer)");
  db.exec("insert into t (id, a) values (1, 3) with context a = 100");
  EXPECT_EQ(rows(db, "select g from t"), "4");
}

TEST(StatementSchemaPath, WithSchemaResolvesDmlTargets) {
  Database db;
  db.exec("create table temp.w (id integer primary key, v text)");
  EXPECT_NE(errorOf(db, "insert into w values (1, 'a')"), "");
  db.exec("insert into w values (1, 'a') with schema \"temp\"");
  db.exec("update w set v = 'b' where id = 1 with schema \"temp\"");
  EXPECT_EQ(rows(db, "select v from w with schema \"temp\""), "b");
  db.exec("delete from w where id = 1 with schema \"temp\"");
  EXPECT_EQ(rows(db, "select count(*) from temp.w"), "0");
  // The statement path replaces the session path for that statement only.
  EXPECT_NE(errorOf(db, "select * from w"), "");
}

}  // namespace
}  // namespace optic
