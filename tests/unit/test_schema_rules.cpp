// Schema-expression rules (core/ddl/table_builder.cpp, core/planner/row_scope.h,
// core/planner/dml_binder.cpp, core/execution/dml.cpp): what DEFAULT, CHECK and generated
// expressions may read, checked at DDL time, and how upsert conflict targets pick the violated
// constraint.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(SchemaRules, DefaultReadsSuppliedSiblingThroughNew) {
  Database db;
  db.exec("create table t (id integer primary key, base integer, title text null,"
          " doubled integer default (new.base * 2), slug text null default (lower(new.title)))");
  db.exec("insert into t (id, base, title) values (1, 10, 'Hello')");
  EXPECT_EQ(rows(db, "select doubled, slug from t"), "20|hello");
  // The sibling the default reads was not supplied: a resolution error, nothing written.
  EXPECT_TRUE(contains(errorOf(db, "insert into t (id, base) values (2, 7)"), "new.title isn't a column"));
  // Supplying the defaulted column itself means its default is never evaluated.
  db.exec("insert into t (id, base, slug) values (3, 7, 'x')");
  EXPECT_EQ(rows(db, "select id from t order by id"), "1;3");
}

TEST(SchemaRules, DefaultReadingGeneratedColumnIsRefused) {
  Database db;
  db.exec("create table t (id integer primary key, x integer, g integer generated always as (x * 2),"
          " y integer null default (new.g))");
  EXPECT_TRUE(contains(errorOf(db, "insert into t (id, x) values (1, 5)"), "isn't a column"));
}

TEST(SchemaRules, BindParametersRefusedAtDdlEvenInsideCompoundSubqueries) {
  Database db;
  EXPECT_TRUE(contains(errorOf(db, "create table a (id integer primary key, b text default (:p))"),
                       "DEFAULT may not reference bind parameters"));
  EXPECT_TRUE(contains(errorOf(db, "create table b (x integer, check (x in (select 1 union all select ?)))"),
                       "CHECK constraint may not reference bind parameters"));
  db.exec("pragma nondeterministic_schema = true");  // a scope rule, not a determinism rule
  EXPECT_TRUE(contains(errorOf(db, "create table c (id integer primary key, v integer default (?))"),
                       "may not reference bind parameters"));
  EXPECT_TRUE(contains(errorOf(db, "select * from a"), "not found"));
}

TEST(SchemaRules, BareColumnInDefaultIsRefusedButNewQualifiedIsAccepted) {
  Database db;
  EXPECT_TRUE(contains(errorOf(db, "create table t (id integer primary key, x integer, y integer default (x + 1))"),
                       "may not reference a bare column"));
  db.exec("create table u (id integer primary key, x integer, y integer)");
  EXPECT_TRUE(contains(errorOf(db, "alter table u alter column y set default (x + 1)"), "bare column"));
  db.exec("alter table u alter column y set default (new.x * 10)");
  db.exec("insert into u (id, x) values (1, 4)");
  EXPECT_EQ(rows(db, "select y from u"), "40");
}

TEST(SchemaRules, NonDeterminismFoundInsideSubqueriesAndNamed) {
  Database db;
  EXPECT_TRUE(contains(errorOf(db, "create table t (x integer, check (x in (select 1 union all select random())))"),
                       "Non-deterministic expression not allowed in CHECK"));
  EXPECT_TRUE(contains(errorOf(db, "create table g (id integer primary key, x text generated always as (date('now')))"),
                       "function 'date' is not deterministic"));
}

TEST(SchemaRules, AddColumnDefaultBackfillsFromEachRowThroughNew) {
  Database db;
  db.exec("create table t (a integer primary key, b text); insert into t values (1, '7');");
  db.exec("alter table t add column n integer default (new.b)");
  db.exec("insert into t (a, b) values (2, '20')");
  EXPECT_EQ(rows(db, "select a, n, typeof(n) from t order by a"), "1|7|integer;2|20|integer");
}

TEST(SchemaRules, AddedDeleteOnlyCheckReadsOldAndFiresOnDelete) {
  Database db;
  db.exec("create table inv (id integer primary key, qty integer); insert into inv values (1, 5), (2, 0);");
  db.exec("alter table inv add constraint keep_stock check on delete (old.qty <= 0)");
  EXPECT_TRUE(contains(errorOf(db, "delete from inv where id = 1"), "CHECK constraint failed: keep_stock"));
  db.exec("delete from inv where id = 2");
  EXPECT_EQ(rows(db, "select id from inv"), "1");
}

