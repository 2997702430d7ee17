// Commits under a sink that stores later (persistence.h storesLater, engine.h
// acknowledgeStored / revertUnstored): the IndexedDB bridge's contract, exercised natively.
// A commit keeps its undo until its batch is acknowledged; when batches are lost, memory goes
// back to exactly what storage holds (rows, DDL, renames) and the database stays usable.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/api/database.h"
#include "core/api/engine.h"
#include "core/api/live_query.h"
#include "core/storage/kv_store.h"
#include "core/storage/persistence.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;

// Queues batches; store() applies the queued ones to `storage`, as an IndexedDB transaction would.
class LaterSink final : public PersistenceSink {
 public:
  void write(const WriteBatch& batch) override { queued.push_back(batch); }
  bool storesLater() const override { return true; }
  void store() {
    for (const WriteBatch& b : queued) applyBatch(b, *storage);
    queued.clear();
  }
  std::shared_ptr<KVStore> storage = newMemoryKVStore();
  std::vector<WriteBatch> queued;
};

class StoreUnacknowledged : public ::testing::Test {
 protected:
  std::unique_ptr<Database> open() {
    sink = std::make_shared<LaterSink>();
    sink->storage = storage;
    DatabaseOptions o;
    o.sink = sink;
    o.contents = storage;
    return std::make_unique<Database>(o);
  }
  void storeAll(Database& db) {
    sink->store();
    db.engine().acknowledgeStored(db.engine().lastBatch());
  }
  std::shared_ptr<KVStore> storage = newMemoryKVStore();
  std::shared_ptr<LaterSink> sink;
};

TEST_F(StoreUnacknowledged, LostBatchesRevertMemoryToWhatStorageHolds) {
  auto db = open();
  db->exec("create table t (id integer primary key, v text); insert into t values (1, 'a')");
  db->exec("create view tv as select id, v from t");
  storeAll(*db);
  const std::string stored = rows(*db, "select id, v from t order by id");

  // Three commits whose batches never reach storage: rows, a new table, an ALTER with a rename.
  db->exec("insert into t values (2, 'b'); update t set v = 'z' where id = 1");
  db->exec("create table u (k integer primary key); insert into u values (7)");
  db->exec("alter table t rename column v to w");
  EXPECT_EQ(db->engine().lastBatch(), 8u);  // one batch per autocommit statement that wrote a store table or a view
  db->engine().revertUnstored();
  sink->queued.clear();

  EXPECT_EQ(rows(*db, "select id, v from t order by id"), stored);
  EXPECT_EQ(rows(*db, "select name from table_info('t') order by cid"), "id;v");
  EXPECT_EQ(rows(*db, "select id, v from tv"), "1|a");  // the view body reverted with the table
  EXPECT_NE(testing_sql::errorOf(*db, "select * from u"), "");

  // Still usable, and what it commits now is stored and reopens.
  db->exec("insert into t values (3, 'c')");
  storeAll(*db);
  db.reset();
  auto again = open();
  EXPECT_EQ(rows(*again, "select id, v from t order by id"), "1|a;3|c");
  EXPECT_EQ(rows(*again, "select count(*) from schema() where name = 'u'"), "0");
}

TEST_F(StoreUnacknowledged, AcknowledgedCommitsSurviveALaterLoss) {
  auto db = open();
  db->exec("create table t (id integer primary key)");
  db->exec("insert into t values (1)");
  sink->store();
  db->engine().acknowledgeStored(db->engine().lastBatch());
  db->exec("insert into t values (2)");
  db->exec("begin; insert into t values (3)");  // an open transaction is rolled back too
  db->engine().revertUnstored();
  EXPECT_EQ(rows(*db, "select id from t order by id"), "1");
  EXPECT_TRUE(db->engine().inExplicitTransaction() == false);
  db->exec("insert into t values (4)");
  EXPECT_EQ(rows(*db, "select id from t order by id"), "1;4");
}

// Database::revertUnstored is what the bridge calls: memory reverts, and a live query whose
// result showed the lost commit gets the stored result back (the table changed without a commit).
TEST_F(StoreUnacknowledged, RevertUnstoredRerunsLiveQueries) {
  auto db = open();
  db->exec("create table t (id integer primary key)");
  db->exec("insert into t values (1)");
  sink->store();
  db->acknowledgeStored(db->engine().lastBatch());
  std::vector<size_t> counts;
  db->live("select id from t", {}, [&](const LiveResult& r) { counts.push_back(r.rows.size()); });
  db->exec("insert into t values (2)");
  ASSERT_EQ(counts, (std::vector<size_t>{1, 2}));
  db->revertUnstored();
  EXPECT_EQ(counts, (std::vector<size_t>{1, 2, 1}));
  EXPECT_EQ(rows(*db, "select id from t order by id"), "1");
  // Batches go on being numbered after the loss; acknowledging the next keeps it.
  db->exec("insert into t values (3)");
  sink->queued.erase(sink->queued.begin(), sink->queued.end() - 1);  // the lost batch never reaches storage
  sink->store();
  db->acknowledgeStored(db->engine().lastBatch());
  db->revertUnstored();
  EXPECT_EQ(rows(*db, "select id from t order by id"), "1;3");
}

}  // namespace
}  // namespace optic
