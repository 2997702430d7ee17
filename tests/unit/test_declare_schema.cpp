// Declarative schema (core/catalog/declared_schema.h, core/ddl/schema_diff.h,
// core/parser/ddl_printer.h): declare, diff, apply (renames, seeds, atomicity), explain.
#include <gtest/gtest.h>

#include "core/parser/ddl_printer.h"
#include "core/parser/parser.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(DeclareSchema, ApplyCreatesANewSchemaWithItsObjects) {
  Database db;
  EXPECT_NE(errorOf(db, "create table app.t (id integer primary key)"), "");  // no CREATE SCHEMA
  db.exec(
      "declare schema app {"
      "  view names as select name from item"
      "  table item (id integer primary key, name text, qty integer null)"
      "  index item_name on item (name)"
      "}");
  EXPECT_EQ(rows(db, "select count(*) from schema() where name = 'item'"), "0");  // declaring changes nothing
  db.exec("apply schema app");
  db.exec("insert into app.item values (1, 'bolt', 3), (2, 'nut', null)");
  EXPECT_EQ(rows(db, "select name from app.names order by name"), "bolt;nut");
  EXPECT_EQ(rows(db, "select name from schema() where type = 'index' and name = 'item_name'"), "item_name");
  EXPECT_EQ(rows(db, "diff schema app"), "");
  EXPECT_EQ(rows(db, "select name from APP.item where id = 1"), "bolt");  // schema names ignore case
}

TEST(DeclareSchema, DiffListsTheDdlOfEachChangeInMigrationOrder) {
  Database db;
  db.exec("create table old_t (id integer primary key)");
  db.exec("create table t (id integer primary key, a text)");
  db.exec(
      "declare schema main {"
      "  table t (id integer primary key, a text, b integer null default 0)"
      "  table child (id integer primary key, p integer references parent(id))"
      "  table parent (id integer primary key)"
      "}");
  EXPECT_EQ(rows(db, "diff schema main"),
            "DROP TABLE IF EXISTS old_t;"
            "create table parent (id integer primary key);"
            "create table child (id integer primary key, p integer references parent(id));"
            "ALTER TABLE t ADD COLUMN b integer null default 0");
  db.exec("insert into t values (1, 'x')");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "select id, a, b from t"), "1|x|0");
  EXPECT_NE(errorOf(db, "select * from old_t"), "");
  EXPECT_EQ(rows(db, "diff schema main"), "");
}

TEST(DeclareSchema, ColumnAttributeAndKeyChangesBecomeAlters) {
  Database db;
  db.exec("create table t (id integer primary key, code integer not null, d text collate nocase)");
  db.exec("declare schema main { table t (id integer, code integer primary key, d date) }");
  EXPECT_EQ(rows(db, "diff schema main"),
            "ALTER TABLE t ALTER COLUMN d SET COLLATE BINARY;"
            "ALTER TABLE t ALTER COLUMN d SET DATA TYPE date;"
            "ALTER TABLE t ALTER PRIMARY KEY (code)");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "select name from table_info('t') where pk > 0"), "code");
  EXPECT_EQ(rows(db, "diff schema main"), "");
}

TEST(DeclareSchema, RenamesFollowTheHintTags) {
  Database db;
  db.exec("create table client (client_id integer primary key, fullname text)");
  db.exec("insert into client values (1, 'Ann')");
  db.exec(
      "declare schema main {"
      "  table customer (client_id integer primary key,"
      "    full_name text with tags (\"quereus.previous_name\" = 'fullname'))"
      "  with tags (\"quereus.previous_name\" = 'client')"
      "}");
  EXPECT_EQ(rows(db, "diff schema main"),
            "ALTER TABLE client RENAME TO customer;ALTER TABLE customer RENAME COLUMN fullname TO full_name");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "select client_id, full_name from customer"), "1|Ann");  // the data followed
  EXPECT_EQ(rows(db, "diff schema main"), "");

  // quereus.id pairs objects whatever the names; rename_policy = 'deny' ignores every hint.
  db.exec("create table widget (id integer primary key) with tags (\"quereus.id\" = 'w1')");
  db.exec("insert into widget values (7)");
  db.exec(
      "declare schema main {"
      "  table customer (client_id integer primary key, full_name text)"
      "  table gadget (id integer primary key) with tags (\"quereus.id\" = 'w1')"
      "}");
  EXPECT_EQ(rows(db, "diff schema main"), "ALTER TABLE widget RENAME TO gadget");
  db.exec("apply schema main options (rename_policy = 'deny')");
  EXPECT_EQ(rows(db, "select count(*) from gadget"), "0");  // dropped and recreated, not renamed
}