TEST(SchemaRules, DeferredDeleteCheckRunsAtCommitOverTheRemovedRow) {
  Database db;
  db.exec("create table reg (k text primary key); insert into reg values ('a');");
  db.exec("create table g (id integer primary key, k text, constraint known check on insert, delete"
          " (exists (select 1 from reg where reg.k = coalesce(new.k, old.k))))");
  db.exec("insert into g values (1, 'a'), (2, 'a')");
  db.exec("begin; delete from g where id = 1; commit;");  // 'a' still registered: passes
  db.exec("begin; delete from reg; delete from g where id = 2;");
  EXPECT_TRUE(contains(errorOf(db, "commit"), "CHECK constraint failed: known"));
  EXPECT_EQ(rows(db, "select id from g"), "2");
  // A delete whose key is filled again by the same transaction leaves the check to the new row.
  db.exec("begin; delete from g where id = 2; insert into g values (2, 'a'); commit;");
  EXPECT_EQ(rows(db, "select id, k from g"), "2|a");
}

TEST(SchemaRules, QualifiedSelfReferenceCapturedBySubquerySourceIsRefused) {
  Database db;
  db.exec("create table src (k integer primary key, n integer); insert into src values (1, 10);");
  db.exec("create view vw as select n from src");
  db.exec("create table t (id integer primary key, n integer,"
          " constraint c check ((select count(*) from vw where vw.n > t.n) = 0))");
  EXPECT_TRUE(contains(errorOf(db, "insert into t values (1, 50)"), "t.n isn't a column"));
  // No same-named column in the subquery's sources: the reference is the constraint row.
  db.exec("create table u (id integer primary key, m integer,"
          " constraint c2 check ((select count(*) from src where k > u.m) = 0))");
  db.exec("insert into u values (1, 50)");
  EXPECT_TRUE(contains(errorOf(db, "insert into u values (2, 0)"), "CHECK constraint failed: c2"));
}

TEST(SchemaRules, GeneratedColumnBindsOnlyItsOwnRow) {
  Database db;
  db.exec("create table d (k integer primary key, v integer)");
  EXPECT_TRUE(contains(errorOf(db, "create table t (id integer primary key, a integer,"
                                   " g integer generated always as (old.a + 1))"),
                       "binds nothing"));
  EXPECT_TRUE(contains(errorOf(db, "create table t (id integer primary key, x integer generated always as (d.v + 1))"),
                       "binds nothing"));
  EXPECT_EQ(errorOf(db, "create table n (id integer primary key, g integer generated always as (nosuch + 1))"),
            "Column 'nosuch' referenced by generated column 'g' not found in table 'n'");
  // A subquery's own FROM binds its names.
  db.exec("insert into d values (1, 42)");
  db.exec("create table s (id integer primary key, g integer generated always as ((select v from d where d.k = id)))");
  db.exec("insert into s (id) values (1)");
  EXPECT_EQ(rows(db, "select g from s"), "42");
}

TEST(SchemaRules, GeneratedColumnCyclesRefusedWhateverTheirLength) {
  Database db;
  EXPECT_TRUE(contains(errorOf(db, "create table a (id integer primary key, x integer generated always as (x + 1))"),
                       "Cyclic dependency in generated columns"));
  EXPECT_TRUE(contains(errorOf(db, "create table b (id integer primary key, c0 integer,"
                                   " c1 integer generated always as (c0 + c2), c2 integer generated always as (c1))"),
                       "Cyclic dependency in generated columns"));
  // A name under an inner DML may be this table's: naming the column being added is a self-cycle.
  db.exec("create table dml_src (k integer primary key, g integer)");
  db.exec("create table dml_t (id integer primary key)");
  EXPECT_TRUE(contains(errorOf(db, "alter table dml_t add column g integer generated always as "
                                   "((select k from (insert into dml_src values (1, 2) returning g) q limit 1))"),
                       "Cyclic dependency in generated columns"));
  EXPECT_EQ(rows(db, "select count(*) from dml_src"), "0");
  db.exec("create table ok (id integer primary key, a integer generated always as (b + 1),"
          " b integer generated always as (id * 2))");
  db.exec("insert into ok (id) values (3)");
  EXPECT_EQ(rows(db, "select a, b from ok"), "7|6");
}

