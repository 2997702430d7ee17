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
  EXPECT_EQ(rows(db, "select type, name, tbl_name, tags from schema() where type <> 'function' order by type, name"),
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

// function_info([name]) lists each registration: one row per argument count (-1 variadic), its
// kind, determinism and the SQLite-style flags (UTF8 1 | DETERMINISTIC 0x800); schema() lists
// the same functions in main with their signature.
TEST(Introspection, FunctionInfoListsTheRegisteredFunctions) {
  Database db;
  EXPECT_EQ(rows(db, "select name, num_args, type, deterministic, flags, signature from function_info('abs')"),
            "abs|1|scalar|1|2049|FUNCTION abs(?)");
  EXPECT_EQ(rows(db, "select num_args, type from function_info('COUNT') order by num_args"), "0|aggregate;1|aggregate");
  EXPECT_EQ(rows(db, "select deterministic, flags from function_info('random')"), "0|1");
  EXPECT_EQ(rows(db, "select type, deterministic from function_info('table_info')"), "table|0");
  EXPECT_EQ(rows(db, "select count(*) > 50 from function_info()"), "true");
  EXPECT_EQ(rows(db, "select schema, tbl_name, sql, tags from schema() where type = 'function' and name = 'round' order by sql"),
            "main|round|FUNCTION round(?)|null;main|round|FUNCTION round(?, ?)|null");
  EXPECT_EQ(rows(db, "select count(*) from function_info('no_such_function')"), "0");
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

// A UNIQUE constraint tagged quereus.expose_implicit_index shows its structure as an index with
// tags of its own (the constraint keeps its tags); lifecycle stays the constraint's.
TEST(Introspection, ExposedConstraintIndexTakesTagsButNotLifecycle) {
  Database db;
  db.exec("create table t (id integer primary key, a text, b text,"
          " constraint ua unique (a) with tags (\"quereus.expose_implicit_index\" = true, note = 'c'),"
          " constraint ub unique (b))");
  EXPECT_EQ(rows(db, "select name, tags from schema() where type = 'index'"), "ua|null");
  EXPECT_EQ(rows(db, "select index_name, column_name, \"unique\" from index_info('t')"), "ua|a|0");
  db.exec("alter index ua add tags (purpose = 'lookup')");
  EXPECT_EQ(rows(db, "select tags from index_info('t')"), "{\"purpose\":\"lookup\"}");
  EXPECT_EQ(rows(db, "select json_extract(tags, '$.note') from unique_constraint_info('t') where name = 'ua'"), "c");
  db.exec("alter index ua drop tags (purpose)");
  EXPECT_EQ(rows(db, "select tags from schema() where name = 'ua'"), "null");
  // The hidden one stays unaddressable, and neither is droppable or re-creatable as an index.
  EXPECT_NE(errorOf(db, "alter index ub add tags (x = 1)").find("Index 'ub' not found in schema 'main'"), std::string::npos);
  EXPECT_NE(errorOf(db, "drop index ua").find("no such index"), std::string::npos);
  EXPECT_NE(errorOf(db, "create index ua on t (b)").find("already exists on table t"), std::string::npos);
  EXPECT_NE(errorOf(db, "insert into t values (1, 'x', 'y'), (2, 'x', 'z')").find("UNIQUE"), std::string::npos);
}

// Constraint names are per table: a name that is one table's constraint structure is another
// table's real index, and DROP INDEX / CREATE INDEX look past the structure to it.
TEST(Introspection, IndexNamesLookPastAnotherTablesConstraintStructure) {
  Database db;
  db.exec("create table a (id integer primary key, e text, constraint shared unique (e));"
          "create table b (id integer primary key, e text); create index shared on b (e)");
  EXPECT_NE(errorOf(db, "create index shared on b (id)").find("already exists on table b"), std::string::npos);
  db.exec("drop index shared");
  EXPECT_EQ(rows(db, "select count(*) from index_info('b')"), "0");
  EXPECT_EQ(rows(db, "select count(*) from unique_constraint_info('a') where name = 'shared'"), "1");
  db.exec("create index shared on b (e)");
  EXPECT_EQ(rows(db, "select tbl_name from schema() where type = 'index'"), "b");
}

// A UNIQUE constraint may not take a standalone index's name on its table (it would hide the
// user's index), on every path that names a constraint; the refusal leaves the table as it was.
TEST(Introspection, ConstraintBackingNameMayNotHideAnIndex) {
  Database db;
  db.exec("create table t (id integer primary key, a text, b text); create index ix on t (b);"
          "create index _uc_a on t (a)");
  EXPECT_EQ(errorOf(db, "alter table t add constraint IX unique (a)"),
            "Cannot add constraint 'IX' to table 't': its backing index 'IX' would collide with existing index 'ix'"
            " on the same table. Rename the constraint or the index.");
  EXPECT_NE(errorOf(db, "alter table t add unique (a)").find("backing index '_uc_a' would collide"), std::string::npos);
  EXPECT_NE(errorOf(db, "alter table t add column c text constraint ok unique constraint ix unique")
                .find("would collide with existing index 'ix'"),
            std::string::npos);
  EXPECT_EQ(rows(db, "select count(*) from table_info('t') where name = 'c'"), "0");
  db.exec("alter table t add constraint u unique (a)");
  EXPECT_NE(errorOf(db, "alter table t rename constraint u to ix").find("would collide with existing index 'ix'"),
            std::string::npos);
  db.exec("alter table t rename constraint u to U");  // its own structure is no collision
  EXPECT_EQ(rows(db, "select name from schema() where type = 'index' order by name"), "_uc_a;ix");
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
