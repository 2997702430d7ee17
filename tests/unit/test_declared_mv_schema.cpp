// Declared materialized-view schemas (core/ddl/declared_shape.h, core/maintenance/
// derived_row_contract.h): `create materialized view m (c type [not null] [collate …], …,
// primary key (…), unique (…)) as …`. One group per rule: the declared names and types are the
// schema and the body converts to them as INSERT does (a conversion that can fail is refused at
// create, naming the column); a declared NOT NULL is checked on every derived row and a write
// that derives a NULL fails whole; declared keys must be provable at create, and a key a later
// analysis no longer proves is recorded, not fatal, and still enforced; nothing inferred is
// frozen into the stored definition; `create or replace` inherits or replaces the declared
// schema; the paste-ready definitions and the introspection of declared vs inferred. Then a
// randomized differential test of the NOT NULL rule (seed printed, replay with
// OPTIC_DECLARED_MV_SEED) and the file store across reopen, with a key rule weakened.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/api/database.h"
#include "core/common/error.h"
#include "core/parser/ddl_printer.h"
#include "core/parser/parser.h"
#include "core/planner/mv_plan.h"
#include "tests/unit/sql_test_util.h"
#include "tests/unit/store_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;
using testing_sql::TempDatabaseFile;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void orders(Database& db) {
  db.exec("create table orders (id integer primary key, customer integer not null, region text null, amount integer null)");
  db.exec("insert into orders values (1, 10, 'north', 5), (2, 10, 'north', 7), (3, 20, 'south', 1)");
}

TEST(DeclaredMvSchemaParse, ColumnDefinitionsOrANameList) {
  auto parsed = parseSql("create or replace materialized view m (id integer not null, v text null collate nocase, "
                         "primary key (id), unique (v)) as select id, v from t");
  const ast::CreateView& cv = *parsed.at(0)->createView;
  ASSERT_TRUE(cv.declared);
  EXPECT_TRUE(cv.orReplace);
  EXPECT_EQ(cv.declared->columns.size(), 2u);
  EXPECT_EQ(cv.declared->constraints.size(), 2u);
  EXPECT_EQ(cv.columns, (std::vector<std::string>{"id", "v"}));
  std::string printed = printCreateView(cv, "");
  EXPECT_EQ(printCreateView(*parseSql(printed).at(0)->createView, ""), printed);  // re-parses to itself
  // Bare names stay a rename list; `(x)` alone too.
  auto names = parseSql("create materialized view m (a, b) as select id, v from t");
  EXPECT_FALSE(names.at(0)->createView->declared);
  EXPECT_EQ(names.at(0)->createView->columns.size(), 2u);
  EXPECT_FALSE(parseSql("create materialized view m (a) as select id from t").at(0)->createView->declared);
}

TEST(DeclaredMvSchema, DeclaredColumnsAreTheSchema) {
  Database db;
  orders(db);
  db.exec("create materialized view totals (customer integer not null, label text not null, total numeric not null, "
          "n real not null, primary key (customer)) "
          "as select customer, customer, sum(amount), count(*) from orders group by customer");
  EXPECT_EQ(rows(db, "select name, type, notnull from table_info('totals') order by cid"),
            "customer|INTEGER|1;label|TEXT|1;total|NUMERIC|1;n|REAL|1");
  // The body's INTEGER outputs are stored converted to the declared types, as INSERT converts.
  EXPECT_EQ(rows(db, "select customer, label, typeof(label), total from totals order by customer"),
            "10|10|text|12;20|20|text|1");
  db.exec("create table plain (n real)");
  db.exec("insert into plain values (2)");
  EXPECT_EQ(rows(db, "select typeof(n) from totals where customer = 10"), rows(db, "select typeof(n) from plain"));
  db.exec("insert into orders values (4, 20, 'south', 2)");
  EXPECT_EQ(rows(db, "select total, n, typeof(label) from totals where customer = 20"), "3|2|text");
}