TEST(SchemaRules, GeneratedColumnSubqueryNamesAreItsSourcesNotTheRow) {
  Database db;
  db.exec("create table d2 (k integer primary key, w integer, g integer)");
  db.exec("insert into d2 values (1, 10, 20)");
  // Each reads another table's like-named column: no edge, so no false cycle.
  db.exec("create table t2 (id integer primary key,"
          " w integer generated always as ((select g from d2 where d2.k = id limit 1)),"
          " g integer generated always as ((select w from d2 where d2.k = id limit 1)))");
  db.exec("insert into t2 (id) values (1)");
  EXPECT_EQ(rows(db, "select w, g from t2"), "20|10");
  // A subquery over the table being created reads its earlier rows.
  db.exec("create table s1 (id integer primary key, a integer,"
          " g integer null generated always as ((select a from s1 x where x.id = 1 limit 1)))");
  db.exec("insert into s1 (id, a) values (1, 5)");
  db.exec("insert into s1 (id, a) values (2, 6)");
  EXPECT_EQ(rows(db, "select id, g from s1 order by id"), "1|null;2|5");
  // Another schema's qualifier binds nothing; an unresolved name inside a derived table is left
  // for the first write.
  EXPECT_TRUE(contains(errorOf(db, "create table sqm (id integer primary key, a integer,"
                                   " g integer generated always as (\"temp\".sqm.a + 1))"),
                       "binds nothing"));
  EXPECT_EQ(errorOf(db, "create table sop (id integer primary key,"
                        " g integer generated always as ((select y from (select zz.v as y from d2) s limit 1)))"),
            "");
}

TEST(SchemaRules, GeneratedColumnSubqueryKeepsItsSourceColumn) {
  Database db;
  db.exec("create table dref (k integer primary key, v integer)");
  db.exec("insert into dref values (1, 42)");
  db.exec("create table tref (id integer primary key,"
          " g integer generated always as ((select v from dref where dref.k = id limit 1)))");
  EXPECT_EQ(errorOf(db, "alter table dref drop column v"),
            "Cannot drop column 'v' from 'dref': it is referenced by the GENERATED expression of column 'g' on "
            "table 'tref'");
  // A rename rewrites the generated body, which keeps computing.
  db.exec("alter table dref rename column v to v2");
  db.exec("insert into tref (id) values (1)");
  EXPECT_EQ(rows(db, "select g from tref"), "42");
}

TEST(Upsert, PartialTargetMatchesCompositeUniqueInAnyOrder) {
  Database db;
  db.exec("create table c (k integer, v text, payload text, unique (k, v)); insert into c values (0, 'a', 'first');");
  db.exec("insert into c values (0, 'a', 'second') on conflict (v, k) do nothing");
  db.exec("insert into c values (0, 'a', 'third') on conflict (k) do nothing");
  EXPECT_EQ(rows(db, "select payload from c"), "first");
}

TEST(Upsert, TargetOfAnotherConstraintStillAborts) {
  Database db;
  db.exec("create table s (id integer primary key, email text unique); insert into s values (1, 'a@x');");
  EXPECT_EQ(errorOf(db, "insert into s values (2, 'a@x') on conflict (id) do nothing"),
            "UNIQUE constraint failed: s (email)");
  EXPECT_EQ(rows(db, "select id, email from s"), "1|a@x");
}

TEST(Upsert, ClauseChosenByTheViolatedConstraint) {
  Database db;
  db.exec("create table m (a integer primary key, e text unique, b integer); insert into m values (1, 'x', 1);");
  db.exec("insert into m values (2, 'x', 1) on conflict (a) do update set b = 10 on conflict (e) do update set b = 20");
  EXPECT_EQ(rows(db, "select a, b from m"), "1|20");
  db.exec("insert into m values (1, 'y', 1) on conflict (a) do update set b = 30 on conflict (e) do update set b = 40");
  EXPECT_EQ(rows(db, "select a, b from m"), "1|30");
}

}  // namespace
}  // namespace optic