// A paired table's user-named CHECK / UNIQUE / FOREIGN KEY constraints have a lifecycle of their
// own (sql-alter.md, ADD / DROP / RENAME CONSTRAINT): a declared one the table lacks is added,
// a live one the declaration lacks is dropped, a hinted one is renamed. Unnamed ones and the
// engine-minted `_…` names never churn.
TEST(DeclareSchema, NamedConstraintsAreAddedDroppedAndRenamed) {
  Database db;
  db.exec("create table t (id integer primary key, a integer, b text, constraint old_ck check (a > 0), check (a < 99))");
  db.exec("insert into t values (1, 5, 'x'), (2, 6, 'y')");
  db.exec(
      "declare schema main {"
      "  table t (id integer primary key, a integer constraint a_pos check (a >= 0), b text,"
      "    constraint ub unique (b), check (a < 99))"
      "}");
  EXPECT_EQ(rows(db, "diff schema main"),
            "ALTER TABLE t DROP CONSTRAINT old_ck;"
            "ALTER TABLE t ADD constraint ub unique (b);"
            "ALTER TABLE t ADD constraint a_pos check (a >= 0)");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "select name from check_constraint_info('t') order by name"), "null;a_pos");
  EXPECT_EQ(rows(db, "select name from unique_constraint_info('t')"), "ub");
  EXPECT_EQ(rows(db, "diff schema main"), "");
  EXPECT_NE(errorOf(db, "insert into t values (3, 1, 'x')"), "");  // the added UNIQUE enforces

  // A previous-name hint renames instead of dropping and adding.
  db.exec(
      "declare schema main {"
      "  table t (id integer primary key, a integer, b text,"
      "    constraint b_unique unique (b) with tags (\"quereus.previous_name\" = 'ub'), check (a < 99))"
      "}");
  EXPECT_EQ(rows(db, "diff schema main"), "ALTER TABLE t RENAME CONSTRAINT ub TO b_unique;ALTER TABLE t DROP CONSTRAINT a_pos");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "select name from unique_constraint_info('t')"), "b_unique");
  EXPECT_EQ(rows(db, "diff schema main"), "");
}

// The migration reaches ADD CONSTRAINT's guards: a UNIQUE whose structure would take an index's
// name stops the apply at that statement, the index intact.
TEST(DeclareSchema, AnAddedConstraintMeetsTheAddConstraintGuards) {
  Database db;
  db.exec("create table t (id integer primary key, a text, b text)");
  db.exec("create index foo on t (b)");
  db.exec("declare schema main { table t (id integer primary key, a text, b text, constraint foo unique (a)) index foo on t (b) }");
  EXPECT_EQ(rows(db, "diff schema main"), "ALTER TABLE t ADD constraint foo unique (a)");
  EXPECT_NE(errorOf(db, "apply schema main").find("would collide with existing index 'foo'"), std::string::npos);
  EXPECT_EQ(rows(db, "select count(*) from schema() where type = 'index' and name = 'foo'"), "1");
}

// Tag drift of a paired table, its columns and its named constraints is a whole-set SET TAGS,
// after the structural changes; order and the rename hints are not drift.
TEST(DeclareSchema, TagDriftBecomesSetTags) {
  Database db;
  db.exec("create table t (id integer primary key, a integer with tags (k = 1), constraint ck check (a > 0)) with tags (x = 1, y = 2)");
  db.exec(
      "declare schema main {"
      "  table t (id integer primary key, a integer with tags (k = 2),"
      "    constraint ck check (a > 0) with tags (c = 'v')) with tags (y = 2, x = 1, \"quereus.id\" = 't1')"
      "}");
  EXPECT_EQ(rows(db, "diff schema main"),
            "ALTER TABLE t ALTER COLUMN a SET TAGS (k = 2);"
            "ALTER TABLE t ALTER CONSTRAINT ck SET TAGS (c = 'v')");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "select tags from table_info('t') where name = 'a'"), "{\"k\":2}");
  EXPECT_EQ(rows(db, "select tags from check_constraint_info('t')"), "{\"c\":\"v\"}");
  EXPECT_EQ(rows(db, "diff schema main"), "");
  db.exec("declare schema main { table t (id integer primary key, a integer with tags (k = 2), constraint ck check (a > 0) with tags (c = 'v')) }");
  EXPECT_EQ(rows(db, "diff schema main"), "ALTER TABLE t SET TAGS ()");
}

