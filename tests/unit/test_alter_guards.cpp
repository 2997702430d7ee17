// ALTER TABLE arms that must refuse a statement leaving the schema inconsistent (the reference's
// docs/sql-alter.md): DROP COLUMN under a foreign key that names the column as a parent column,
// SET DATA TYPE whose literal DEFAULT no longer converts, SET NOT NULL whose backfill makes two
// primary keys meet.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(AlterGuards, DropColumnNamedByAForeignKeyIsRefused) {
  Database db;
  db.exec("create table p (id integer primary key, code text unique, note text)");
  db.exec("create table c (id integer primary key, pcode text, constraint fk_code foreign key (pcode) references p(code))");
  EXPECT_EQ(errorOf(db, "alter table p drop column code"),
            "Cannot drop column 'code' from 'p': it is referenced by foreign key 'fk_code' on table 'c'");
  EXPECT_EQ(rows(db, "select code from p"), "");  // the column stays
  db.exec("alter table p drop column note");  // a column no key names
  db.exec("alter table c drop constraint fk_code");
  db.exec("alter table p drop column code");
}

TEST(AlterGuards, DropColumnGuardSkipsPrimaryKeyTargetsAndKeysDroppedWithTheColumn) {
  Database db;
  // A self-reference whose child column is the dropped column goes with it.
  db.exec("create table t (id integer primary key, x integer unique, y integer references t(x))");
  db.exec("alter table t drop column y");
  // A key naming no parent columns targets the primary key, which is never droppable anyway.
  db.exec("create table q (id integer primary key, v integer)");
  db.exec("create table r (id integer primary key, qid integer references q)");
  db.exec("alter table q drop column v");
}

TEST(AlterGuards, DropColumnNamedByACrossSchemaForeignKeyIsRefused) {
  Database db;
  db.exec("declare schema aux {}");
  db.exec("apply schema aux");
  db.exec("create table main.p (id integer primary key, code text unique)");
  db.exec("create table aux.c (id integer primary key, pcode text references main.p(code))");
  EXPECT_NE(errorOf(db, "alter table main.p drop column code"), "");
}

// A CHECK on another table reaching the column through a materialized view refuses the drop
// (sql-alter.md, DROP COLUMN: "nor one such a body reaches through a view or materialized
// view"), naming the chain; a column the view's body does not read stays droppable.
TEST(AlterGuards, DropColumnReachedThroughAMaterializedViewIsRefused) {
  Database db;
  db.exec("create table s (id integer primary key, v integer, w integer)");
  db.exec("insert into s values (1, 6, 0)");
  db.exec("create materialized view m as select id, v from s");
  db.exec("create table r (id integer primary key, n integer, constraint ck check (n < (select max(m.v) from m)))");
  std::string e = errorOf(db, "alter table s drop column v");
  EXPECT_NE(e.find("CHECK constraint 'ck' on table 'r' reaches it through materialized view 'm'"), std::string::npos) << e;
  EXPECT_EQ(rows(db, "select count(*) from table_info('s') where name = 'v'"), "1");
  EXPECT_EQ(errorOf(db, "alter table s drop column w"), "");  // the view's body does not read w
  // Reading the materialized view still watches its sources, not the view (change scopes).
  db.exec("alter table r drop constraint ck");
  EXPECT_EQ(errorOf(db, "alter table s drop column v"), "");
}

// ADD COLUMN of a NOT NULL column with no value source over existing rows is a CONSTRAINT error
// naming the schema-qualified table (the reference's validateNotNullBackfill wording); a
// DEFAULT folding to NULL is no value source, an empty table needs none.
TEST(AlterGuards, AddingAMandatoryColumnWithoutAValueSourceNamesTheQualifiedTable) {
  Database db;
  db.exec("create table t (id integer primary key)");
  db.exec("alter table t add column a integer not null");  // empty: nothing to backfill
  db.exec("insert into t values (1, 5)");
  EXPECT_EQ(errorOf(db, "alter table t add column b integer not null default null"),
            "NOT NULL constraint failed for column 'b' added to main.t — column has no DEFAULT and existing rows "
            "cannot be backfilled");
  EXPECT_EQ(errorOf(db, "alter table t add column c integer not null default 7"), "");
  EXPECT_EQ(rows(db, "select c from t"), "7");
}

