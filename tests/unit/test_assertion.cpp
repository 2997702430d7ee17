// Assertions, deferred subquery CHECKs and the committed.* snapshot (core/catalog/assertion.h,
// core/maintenance/commit_checks.h, core/execution/committed_scan.h).
#include <gtest/gtest.h>

#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(Committed, ReadsThePreTransactionRowsUntilCommit) {
  Database db;
  db.exec("create table t (id integer primary key, v integer); insert into t values (1, 10), (2, 20);");
  db.exec("begin; update t set v = 11 where id = 1; delete from t where id = 2; insert into t values (3, 30);");
  EXPECT_EQ(rows(db, "select id, v from committed.t order by id"), "1|10;2|20");
  EXPECT_EQ(rows(db, "select id, v from t order by id"), "1|11;3|30");
  db.exec("savepoint s; update t set v = 12 where id = 1; rollback to s;");
  EXPECT_EQ(rows(db, "select id, v from committed.t order by id"), "1|10;2|20");
  db.exec("commit");
  EXPECT_EQ(rows(db, "select id, v from committed.t order by id"), "1|11;3|30");
}

TEST(Committed, IsReadOnly) {
  Database db;
  db.exec("create table t (id integer primary key)");
  EXPECT_EQ(errorOf(db, "insert into committed.t values (1)"), "Cannot modify committed-state table 'committed.t'");
  EXPECT_EQ(errorOf(db, "delete from committed.t"), "Cannot modify committed-state table 'committed.t'");
}

TEST(Assertion, FailsTheCommitThatViolatesItAndRollsBack) {
  Database db;
  db.exec("create table t (id integer primary key, v integer); insert into t values (1, 5);");
  db.exec("create assertion pos check (not exists (select 1 from t where v < 0))");
  db.exec("begin; insert into t values (2, -1);");  // checked at commit, not per statement
  EXPECT_NE(errorOf(db, "commit").find("Integrity assertion failed: pos"), std::string::npos);
  EXPECT_EQ(rows(db, "select count(*) from t"), "1");
  // Autocommit: the statement itself fails.
  EXPECT_NE(errorOf(db, "update t set v = -5").find("Integrity assertion failed: pos"), std::string::npos);
  EXPECT_EQ(rows(db, "select v from t"), "5");
  db.exec("drop assertion pos; update t set v = -5;");
  EXPECT_EQ(rows(db, "select v from t"), "-5");
}

TEST(Assertion, BodyIsValidatedAtCreateAndNamesAreUnique) {
  Database db;
  EXPECT_NE(errorOf(db, "create assertion a1 check ((select count(*) from nope) = 0)").find("Cannot create assertion 'a1'"),
            std::string::npos);
  db.exec("create table t (id integer primary key); create assertion a1 check ((select count(*) from t) < 3);");
  EXPECT_NE(errorOf(db, "create assertion a1 check (1)"), "");
  EXPECT_NE(errorOf(db, "drop assertion missing"), "");
  EXPECT_EQ(errorOf(db, "drop assertion if exists missing"), "");
  EXPECT_EQ(rows(db, "select name, json_extract(dependent_tables, '$[0].base') from assertion_info()"), "a1|main.t");
  EXPECT_EQ(rows(db, "select schema_name, name, deferrable from assertion_info()"), "main|a1|1");
}

TEST(Assertion, CreateRollsBackWithItsTransaction) {
  Database db;
  db.exec("create table t (id integer primary key);");
  db.exec("begin; create assertion small check ((select count(*) from t) < 1); rollback;");
  db.exec("insert into t values (1), (2)");
  EXPECT_EQ(rows(db, "select count(*) from assertion_info()"), "0");
}

TEST(DeferredCheck, SubqueryCheckRunsAtCommitOnTheFinalRow) {
  Database db;
  db.exec("create table p (id integer primary key);"
          "create table c (id integer primary key, pid integer,"
          " constraint has_parent check (exists (select 1 from p where p.id = new.pid)));");
  db.exec("begin; insert into c values (1, 7); insert into p values (7); commit;");  // parent arrives later
  EXPECT_EQ(rows(db, "select count(*) from c"), "1");
  db.exec("begin; insert into c values (2, 8);");
  EXPECT_NE(errorOf(db, "commit").find("CHECK constraint failed: has_parent"), std::string::npos);
  EXPECT_EQ(rows(db, "select count(*) from c"), "1");
  // A row rewritten later in the transaction is checked as finally written.
  db.exec("begin; insert into c values (3, 9); update c set pid = 7 where id = 3; commit;");
  EXPECT_EQ(rows(db, "select pid from c where id = 3"), "7");
}

TEST(DeferredCheck, TransitionRuleThroughCommitted) {
  Database db;
  db.exec("create table a (id integer primary key, bal integer,"
          " constraint no_decrease check (bal >= coalesce((select bal from committed.a x where x.id = new.id), 0)));"
          "insert into a values (1, 100);");
  db.exec("update a set bal = 150 where id = 1");
  EXPECT_NE(errorOf(db, "update a set bal = 50 where id = 1").find("no_decrease"), std::string::npos);
  EXPECT_EQ(rows(db, "select bal from a"), "150");
}

}  // namespace
}  // namespace optic
