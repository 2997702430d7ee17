// A lens's logical keys that no basis structure answers (lens.no-backing-index) are checked at
// COMMIT (core/planner/views/lens_boundary.h records the debt, core/maintenance/commit_checks.h
// pays it): a duplicate fixed before COMMIT commits, one left fails COMMIT with the reference's
// `CHECK constraint failed: lens:…` and undoes the transaction, an autocommit statement is its own
// commit, a rolled-back write drops its debt, and the rule holds across close and reopen of a
// file-backed database.
#include <gtest/gtest.h>

#include "tests/unit/sql_test_util.h"
#include "tests/unit/store_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

// Basis b.item and a logical app.item whose UNIQUE (name) only a commit-time scan enforces.
void deploy(Database& db, const std::string& unique = "unique (name)") {
  db.exec("declare schema b { table item (id integer primary key, name text null, qty integer null) }");
  db.exec("apply schema b");
  db.exec("insert into b.item values (1, 'bolt', 3), (2, 'nut', null)");
  db.exec("declare logical schema app { table item (id integer primary key, name text null, " + unique + ") }");
  db.exec("apply schema app");
}

// The error COMMIT (or an autocommit statement) raises, as "code|subject|message".
std::string failureOf(Database& db, const std::string& sql) {
  try {
    db.exec(sql);
  } catch (const Error& e) {
    return std::string(e.code() == ErrorCode::kConstraint ? "constraint" : "other") + "|" + e.subject() + "|" + e.what();
  }
  return "";
}

TEST(LensCommitKeys, TheKeyIsScannedAtCommitNotAtStatementEnd) {
  Database db;
  deploy(db);
  EXPECT_EQ(rows(db, "select code, \"constraint\" from quereus_lens_advisories('app')"), "lens.no-backing-index|unique");
  db.exec("begin");
  db.exec("insert into app.item values (7, 'bolt')");  // a duplicate for now
  EXPECT_EQ(rows(db, "select count(*) from app.item where name = 'bolt'"), "2");
  db.exec("update app.item set name = 'pin' where id = 7");
  db.exec("commit");
  EXPECT_EQ(rows(db, "select id, name from app.item order by id"), "1|bolt;2|nut;7|pin");
}

TEST(LensCommitKeys, ADuplicateLeftAtCommitFailsItAndUndoesTheTransaction) {
  Database db;
  deploy(db);
  db.exec("begin");
  db.exec("insert into app.item values (7, 'washer')");
  db.exec("insert into app.item values (8, 'bolt')");
  db.exec("update b.item set qty = 9 where id = 1");  // a direct basis write of the same transaction
  EXPECT_EQ(failureOf(db, "commit"), "constraint|lens:unique|CHECK constraint failed: lens:unique");
  EXPECT_EQ(rows(db, "select id, name, qty from b.item order by id"), "1|bolt|3;2|nut|null");
  db.exec("begin");  // the failed COMMIT ended the transaction
  db.exec("rollback");
}

TEST(LensCommitKeys, AnAutocommitStatementIsItsOwnCommit) {
  Database db;
  deploy(db);
  EXPECT_EQ(failureOf(db, "insert into app.item values (7, 'bolt')"),
            "constraint|lens:unique|CHECK constraint failed: lens:unique");
  EXPECT_EQ(failureOf(db, "update app.item set name = 'bolt' where id = 2"),
            "constraint|lens:unique|CHECK constraint failed: lens:unique");
  EXPECT_EQ(rows(db, "select id, name from app.item order by id"), "1|bolt;2|nut");
  db.exec("insert into app.item values (7, 'pin'), (8, null), (9, null)");  // NULLs are distinct
  EXPECT_EQ(rows(db, "select count(*) from app.item"), "5");
}

TEST(LensCommitKeys, WhatAnOrFailStatementKeepsStillOwesTheCheck) {
  Database db;
  deploy(db);
  EXPECT_NE(errorOf(db, "insert or fail into app.item values (7, 'bolt'), (1, 'other')"), "");  // keeps row 7
  EXPECT_EQ(rows(db, "select id, name from app.item order by id"), "1|bolt;2|nut");
  EXPECT_NE(errorOf(db, "insert or fail into app.item values (7, 'pin'), (1, 'other')"), "");
  EXPECT_EQ(rows(db, "select id, name from app.item order by id"), "1|bolt;2|nut;7|pin");
}