// A declared view body carrying the alias a table rename pins (`from t2 as t`, the rename of t
// to t2 keeping `t.x` bound while another source is aliased t2) is the live body under the
// rename, not an edit: the diff is the rename alone, and re-diffs clean after the apply.
TEST(DeclareSchema, ARenamePinAliasIsNoViewEdit) {
  Database db;
  db.exec("create table t (id integer primary key, x integer)");
  db.exec("create table u (id integer primary key, x integer)");
  db.exec("insert into t values (1, 10)");
  db.exec("insert into u values (1, 77)");
  db.exec("create view v as select t.x as a, t2.x as b from t join u as t2 on t.id = t2.id");
  db.exec(
      "declare schema main {"
      "  table t2 (id integer primary key, x integer) with tags (\"quereus.previous_name\" = 't')"
      "  table u (id integer primary key, x integer)"
      "  view v as select t.x as a, t2.x as b from t2 as t inner join u as t2 on t.id = t2.id"
      "}");
  EXPECT_EQ(rows(db, "diff schema main"), "ALTER TABLE t RENAME TO t2");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "diff schema main"), "");
  EXPECT_EQ(rows(db, "select a, b from v"), "10|77");
  // An alias that is no pin (the live source has another one) is a body edit.
  db.exec(
      "declare schema main {"
      "  table t2 (id integer primary key, x integer)"
      "  table u (id integer primary key, x integer)"
      "  view v as select t.x as a, t.x as b from t2 as t"
      "}");
  EXPECT_EQ(rows(db, "diff schema main"), "DROP VIEW IF EXISTS v;create view v as select t.x as a, t.x as b from t2 as t");
}

TEST(DeclareSchema, RequireHintRefusesAnUnhintedReplacement) {
  Database db;
  db.exec("create table old_name (id integer primary key)");
  db.exec("declare schema main { table new_name (id integer primary key) }");
  EXPECT_NE(errorOf(db, "apply schema main options (rename_policy = 'require-hint')").find("require-hint"),
            std::string::npos);
  EXPECT_EQ(rows(db, "select name from schema() where type = 'table'"), "old_name");
}

TEST(DeclareSchema, SeedsInsertOnceAndLeaveExistingRowsAlone) {
  Database db;
  db.exec(
      "declare schema cfg {"
      "  table opt (k text primary key, v text)"
      "  seed opt (('a', '1'), ('b', '2'))"
      "}");
  db.exec("apply schema cfg");
  EXPECT_EQ(rows(db, "select count(*) from cfg.opt"), "0");  // seeds only run `with seed`
  db.exec("apply schema cfg with seed");
  db.exec("update cfg.opt set v = 'edited' where k = 'b'");
  db.exec("insert into cfg.opt values ('c', '3')");
  db.exec("apply schema cfg with seed");
  EXPECT_EQ(rows(db, "select k, v from cfg.opt order by k"), "a|1;b|edited;c|3");
}

TEST(DeclareSchema, EachNameIsDeclaredOnce) {
  Database db;
  EXPECT_EQ(errorOf(db, "declare schema main { table t1 (a integer) table t1 (b integer) }"),
            "Table 't1' is declared more than once in schema 'main'");
  EXPECT_EQ(errorOf(db, "declare schema main { table dual (a integer) view dual as select 1 as x }"),
            "'dual' is declared as both a table and a view");
  EXPECT_EQ(errorOf(db, "declare schema main { table t (a integer) index i on t (a) index i on t (a) }"),
            "Index 'i' is declared more than once in schema 'main'");
  EXPECT_NE(errorOf(db, "diff schema nowhere"), "");
}