TEST(DeclaredMvSchema, ConversionThatCanFailNeedsACastInTheBody) {
  Database db;
  orders(db);
  std::string e = errorOf(db, "create materialized view m (id integer not null, region integer null, primary key (id)) "
                              "as select id, region from orders");
  EXPECT_TRUE(contains(e, "body derives type TEXT for column 'region' but the view declares INTEGER")) << e;
  EXPECT_TRUE(contains(e, "cast(")) << e;
  EXPECT_EQ(rows(db, "select count(*) from schema() where name = 'm'"), "0");
  // Written as a cast, the same shape is accepted.
  db.exec("create materialized view m (id integer not null, region integer null, primary key (id)) "
          "as select id, cast(region as integer) from orders");
  EXPECT_EQ(rows(db, "select count(*) from m"), "3");
  // A key column keeps its derived type (the backing is keyed by it).
  e = errorOf(db, "create materialized view k (id real not null, primary key (id)) as select id from orders");
  EXPECT_TRUE(contains(e, "a column of the body's key keeps its derived type")) << e;
  // Arity and a column without a type.
  e = errorOf(db, "create materialized view a (id integer not null, x text null, primary key (id)) as select id from orders");
  EXPECT_TRUE(contains(e, "2 declared columns but body produces 1")) << e;
  e = errorOf(db, "create materialized view a (id, region text, primary key (id)) as select id, region from orders");
  EXPECT_TRUE(contains(e, "declares no type")) << e;
}

TEST(DeclaredMvSchema, NotNullIsCheckedOnEveryDerivedRowAndTheWriteFailsWhole) {
  Database db;
  orders(db);
  db.exec("create materialized view spend (id integer not null, amount integer not null, primary key (id)) "
          "as select id, amount from orders");
  db.exec("create table audit (n integer primary key)");
  try {
    db.exec("insert into orders values (9, 30, 'east', null)");
    ADD_FAILURE() << "a NULL reached a NOT NULL column";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kConstraint);
    EXPECT_TRUE(contains(e.what(), "NOT NULL constraint failed: spend.amount")) << e.what();
    EXPECT_TRUE(contains(e.what(), "materialized view 'main.spend'")) << e.what();
    EXPECT_EQ(e.subject(), "main.spend.amount");
  }
  // Statement atomicity: the source row is not written either.
  EXPECT_EQ(rows(db, "select count(*) from orders where id = 9"), "0");
  EXPECT_EQ(rows(db, "select count(*) from spend"), "3");
  // Inside a transaction only the failing statement rolls back.
  db.exec("begin");
  db.exec("insert into audit values (1)");
  EXPECT_FALSE(errorOf(db, "update orders set amount = null where id = 1").empty());
  db.exec("insert into orders values (10, 30, 'east', 4)");
  db.exec("commit");
  EXPECT_EQ(rows(db, "select amount from orders where id = 1"), "5");
  EXPECT_EQ(rows(db, "select id, amount from spend order by id"), "1|5;2|7;3|1;10|4");
  EXPECT_EQ(rows(db, "select count(*) from audit"), "1");
  // A create whose current rows derive a NULL fails and registers nothing.
  db.exec("create table loose (id integer primary key, v integer null)");
  db.exec("insert into loose values (1, null)");
  EXPECT_TRUE(contains(errorOf(db, "create materialized view lm (id integer not null, v integer not null, primary key (id)) "
                                   "as select id, v from loose"),
                       "NOT NULL constraint failed: lm.v"));
  EXPECT_EQ(rows(db, "select count(*) from schema() where name = 'lm'"), "0");
}

TEST(DeclaredMvSchema, NotNullOnAggregateOutputsAndGroupKeys) {
  Database db;
  db.exec("create table s (id integer primary key, g integer null, v integer null)");
  db.exec("insert into s values (1, 1, 5), (2, 1, 6), (3, 2, 1)");
  db.exec("create materialized view sums (g integer not null, total numeric not null, n integer not null, "
          "primary key (g)) as select g, sum(v), count(*) from s group by g");
  EXPECT_FALSE(errorOf(db, "insert into s values (4, null, 3)").empty());  // a NULL group key
  EXPECT_FALSE(errorOf(db, "insert into s values (4, 3, null)").empty());  // sum of NULLs only
  db.exec("insert into s values (4, 2, null)");                             // sum stays 1
  EXPECT_EQ(rows(db, "select g, total, n from sums order by g"), "1|11|2;2|1|2");
  EXPECT_EQ(rows(db, "select count(*) from s"), "4");
}

