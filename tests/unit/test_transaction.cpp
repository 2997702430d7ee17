// Transaction tests (core/storage/transaction.h): the checks a transaction owes at COMMIT move
// with its marks like its writes do, so a savepoint rollback or a failed statement takes its
// deferred checks with it, and a commit or abandon leaves none behind.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "core/storage/transaction.h"
#include "sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

DeferredCheck checkNamed(const std::string& constraint) {
  DeferredCheck d;
  d.schema = "main";
  d.table = "t";
  d.constraint = constraint;
  return d;
}

TEST(Transaction, RollbackToAMarkDropsTheDeferredChecksRecordedAfterIt) {
  Transaction txn;
  txn.recordDeferred(checkNamed("a"));
  TransactionMark m = txn.mark();
  EXPECT_EQ(m.deferred, 1u);
  txn.recordDeferred(checkNamed("b"));
  txn.recordDeferred(checkNamed("c"));
  ASSERT_EQ(txn.deferred().size(), 3u);
  txn.rollbackTo(m);
  ASSERT_EQ(txn.deferred().size(), 1u);
  EXPECT_EQ(txn.deferred()[0].constraint, "a");
  txn.rollbackAll();
  EXPECT_TRUE(txn.deferred().empty());
}

TEST(Transaction, CommitAndAbandonLeaveNoDeferredCheck) {
  Transaction txn;
  txn.recordDeferred(checkNamed("a"));
  txn.clear();
  EXPECT_TRUE(txn.deferred().empty());
  txn.recordDeferred(checkNamed("b"));
  txn.abandon();
  EXPECT_TRUE(txn.deferred().empty());
  txn.recordDeferred(checkNamed("c"));
  Transaction::UndoLog undo = txn.takeUndo();
  EXPECT_TRUE(txn.deferred().empty());
}

class DeferredChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table p (id integer primary key);"
            "create table c (id integer primary key, pid integer null references p(id));"
            "insert into p values (1)");
  }
  Database db;
};

TEST_F(DeferredChecks, ASavepointRollbackTakesTheOrphanChecksOfItsRowsAlong) {
  db.exec("begin; insert into c values (1, 1); savepoint s; insert into c values (2, 99); rollback to s");
  EXPECT_EQ(errorOf(db, "commit"), "");
  EXPECT_EQ(rows(db, "select id, pid from c order by id"), "1|1");
}

TEST_F(DeferredChecks, AnOrphanKeptPastASavepointStillFailsTheCommit) {
  db.exec("begin; savepoint s; insert into c values (2, 99); release s");
  EXPECT_NE(errorOf(db, "commit"), "");
  EXPECT_EQ(rows(db, "select count(*) from c"), "0");  // the whole transaction rolled back
}

TEST_F(DeferredChecks, AFailedStatementTakesItsOrphanChecksAlong) {
  db.exec("begin; insert into c values (1, 1)");
  // The second row collides on the key: the statement fails whole, its first row's check with it.
  EXPECT_NE(errorOf(db, "insert into c values (2, 99), (1, 1)"), "");
  EXPECT_EQ(errorOf(db, "commit"), "");
  EXPECT_EQ(rows(db, "select id, pid from c order by id"), "1|1");
}

TEST_F(DeferredChecks, ARolledBackTransactionOwesNothingToTheNext) {
  db.exec("begin; insert into c values (2, 99); rollback");
  db.exec("begin; insert into c values (3, 1)");
  EXPECT_EQ(errorOf(db, "commit"), "");
  EXPECT_EQ(rows(db, "select id from c order by id"), "3");
}

}  // namespace
}  // namespace optic
