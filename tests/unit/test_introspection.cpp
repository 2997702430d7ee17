// Catalog table-valued function tests (core/ddl/introspection.cpp, canonical_ddl.cpp): the
// column shapes and row order of schema(), table_info(), index_info(), foreign_key_info(),
// unique_constraint_info(), check_constraint_info(), view_info() and column_info(); tags as
// JSON text; unnamed constraints reported as NULL; unknown tables refused.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "core/common/value_ops.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;  // tests/unit/sql_test_util.h
using testing_sql::errorOf;

TEST(Introspection, SchemaListsTablesIndexesAndViewsWithCanonicalDdl) {
  Database db;
  db.exec("create table p (id integer primary key, name text null) with tags (owner = 'x');"
          "create index ix_name on p (name desc); create view v as select id from p");
  EXPECT_EQ(rows(db, "select type, name, tbl_name, tags from schema() order by type, name"),
            "index|ix_name|p|null;table|p|p|{\"owner\":\"x\"};view|v|v|null");
  EXPECT_EQ(rows(db, "select sql from schema() where name = 'p'"),
            "create table \"p\" (\"id\" INTEGER not null, \"name\" TEXT null, primary key (\"id\")) using memory()"
            " with tags (owner = 'x')");
  // Index and view texts are the reference's schema() texts: every key column's collation, no
  // UNIQUE / WHERE / tags; the view's CREATE re-printed with names quoted only where needed.
  EXPECT_EQ(rows(db, "select sql from schema() where name = 'ix_name'"),
            "CREATE INDEX \"ix_name\" ON \"p\" (\"name\" COLLATE BINARY DESC)");
  EXPECT_EQ(rows(db, "select sql from schema() where name = 'v'"), "create view v as select id from p");
}

TEST(Introspection, TableInfoReportsColumnsKeyMembershipAndGeneratedKinds) {
  Database db;
  db.exec("create table t (a integer, b text collate nocase null default 'z', c integer generated always as (a + 1),"
          " primary key (b, a))");
  EXPECT_EQ(rows(db, "select cid, name, type, \"notnull\", dflt_value, pk, collation, \"generated\" from table_info('t')"),
            "0|a|INTEGER|1|null|1|BINARY|0;1|b|TEXT|0|'z'|1|NOCASE|0;2|c|INTEGER|1|null|0|BINARY|1");
  EXPECT_EQ(rows(db, "select count(*) from table_info('main.t')"), "3");
}

TEST(Introspection, UnknownTableIsRefused) {
  Database db;
  EXPECT_NE(errorOf(db, "select * from table_info('nope')").find("Table 'nope' not found"), std::string::npos);
}

TEST(Introspection, IndexInfoHidesConstraintIndexes) {
  Database db;
  db.exec("create table t (id integer primary key, a text unique, s text);"
          "create unique index ix_s on t (s) where s is not null");
  EXPECT_EQ(rows(db, "select index_name, seq, column_name, \"desc\", \"unique\", partial from index_info('t')"),
            "ix_s|0|s|0|1|1");
  EXPECT_EQ(rows(db, "select id, name, column_name, partial from unique_constraint_info('t')"),
            "0|null|a|0;1|ix_s|s|1");
}

TEST(Introspection, ForeignKeyInfoResolvesImplicitParentKey) {
  Database db;
  db.exec("create table p (a integer, b integer, primary key (a, b));"
          "create table c (id integer primary key, x integer null, y integer null,"
          " constraint fk foreign key (x, y) references p on delete cascade with tags (k = 1))");
  EXPECT_EQ(rows(db, "select id, name, \"table\", \"from\", referenced_table, \"to\", on_update, on_delete, seq, tags"
                     " from foreign_key_info('c')"),
            "0|fk|c|x|p|a|restrict|cascade|0|{\"k\":1};0|fk|c|y|p|b|restrict|cascade|1|{\"k\":1}");
}

TEST(Introspection, CheckConstraintInfoNamesOnlyNamedChecks) {
  Database db;
  db.exec("create table t (id integer primary key, q integer, constraint pos check (q > 0), check (q < 10))");
  EXPECT_EQ(rows(db, "select id, name, expr, operations, \"deferrable\" from check_constraint_info('t')"),
            "0|pos|q > 0|insert,update|0;1|null|q < 10|insert,update|0");
}

TEST(Introspection, ColumnCheckKeepsItsColumnNamedConstraintAcrossLaterAlters) {
  Database db;
  db.exec("create table t (id integer primary key, junk text, c integer check (c > 0))");
  db.exec("alter table t add column n integer null check (n is null or n > 0)");
  db.exec("alter table t drop column junk");
  EXPECT_EQ(rows(db, "select name from check_constraint_info('t') order by name"), "_check_c;_check_n");
  EXPECT_NE(errorOf(db, "insert into t values (1, 1, -5)").find("CHECK constraint failed: _check_n"), std::string::npos);
}

TEST(Introspection, ViewAndColumnInfoReportPassthroughColumns) {
  Database db;
  db.exec("create table t (id integer primary key, name text null);"
          "create view v as select id, name as n, upper(name) as u from t;"
          "create view agg as select count(*) as c from t");
  EXPECT_EQ(rows(db, "select name, is_insertable_into, is_updatable, is_deletable, effective_targets from view_info()"
                     " order by name"),
            "agg|NO|NO|NO|[];v|YES|YES|YES|[\"t\"]");
  EXPECT_EQ(rows(db, "select cid, column_name, is_updatable, base_table, base_column from column_info('v')"),
            "0|id|YES|t|id;1|n|YES|t|name;2|u|NO|null|null");
  EXPECT_EQ(rows(db, "select count(*) from view_info('missing')"), "0");
}

TEST(Introspection, AJoinSourceNoColumnWritesIsNoTarget) {
  Database db;
  db.exec("create table a (id integer primary key, x integer);"
          "create table band (id integer primary key, lo integer, hi integer);"
          "create table p (pid integer primary key, label text null);"
          "create table c (cid integer primary key, pref integer, note text null);"
          // `band` only filters: the view's rows are a's rows.
          "create view inband as select a.id as id, a.x as x from a join band on a.x > band.lo and a.x < band.hi;"
          // p's label is written through, but p's key is hidden: no delete can name p's rows.
          "create view cp as select c.cid as cid, p.label as label from c join p on p.pid = c.pref");
  EXPECT_EQ(rows(db, "select name, is_insertable_into, is_updatable, is_deletable, effective_targets from view_info()"
                     " order by name"),
            "cp|NO|YES|NO|[\"c\",\"p\"];inband|YES|YES|YES|[\"a\"]");
}

}  // namespace
}  // namespace optic