TEST(DeclaredMvSchema, DeclaredKeysMustBeProvable) {
  Database db;
  db.exec("create table users (id integer primary key, email text not null unique, name text null)");
  db.exec("insert into users values (1, 'a@x', 'ann'), (2, 'b@x', 'bob')");
  db.exec("create materialized view u (id integer not null, email text not null, name text null, primary key (id), "
          "unique (email)) as select id, email, name from users");
  std::string e = errorOf(db, "create materialized view bad (id integer not null, name text null, primary key (name)) "
                              "as select id, name from users");
  EXPECT_TRUE(contains(e, "declared primary key (\"name\") is not provable from its body")) << e;
  e = errorOf(db, "create materialized view bad (id integer not null, name text null, primary key (id), unique (name)) "
                  "as select id, name from users");
  EXPECT_TRUE(contains(e, "declared unique (\"name\") is not provable")) << e;
  // A superset of a provable key is a key.
  db.exec("create materialized view wide (id integer not null, name text null, primary key (id, name)) "
          "as select id, name from users");
  EXPECT_EQ(rows(db, "select count(*) from wide"), "2");
}

TEST(DeclaredMvSchema, AKeyNoLongerProvenIsDroppedRecordedAndStillEnforced) {
  Database db;
  db.exec("create table users (id integer primary key, email text not null, name text null, constraint uq unique (email))");
  db.exec("insert into users values (1, 'a@x', 'ann'), (2, 'b@x', 'bob')");
  db.exec("create materialized view u (id integer not null, email text not null, primary key (id), unique (email)) "
          "as select id, email from users");
  db.exec("create materialized view byemail (email text not null, name text null, primary key (email)) "
          "as select email, name from users");
  EXPECT_EQ(rows(db, "select unconfirmed_keys from materialized_view_info('u')"), "null");
  db.exec("alter table users drop constraint uq");  // the body no longer proves unique (email)
  EXPECT_EQ(rows(db, "select unconfirmed_keys from materialized_view_info('u')"), "[\"unique (\\\"email\\\")\"]");
  EXPECT_EQ(rows(db, "select unconfirmed_keys from materialized_view_info('byemail')"),
            "[\"primary key (\\\"email\\\")\"]");
  db.exec("insert into users values (3, 'c@x', 'cy')");  // the views keep running
  EXPECT_EQ(rows(db, "select id from u order by id"), "1;2;3");
  EXPECT_EQ(rows(db, "select email from byemail order by email"), "a@x;b@x;c@x");
  // ... and their declared uniqueness is enforced on the derived rows.
  std::string e = errorOf(db, "insert into users values (4, 'a@x', 'dup')");
  EXPECT_TRUE(contains(e, "collides on its declared UNIQUE constraint") ||
              contains(e, "repeat its declared primary key, which its body no longer proves"))
      << e;
  db.exec("drop materialized view byemail");
  e = errorOf(db, "insert into users values (4, 'a@x', 'dup')");
  EXPECT_TRUE(contains(e, "collides on its declared UNIQUE constraint")) << e;
  EXPECT_EQ(rows(db, "select count(*) from users"), "3");
}