// A CHECK added with a column is validated over the backfilled rows: a literal DEFAULT's rows
// (bulk-written) fail as "violated by backfilled rows"; a per-row DEFAULT's as the CHECK itself.
TEST(AlterGuards, AnAddedColumnsCheckFailsOverTheBackfilledRows) {
  Database db;
  db.exec("create table t (id integer primary key)");
  db.exec("insert into t values (1)");
  EXPECT_EQ(errorOf(db, "alter table t add column c integer default 0 constraint cpos check (c > 0)"),
            "CHECK constraint 'cpos' violated by backfilled rows in ALTER TABLE ADD COLUMN on 't'");
  EXPECT_EQ(errorOf(db, "alter table t add column e integer default (new.id - 5) check (e > 0)"),
            "CHECK constraint failed: _check_e (e > 0)");
  EXPECT_EQ(rows(db, "select count(*) from table_info('t')"), "1");  // both refused whole
}

// A view that republishes the column by a star carries it: an assertion naming the column of
// the view blocks the drop (the references RENAME COLUMN would rewrite). A view whose column
// list pins a star is positional: any rule reaching it blocks dropping any starred-over column.
TEST(AlterGuards, DropColumnSeesStarRepublishersAndPositionalViews) {
  Database db;
  db.exec("create table t (id integer primary key, x integer, y integer)");
  db.exec("create view v as select * from t");
  db.exec("create assertion a check (not exists (select 1 from v where x < 0))");
  std::string e = errorOf(db, "alter table t drop column x");
  EXPECT_NE(e.find("it is referenced by assertion 'a' through view 'v'"), std::string::npos) << e;
  EXPECT_EQ(errorOf(db, "alter table t drop column y"), "");  // the assertion names no y
  db.exec("drop assertion a");
  db.exec("create table u (id integer primary key, x integer)");
  db.exec("create view w (a, b) as select * from u");
  db.exec("create table r (id integer primary key, n integer, constraint ck check (n < (select max(a) from w)))");
  e = errorOf(db, "alter table u drop column x");
  EXPECT_NE(e.find("CHECK constraint 'ck' on table 'r' reads view 'w'"), std::string::npos) << e;
  EXPECT_NE(e.find("dropping the column breaks it outright"), std::string::npos) << e;
}

TEST(AlterGuards, RetypeFoldsTheLiteralDefaultAgainstTheNewType) {
  Database db;
  db.exec("create table t (id integer primary key, n text default 'abc')");
  EXPECT_EQ(errorOf(db, "alter table t alter column n set data type integer").rfind("Type conversion failed for column 'n'", 0), 0u);
  db.exec("alter table t alter column n drop default");
  db.exec("alter table t alter column n set data type integer");
  db.exec("create table u (id integer primary key, n text default '7')");
  db.exec("alter table u alter column n set data type integer");  // '7' converts
}

TEST(AlterGuards, SetNotNullOnAKeyColumnRefusesABackfillThatCollides) {
  Database db;
  db.exec("create table t (a integer null default 0, b integer, primary key (a, b))");
  db.exec("insert into t values (null, 1), (0, 1)");
  EXPECT_NE(errorOf(db, "alter table t alter column a set not null"), "");
  EXPECT_EQ(rows(db, "select count(*) from t"), "2");
  db.exec("delete from t where a = 0");
  db.exec("alter table t alter column a set not null");
  EXPECT_EQ(rows(db, "select a, b from t"), "0|1");
}

// A partial index's predicate has no narrowed form, so the column it reads cannot go; a key
// column of the same index is fine (the index narrows).
TEST(AlterGuards, DropColumnReadByAPartialIndexPredicateIsRefused) {
  Database db;
  db.exec("create table t (id integer primary key, a integer, b integer, c integer)");
  db.exec("create index ix on t (a, c) where b > 0");
  EXPECT_EQ(errorOf(db, "alter table t drop column b"),
            "Cannot drop column 'b' from 't': it is referenced by the WHERE clause of partial index 'ix'");
  db.exec("alter table t drop column c");
  db.exec("drop index ix");
  db.exec("alter table t drop column b");
}

// Two unnamed UNIQUEs over one column set are indistinguishable (neither is droppable by name);
// column order is no identity. A named one beside it is legal.
TEST(AlterGuards, AnEquivalentUnnamedUniqueIsRefusedInAnyColumnOrder) {
  Database db;
  db.exec("create table a (id integer primary key, x integer, y integer, unique (x, y))");
  EXPECT_EQ(errorOf(db, "alter table a add unique (y, x)"),
            "Cannot add UNIQUE constraint to table 'a': an equivalent UNIQUE constraint on (y, x) already exists.");
  EXPECT_EQ(errorOf(db, "create table b (id integer primary key, x integer, y integer, unique (x, y), unique (y, x))"),
            "Cannot create table 'b': an equivalent UNIQUE constraint on (y, x) already exists.");
  db.exec("alter table a add constraint named_xy unique (y, x)");
}

}  // namespace
}  // namespace optic