TEST(LensCommitKeys, TwoStatementsColliding) {
  Database db;
  deploy(db);
  db.exec("insert into app.item values (7, 'gear')");
  EXPECT_NE(errorOf(db, "insert into app.item values (8, 'gear')"), "");
  db.exec("begin");
  db.exec("insert into app.item values (8, 'cog')");
  db.exec("update app.item set name = 'cog' where id = 7");
  EXPECT_EQ(failureOf(db, "commit"), "constraint|lens:unique|CHECK constraint failed: lens:unique");
  EXPECT_EQ(rows(db, "select id, name from app.item order by id"), "1|bolt;2|nut;7|gear");
}

TEST(LensCommitKeys, TheFailureNamesTheConstraint) {
  Database db;
  deploy(db, "constraint uq_name unique (name)");
  EXPECT_EQ(failureOf(db, "insert into app.item values (7, 'nut')"),
            "constraint|lens:unique:uq_name|CHECK constraint failed: lens:unique:uq_name");
}

TEST(LensCommitKeys, ALogicalPrimaryKeyNarrowerThanTheBasisKeyReportsLensPk) {
  Database db;
  db.exec("declare schema b { table item (code integer, name text, primary key (code, name)) }");
  db.exec("apply schema b");
  db.exec("declare logical schema app { table item (code integer primary key, name text) }");
  db.exec("apply schema app");
  EXPECT_EQ(rows(db, "select code, \"constraint\" from quereus_lens_advisories('app')"), "lens.no-backing-index|primary key");
  db.exec("insert into app.item values (1, 'a')");
  EXPECT_EQ(failureOf(db, "insert into app.item values (1, 'b')"), "constraint|lens:pk|CHECK constraint failed: lens:pk");
  db.exec("begin");
  db.exec("insert into app.item values (2, 'c')");
  db.exec("insert into app.item values (1, 'd')");
  db.exec("delete from app.item where name = 'd'");  // a delete removes the duplicate before COMMIT
  db.exec("commit");
  EXPECT_EQ(rows(db, "select code, name from app.item order by code"), "1|a;2|c");
}

// Only a rolled-back write's debt shows it is dropped: a direct basis write (basis constraints
// only) leaves a logical duplicate that a lens write still owed at COMMIT would trip on.
TEST(LensCommitKeys, RollingBackTheWriteDropsItsDebt) {
  Database db;
  deploy(db);
  db.exec("begin");
  db.exec("insert into b.item values (7, 'bolt', 1)");
  db.exec("savepoint s");
  db.exec("insert into app.item values (8, 'pin')");
  db.exec("rollback to s");
  db.exec("release s");
  EXPECT_NE(errorOf(db, "insert into app.item values (9, 'x'), (9, 'y')"), "");  // a failed statement: no debt
  db.exec("commit");
  EXPECT_EQ(rows(db, "select id from b.item order by id"), "1;2;7");

  db.exec("begin");
  db.exec("insert into app.item values (8, 'pin')");  // owed, and the basis still holds the duplicate
  EXPECT_EQ(failureOf(db, "commit"), "constraint|lens:unique|CHECK constraint failed: lens:unique");
  EXPECT_EQ(rows(db, "select id from b.item order by id"), "1;2;7");
}

TEST(LensCommitKeys, HoldsAcrossCloseAndReopenOfAFileDatabase) {
  testing_sql::TempDatabaseFile file;
  {
    auto db = file.open();
    deploy(*db);
  }
  {
    auto db = file.open();
    for (const std::string& e : db->rehydration().errors) ADD_FAILURE() << "rehydration: " << e;
    db->exec("begin");
    db->exec("insert into app.item values (7, 'bolt')");
    db->exec("update app.item set name = 'pin' where id = 7");
    db->exec("commit");
    db->exec("begin");
    db->exec("insert into app.item values (8, 'nut')");
    EXPECT_EQ(failureOf(*db, "commit"), "constraint|lens:unique|CHECK constraint failed: lens:unique");
    EXPECT_NE(errorOf(*db, "insert into app.item values (8, 'nut')"), "");
  }
  auto db = file.open();
  EXPECT_EQ(rows(*db, "select id, name from app.item order by id"), "1|bolt;2|nut;7|pin");
  EXPECT_EQ(failureOf(*db, "insert into app.item values (9, 'pin')"),
            "constraint|lens:unique|CHECK constraint failed: lens:unique");
}

}  // namespace
}  // namespace optic