TEST(DeclaredMvSchema, StoredDefinitionKeepsTheDeclarationAndNothingInferred) {
  Database db;
  orders(db);
  // `customer` is NOT NULL in the source; the declaration says nullable, and that is what stays.
  db.exec("create materialized view d (id integer not null, customer integer null, primary key (id)) "
          "as select id, customer from orders");
  db.exec("create materialized view i as select id, customer from orders");
  EXPECT_EQ(rows(db, "select sql from schema() where name = 'd'"),
            "create materialized view \"d\" (\"id\" INTEGER not null, \"customer\" INTEGER null, primary key (\"id\")) "
            "using memory() as select id, customer from orders");
  EXPECT_EQ(rows(db, "select notnull from table_info('d') where name = 'customer'"), "0");
  // Without a declaration the view stays in the table form, its attributes inferred.
  EXPECT_TRUE(contains(rows(db, "select sql from schema() where name = 'i'"), "create table \"i\""));
  EXPECT_EQ(rows(db, "select name, declared, derived_type, derived_notnull from materialized_view_columns('d') order by cid"),
            "id|1|INTEGER|1;customer|1|INTEGER|1");
  EXPECT_EQ(rows(db, "select declared from materialized_view_columns('i') where cid = 0"), "0");
}

TEST(DeclaredMvSchema, DefinitionsPrintReadyToPaste) {
  Database db;
  orders(db);
  db.exec("create materialized view i as select customer, count(*) as n from orders group by customer");
  std::string defs = rows(db, "select definitions from materialized_view_info('i')");
  EXPECT_EQ(defs, "\"customer\" INTEGER not null, \"n\" INTEGER not null, primary key (\"customer\")");
  db.exec("create materialized view j (" + defs + ") as select customer, count(*) as n from orders group by customer");
  EXPECT_EQ(rows(db, "select declared, definitions from materialized_view_info('j')"), "1|" + defs);
  EXPECT_EQ(rows(db, "select * from j order by customer"), rows(db, "select * from i order by customer"));
}

// CHECK and REFERENCES in the definitions hold over the derived rows, as a maintained table's
// declared constraints do: a CHECK at row time, a foreign key at COMMIT (a NULL key exempts).
TEST(DeclaredMvSchema, CheckAndReferencesHoldOverTheDerivedRows) {
  Database db;
  db.exec("create table p (k integer primary key)");
  db.exec("insert into p values (1), (2)");
  db.exec("create table s (id integer primary key, k integer null, v integer)");
  db.exec("insert into s values (1, 1, 5), (2, null, 6)");
  db.exec("create materialized view m (id integer not null, k integer null references p(k), "
          "v integer not null constraint pos check (v > 0), primary key (id), check (v < 1000)) "
          "as select id, k, v from s");
  EXPECT_EQ(rows(db, "select id, k, v from m order by id"), "1|1|5;2|null|6");
  EXPECT_EQ(errorOf(db, "insert into s values (3, 1, 0)"),
            "CHECK constraint failed: pos (v > 0) — row derived into maintained table 'main.m' violates its declared constraint");
  EXPECT_TRUE(contains(errorOf(db, "update s set v = 5000 where id = 1"), "(v < 1000) — row derived into maintained table 'main.m'"));
  EXPECT_EQ(errorOf(db, "insert into s values (3, 9, 1)"),
            "FOREIGN KEY constraint failed: _fk_m_k — row derived into maintained table 'main.m' references a missing 'main.p'");
  // Nothing of a failed write stays, the source row included.
  EXPECT_EQ(rows(db, "select count(*) from s"), "2");
  EXPECT_EQ(rows(db, "select id, v from m order by id"), "1|5;2|6");
  // The parent may arrive later in the same transaction: the key is checked at COMMIT.
  db.exec("begin");
  db.exec("insert into s values (3, 9, 1)");
  db.exec("insert into p values (9)");
  db.exec("commit");
  EXPECT_EQ(rows(db, "select id, k from m order by id"), "1|1;2|null;3|9");
  // The definitions print them, ready to paste.
  std::string defs = rows(db, "select definitions from materialized_view_info('m')");
  EXPECT_TRUE(contains(defs, "check (v > 0)") && contains(defs, "check (v < 1000)") && contains(defs, "references \"p\"")) << defs;
  db.exec("create materialized view m2 (" + defs + ") as select id, k, v from s");
  EXPECT_EQ(errorOf(db, "insert into s values (4, 1, -1)").substr(0, 28), "CHECK constraint failed: pos");
}