TEST(DeclareSchema, AFailingApplyChangesNothing) {
  Database db;
  db.exec("create table keep (id integer primary key)");
  db.exec(
      "declare schema s {"
      "  table a (id integer primary key)"
      "  table b (id integer primary key, n integer check (n < 10))"
      "  seed b ((1, 50))"
      "}");
  EXPECT_NE(errorOf(db, "apply schema s with seed").find("CHECK constraint failed"), std::string::npos);
  EXPECT_NE(errorOf(db, "select * from s.a"), "");  // neither the tables nor the schema exist
  EXPECT_NE(errorOf(db, "create table s.x (id integer primary key)"), "");

  db.exec("declare schema main { table other (id integer primary key) index bad on other (missing) }");
  EXPECT_NE(errorOf(db, "apply schema main"), "");
  EXPECT_EQ(rows(db, "select name from schema() where type = 'table'"), "keep");  // the drop was undone too
}

TEST(DeclareSchema, ForeignKeysWithConflictingDeclaredCollationsAreRefused) {
  Database db;
  db.exec("create table p (k text collate rtrim primary key)");
  EXPECT_NE(errorOf(db, "create table c (id integer primary key, r text collate nocase references p(k))")
                .find("conflicting collations"),
            std::string::npos);
  db.exec("create table c (id integer primary key)");
  EXPECT_NE(errorOf(db, "alter table c add column r text null collate nocase references p(k)").find("conflicting collations"),
            std::string::npos);
  EXPECT_EQ(errorOf(db, "alter table c add column r2 text null collate rtrim references p(k)"), "");  // same collation
  db.exec("declare schema s { table p (k text collate rtrim primary key) table c (r text collate nocase references p(k)) }");
  EXPECT_NE(errorOf(db, "apply schema s").find("conflicting collations"), std::string::npos);
}

TEST(DeclareSchema, ADeclarationRollsBackWithItsTransaction) {
  Database db;
  db.exec("declare schema main { table t (id integer primary key) }");
  db.exec("begin; declare schema main { table u (id integer primary key) }; rollback;");
  EXPECT_EQ(rows(db, "diff schema main"), "create table t (id integer primary key)");
}

TEST(DeclareSchema, ExplainHashesTheDeclaration) {
  Database db;
  db.exec("declare schema s { table t (id integer primary key) }");
  std::string first = rows(db, "explain schema s");
  EXPECT_EQ(first.rfind("hash:", 0), 0u);
  db.exec("declare schema s { table t (id integer primary key) }");
  EXPECT_EQ(rows(db, "explain schema s"), first);
  db.exec("declare schema s { table t (id integer primary key, v text) }");
  EXPECT_NE(rows(db, "explain schema s"), first);
}

// The printed DDL re-parses to a statement that prints the same: apply runs what diff shows.
TEST(DdlPrinter, CreateStatementsRoundTrip) {
  const char* statements[] = {
      "create table t (id INTEGER primary key on conflict replace, n text not null collate nocase default 'x', "
      "g integer generated always as (id * 2) stored, constraint c1 check on insert, update (n <> ''), "
      "constraint fk foreign key (n) references p(k) on delete cascade deferrable initially deferred, "
      "unique (n, id desc)) using memory with tags (owner = 'me')",
      "create unique index s.ix on s.t (a collate nocase, b desc) where a > 0",
      "create view v (a, b) as select x, y from t where x > 1 with defaults (z = 3)",
      "create materialized view m as select id from t",
      "create assertion a1 check (not exists (select 1 from t where v < 0))",
  };
  for (const char* sql : statements) {
    auto first = parseSql(sql);
    auto print = [](const ast::Statement& s) {
      switch (s.kind) {
        case ast::StatementKind::kCreateTable: return printCreateTable(*s.createTable, "", "");
        case ast::StatementKind::kCreateIndex: return printCreateIndex(*s.createIndex, "s.");
        case ast::StatementKind::kCreateView: return printCreateView(*s.createView, "");
        default: return printCreateAssertion(*s.createAssertion, "");
      }
    };
    std::string printed = print(*first.at(0));
    auto again = parseSql(printed);
    EXPECT_EQ(print(*again.at(0)), printed) << sql;
  }
}

}  // namespace
}  // namespace optic