TEST(DeclaredMvSchema, ACreateOverRowsThatBreakACheckOrAKeyFailsAndRegistersNothing) {
  Database db;
  db.exec("create table p (k integer primary key)");
  db.exec("create table s (id integer primary key, k integer null, v integer)");
  db.exec("insert into s values (1, null, -5)");
  EXPECT_TRUE(contains(errorOf(db, "create materialized view m (id integer not null, k integer null, v integer not null "
                                   "check (v > 0), primary key (id)) as select id, k, v from s"),
                       "CHECK constraint failed"));
  EXPECT_EQ(rows(db, "select count(*) from schema() where name = 'm'"), "0");
  db.exec("update s set v = 5, k = 7");
  EXPECT_TRUE(contains(errorOf(db, "create materialized view m (id integer not null, k integer null references p(k), "
                                   "v integer not null, primary key (id)) as select id, k, v from s"),
                       "FOREIGN KEY constraint failed"));
  EXPECT_EQ(rows(db, "select count(*) from schema() where name = 'm'"), "0");
  // DEFAULT and generated columns stay refused: nothing but the body supplies a derived row.
  EXPECT_TRUE(contains(errorOf(db, "create materialized view d (id integer not null, v integer default 3, primary key (id)) "
                                   "as select id, v from s"),
                       "declares a DEFAULT"));
}

// In a declared schema the definitions are part of the view: a change to them (nullability, a
// key, a CHECK) is diffed as a replacement that takes the new declaration, and the diff converges.
TEST(DeclaredMvSchema, ADeclaredSchemaBlockDiffsTheDefinitions) {
  Database db;
  auto declare = [&](const std::string& mv) {
    db.exec("declare schema main { table t { id integer primary key, v integer not null } " + mv + " }");
  };
  declare("materialized view m (id integer not null, v integer not null, primary key (id)) as select id, v from t");
  db.exec("apply schema main");
  db.exec("insert into t values (1, 2), (2, 3)");
  EXPECT_EQ(rows(db, "diff schema main"), "");
  EXPECT_EQ(rows(db, "select declared, definitions from materialized_view_info('m')"),
            "1|\"id\" INTEGER not null, \"v\" INTEGER not null, primary key (\"id\")");

  declare("materialized view m (id integer not null, v integer null, primary key (id), check (v > 0)) as select id, v from t");
  EXPECT_EQ(rows(db, "diff schema main"),
            "create or replace materialized view m (id integer not null, v integer null, primary key (id), check (v > 0)) "
            "as select id, v from t");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "diff schema main"), "");
  EXPECT_TRUE(contains(rows(db, "select definitions from materialized_view_info('m')"), "\"v\" INTEGER null"));
  EXPECT_EQ(rows(db, "select id, v from m order by id"), "1|2;2|3");
  EXPECT_TRUE(contains(errorOf(db, "insert into t values (3, -1)"), "CHECK constraint failed"));

  // Declared without definitions: the view goes back to an inferred schema (a replacement would
  // inherit the live declaration, so the view is dropped and created).
  declare("materialized view m as select id, v from t");
  EXPECT_EQ(rows(db, "diff schema main"),
            "DROP MATERIALIZED VIEW IF EXISTS m;create materialized view m as select id, v from t");
  db.exec("apply schema main");
  EXPECT_EQ(rows(db, "select declared from materialized_view_info('m')"), "0");
  EXPECT_EQ(rows(db, "diff schema main"), "");
  EXPECT_EQ(rows(db, "select id, v from m order by id"), "1|2;2|3");
}

TEST(DeclaredMvSchema, CreateOrReplaceInheritsOrReplacesTheDeclaredSchema) {
  Database db;
  orders(db);
  db.exec("create materialized view m (id integer not null, amount real not null, primary key (id)) "
          "as select id, amount from orders");
  // No column list: the declared schema is inherited, and the new body must produce it.
  db.exec("create or replace materialized view m as select id, amount * 2 from orders");
  EXPECT_EQ(rows(db, "select type, notnull from table_info('m') where name = 'amount'"), "REAL|1");
  EXPECT_EQ(rows(db, "select amount from m where id = 1"), "10");
  EXPECT_TRUE(contains(errorOf(db, "insert into orders values (7, 1, 'x', null)"), "NOT NULL constraint failed: m.amount"));
  std::string e = errorOf(db, "create or replace materialized view m as select id, region from orders");
  EXPECT_TRUE(contains(e, "body derives type TEXT for column 'amount'")) << e;
  EXPECT_EQ(rows(db, "select amount from m where id = 1"), "10");  // the failed replace changed nothing
  // A column list replaces the schema.
  db.exec("create or replace materialized view m (id integer not null, region text null, primary key (id)) "
          "as select id, region from orders");
  EXPECT_EQ(rows(db, "select name from table_info('m') order by cid"), "id;region");
  // Without a declaration the replacement is inferred again.
  db.exec("create or replace materialized view m (id, amount) as select id, amount from orders");
  EXPECT_EQ(rows(db, "select declared from materialized_view_info('m')"), "0");
  // A free name is created; a plain table is not replaced.
  db.exec("create or replace materialized view fresh as select id from orders");
  EXPECT_TRUE(contains(errorOf(db, "create or replace materialized view orders as select 1 as x from orders"),
                       "is not a materialized view"));
}

TEST(DeclaredMvSchema, TableFormKeepsItsExactContract) {
  Database db;
  orders(db);
  // The same checks, the exact contract: a nullable declaration over a NOT NULL derivation is refused.
  std::string e = errorOf(db, "create table mt (id integer primary key, customer integer null) maintained as "
                              "select id, customer from orders");
  EXPECT_TRUE(contains(e, "nullable")) << e;
  e = errorOf(db, "create table mt (id integer primary key, customer real not null) maintained as "
                  "select id, customer from orders");
  EXPECT_TRUE(contains(e, "body derives type INTEGER for column 'customer' but the table declares REAL")) << e;
}

// ---- randomized: exactly the writes that derive a NULL into a NOT NULL column fail -----------

uint32_t randomSeed() {
  if (const char* fixed = std::getenv("OPTIC_DECLARED_MV_SEED")) return static_cast<uint32_t>(std::strtoul(fixed, nullptr, 10));
  return static_cast<uint32_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

struct Body {
  const char* name;
  const char* columns;
  const char* query;
  const char* nullProbe;  // rows of the body that carry a NULL into a declared NOT NULL column
  const char* stored;     // the body converted to the declared types: what the view must hold
};

const Body kBodies[] = {
    {"p", "id integer not null, v integer not null, t text null, primary key (id)",
     "select id, v, t from src where g is not null", "select count(*) from src where g is not null and v is null",
     "select id, v, t from src where g is not null"},
    {"a", "g integer not null, total numeric not null, n integer not null, primary key (g)",
     "select g, sum(v), count(*) from src group by g",
     "select count(*) from (select g, sum(v) as s from src group by g) where g is null or s is null",
     "select g, sum(v), count(*) from src group by g"},
    {"r", "id integer not null, w real not null, primary key (id)", "select id, v + g from src where t is not null",
     "select count(*) from src where t is not null and (v is null or g is null)",
     "select id, cast(v + g as real) from src where t is not null"},
};

std::string randomValue(std::mt19937& rng) {
  int r = static_cast<int>(rng() % 5);
  return r == 0 ? "null" : std::to_string(static_cast<int>(rng() % 4));
}

std::string randomWrite(std::mt19937& rng) {
  int id = static_cast<int>(rng() % 12);
  switch (rng() % 4) {
    case 0:
    case 1:
      return "insert or replace into src values (" + std::to_string(id) + ", " + randomValue(rng) + ", " +
             randomValue(rng) + ", " + (rng() % 3 == 0 ? "null" : "'t'") + ")";
    case 2:
      return "update src set " + std::string(rng() % 2 ? "v" : "g") + " = " + randomValue(rng) + " where id % 3 = " +
             std::to_string(rng() % 3);
    default:
      return "delete from src where id = " + std::to_string(id);
  }
}

// Whether `sql` fails on `db` (its error text, "" when it succeeds).
std::string outcome(Database& db, const std::string& sql) { return errorOf(db, sql); }

TEST(DeclaredMvSchemaRandom, ExactlyTheWritesThatDeriveANullFail) {
  const uint32_t seed = randomSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with OPTIC_DECLARED_MV_SEED=" + std::to_string(seed) + ")");
  std::mt19937 rng(seed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  const char* kSource = "create table src (id integer primary key, g integer null, v integer null, t text null)";
  int writes = 0, failed = 0;
  for (int round = 0; writes < 400 || std::chrono::steady_clock::now() < deadline; ++round) {
    if (writes > 20000) break;
    Database tested, oracle;  // the oracle holds the source alone and judges each write
    tested.exec(kSource);
    oracle.exec(kSource);
    for (const Body& b : kBodies) {
      tested.exec(std::string("create materialized view ") + b.name + " (" + b.columns + ") as " + b.query);
    }
    for (int i = 0; i < 60; ++i, ++writes) {
      std::string sql = randomWrite(rng);
      oracle.exec("begin");
      std::string oracleError = outcome(oracle, sql);
      bool derivesNull = false;
      for (const Body& b : kBodies) derivesNull = derivesNull || rows(oracle, b.nullProbe) != "0";
      oracle.exec(derivesNull ? "rollback" : "commit");
      std::string error = outcome(tested, sql);
      if (!oracleError.empty()) {
        ASSERT_EQ(error, oracleError) << "round " << round << ": " << sql;
      } else if (derivesNull) {
        ++failed;
        ASSERT_TRUE(contains(error, "NOT NULL constraint failed")) << "round " << round << ": " << sql << " -> " << error;
      } else {
        ASSERT_EQ(error, "") << "round " << round << ": " << sql;
      }
      ASSERT_EQ(rows(tested, "select * from src order by id"), rows(oracle, "select * from src order by id"))
          << "round " << round << ": " << sql;
      for (const Body& b : kBodies) {
        std::string order = std::string(" order by 1");
        ASSERT_EQ(rows(tested, std::string("select * from ") + b.name + order), rows(tested, std::string(b.stored) + order))
            << "round " << round << ", view " << b.name << ": " << sql;
      }
    }
  }
  EXPECT_GT(failed, 0) << "no write derived a NULL: the generator does not exercise the rule";
}

// ---- the file store across reopen -------------------------------------------------------------

TEST(DeclaredMvSchemaStore, DeclaredSchemaSurvivesReopen) {
  TempDatabaseFile file;
  std::string sql;
  {
    auto db = file.open();
    orders(*db);
    db->exec("create materialized view spend (id integer not null, amount text not null, primary key (id)) "
             "as select id, amount from orders");
    sql = rows(*db, "select sql from schema() where name = 'spend'");
    db->close();
  }
  auto db = file.open();
  EXPECT_EQ(rows(*db, "select sql from schema() where name = 'spend'"), sql);
  EXPECT_EQ(rows(*db, "select amount, typeof(amount) from spend where id = 1"), "5|text");
  EXPECT_TRUE(contains(errorOf(*db, "insert into orders values (8, 1, 'x', null)"), "NOT NULL constraint failed: spend.amount"));
  db->exec("insert into orders values (8, 1, 'x', 3)");
  EXPECT_EQ(rows(*db, "select amount, typeof(amount) from spend where id = 8"), "3|text");
  // A replacement inherits the declared schema, and so does the stored definition.
  db->exec("create or replace materialized view spend as select id, amount + 1 from orders");
  db->close();
  db.reset();
  db = file.open();
  EXPECT_EQ(rows(*db, "select sql from schema() where name = 'spend'"),
            "create materialized view \"spend\" (\"id\" INTEGER not null, \"amount\" TEXT not null, primary key (\"id\")) "
            "using store() as select id, amount + 1 from orders");
  EXPECT_EQ(rows(*db, "select amount, typeof(amount) from spend where id = 8"), "4|text");
  EXPECT_TRUE(db->rehydration().errors.empty());
}

TEST(DeclaredMvSchemaStore, CheckAndReferencesSurviveReopen) {
  TempDatabaseFile file;
  std::string sql;
  {
    auto db = file.open();
    db->exec("create table p (k integer primary key)");
    db->exec("create table s (id integer primary key, k integer null, v integer)");
    db->exec("insert into p values (1)");
    db->exec("insert into s values (1, 1, 5)");
    db->exec("create materialized view m (id integer not null, k integer null references p(k), "
             "v integer not null check (v > 0), primary key (id)) as select id, k, v from s");
    sql = rows(*db, "select sql from schema() where name = 'm'");
    db->close();
  }
  auto db = file.open();
  EXPECT_TRUE(db->rehydration().errors.empty());
  EXPECT_EQ(rows(*db, "select sql from schema() where name = 'm'"), sql);
  EXPECT_TRUE(contains(sql, "check (v > 0)") && contains(sql, "references \"p\"")) << sql;
  EXPECT_TRUE(contains(errorOf(*db, "insert into s values (2, 1, -1)"), "CHECK constraint failed"));
  EXPECT_TRUE(contains(errorOf(*db, "insert into s values (2, 8, 1)"), "FOREIGN KEY constraint failed"));
  db->exec("insert into s values (2, 1, 1)");
  EXPECT_EQ(rows(*db, "select id, k, v from m order by id"), "1|1|5;2|1|1");
}

TEST(DeclaredMvSchemaStore, ReopenWithAWeakerKeyRuleDropsTheKeyAndKeepsRunning) {
  TempDatabaseFile file;
  {
    auto db = file.open();
    db->exec("create table users (id integer primary key, email text not null unique, name text null)");
    db->exec("insert into users values (1, 'a@x', 'ann'), (2, 'b@x', 'bob')");
    db->exec("create materialized view u (id integer not null, email text not null, primary key (id), unique (email)) "
             "as select id, email from users");
    // Keyed by the email alone: only the UNIQUE rule proves it.
    db->exec("create materialized view byemail (email text not null, name text null, primary key (email)) "
             "as select email, name from users");
    db->close();
  }
  keyRules().sourceUniqueIndexes = false;  // stands for an engine whose analysis lost the rule
  struct Restore {
    ~Restore() { keyRules().sourceUniqueIndexes = true; }
  } restore;
  auto db = file.open();
  std::vector<std::string> lost = db->rehydration().unconfirmedKeys;
  std::sort(lost.begin(), lost.end());
  std::string report;
  for (const std::string& k : lost) report += k + "; ";
  for (const std::string& e : db->rehydration().errors) report += "error " + e + "; ";
  ASSERT_EQ(lost.size(), 2u) << report;
  EXPECT_EQ(lost[0], "main.byemail: primary key (\"email\")");
  EXPECT_EQ(lost[1], "main.u: unique (\"email\")");
  EXPECT_TRUE(db->rehydration().errors.empty());
  EXPECT_EQ(rows(*db, "select name, unconfirmed_keys from materialized_view_info() order by name"),
            "byemail|[\"primary key (\\\"email\\\")\"];u|[\"unique (\\\"email\\\")\"]");
  // Both views keep running and keep their declared uniqueness.
  db->exec("insert into users values (3, 'c@x', 'cy')");
  EXPECT_EQ(rows(*db, "select id from u order by id"), "1;2;3");
  EXPECT_EQ(rows(*db, "select email, name from byemail order by email"), "a@x|ann;b@x|bob;c@x|cy");
  db->exec("update users set name = 'ANN' where id = 1");
  EXPECT_EQ(rows(*db, "select name from byemail where email = 'a@x'"), "ANN");
  // The declaration itself is unchanged in the store.
  EXPECT_TRUE(contains(rows(*db, "select sql from schema() where name = 'u'"), "unique (\"email\")"));
}

}  // namespace
}  // namespace optic
