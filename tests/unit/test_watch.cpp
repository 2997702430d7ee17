// Database.watch and the change events (core/api/watch.h, core/maintenance/): firing and
// non-firing, writes through views and FK cascades, one event per transaction, nothing on
// rollback, savepoint layers, disposal on DROP/ALTER, handler errors and re-entrancy.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/api/database.h"
#include "core/storage/write_batch.h"

namespace optic {
namespace {

ChangeScope fullScope(const std::string& table) {
  ChangeScope s;
  TableWatch w;
  w.schema = "main";
  w.table = table;
  s.watches.push_back(w);
  return s;
}

ChangeScope rowsScope(const std::string& table, const std::string& key, const std::vector<int64_t>& values) {
  ChangeScope s;
  TableWatch w;
  w.schema = "main";
  w.table = table;
  w.allColumns = false;
  w.columns = {key};
  w.scope.kind = WatchKind::kRows;
  w.scope.columns = {key};
  for (int64_t v : values) w.scope.values.push_back({ScopeValue::literal(Value::integer(v))});
  s.watches.push_back(w);
  return s;
}

std::string hitsOf(const WatchEvent& e) {
  std::string out;
  for (const MatchedWatch& m : e.matched) {
    out += m.watch.table + ":";
    Json hits = Json::array();
    for (const Row& r : m.hits) {
      Json t = Json::array();
      for (const Value& v : r) t.push_back(scopeValueToJson(v));
      hits.push_back(t);
    }
    out += hits.dump() + ";";
  }
  return out;
}

class WatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table t (id integer primary key, v text null)");
    db.exec("insert into t values (7, 'seven'), (8, 'eight')");
  }
  std::string watchInto(const ChangeScope& s, std::vector<WatchEvent>& out) {
    return db.watch(s, [&out](const WatchEvent& e) { out.push_back(e); });
  }
  Database db;
};

TEST_F(WatchTest, RowWatchFiresOnlyForItsRow) {
  std::vector<WatchEvent> events;
  std::string id = watchInto(rowsScope("t", "id", {7}), events);
  EXPECT_EQ(id.rfind("watch:", 0), 0u);
  db.exec("update t set v = 'x' where id = 7");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "t:[[7]];");
  EXPECT_EQ(events[0].txnId.rfind("txn:", 0), 0u);
  db.exec("update t set v = 'y' where id = 8");
  db.exec("insert into t values (9, 'nine')");
  EXPECT_EQ(events.size(), 1u);
  db.exec("delete from t where id = 7");
  EXPECT_EQ(events.size(), 2u);
  // A key moving onto the watched row hits it too (new image).
  db.exec("update t set id = 7 where id = 9");
  EXPECT_EQ(events.size(), 3u);
}

TEST_F(WatchTest, FullWatchFiresWithEmptyHitsAndUnwatchIsIdempotent) {
  std::vector<WatchEvent> events;
  std::string id = watchInto(fullScope("t"), events);
  db.exec("update t set v = 'b' where id = 8");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "t:[];");
  EXPECT_TRUE(db.unwatch(id));
  EXPECT_FALSE(db.unwatch(id));
  db.exec("insert into t values (10, 'ten')");
  EXPECT_EQ(events.size(), 1u);
}

TEST_F(WatchTest, ReadsAndEmptyMatchesFireNothing) {
  std::vector<WatchEvent> events;
  watchInto(fullScope("t"), events);
  db.exec("select * from t");
  db.exec("update t set v = 'z' where id = 12345");  // touches no row
  EXPECT_TRUE(events.empty());
}

TEST_F(WatchTest, OneEventPerTransactionWithEveryMatchedWatch) {
  db.exec("create table u (x integer primary key)");
  std::vector<WatchEvent> events;
  ChangeScope both = fullScope("t");
  both.watches.push_back(fullScope("u").watches[0]);
  watchInto(both, events);
  db.exec("begin; update t set v = '1' where id = 7; update t set v = '2' where id = 8; insert into u values (1); commit");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "t:[];u:[];");
  // Autocommit statements are separate transactions.
  db.exec("insert into u values (2); insert into u values (3)");
  EXPECT_EQ(events.size(), 3u);
  EXPECT_NE(events[1].txnId, events[2].txnId);
}

TEST_F(WatchTest, RollbackFiresNothingAndSavepointRollbackDropsItsLayer) {
  std::vector<WatchEvent> events;
  std::vector<DataChangeEvent> data;
  watchInto(rowsScope("t", "id", {7, 8}), events);
  db.onDataChange([&](const DataChangeEvent& e) { data.push_back(e); });
  db.exec("begin; update t set v = 'r' where id = 7; rollback");
  EXPECT_TRUE(events.empty());
  EXPECT_TRUE(data.empty());
  db.exec("begin; update t set v = 'a' where id = 8; savepoint s; update t set v = 'b' where id = 7; rollback to s; commit");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "t:[[8]];");
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(toJson(data[0]).dump(),
            R"({"type":"update","moduleName":"memory","schemaName":"main","tableName":"t","key":[8],"oldRow":[8,"eight"],"newRow":[8,"a"],"changedColumns":["v"],"remote":false})");
  // A failing statement inside a transaction retracts its own changes only.
  EXPECT_THROW(db.exec("begin; update t set v = 'c' where id = 7; insert into t values (8, 'dup')"), Error);
  db.exec("commit");
  EXPECT_EQ(events.size(), 2u);
  EXPECT_EQ(hitsOf(events[1]), "t:[[7]];");
}

TEST_F(WatchTest, WritesThroughViewsCount) {
  db.exec("create table men (name text primary key, color text null)");
  db.exec("create view greenmen as select * from men where color = 'green'");
  std::vector<WatchEvent> events;
  watchInto(fullScope("men"), events);
  db.exec("insert into greenmen (name) values ('Bob')");
  EXPECT_EQ(events.size(), 1u);
}

TEST_F(WatchTest, ForeignKeyCascadesCount) {
  db.exec("create table parent (id integer primary key)");
  db.exec("create table child (id integer primary key, pid integer references parent(id) on delete cascade)");
  db.exec("insert into parent values (1), (2); insert into child values (10, 1), (20, 2)");
  std::vector<WatchEvent> events;
  watchInto(rowsScope("child", "id", {10}), events);
  db.exec("delete from parent where id = 2");
  EXPECT_TRUE(events.empty());  // the cascade deleted child 20, not 10
  db.exec("delete from parent where id = 1");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "child:[[10]];");
}

TEST_F(WatchTest, MaterializedViewScopeFiresOnSourceWrites) {
  db.exec("create materialized view mv as select id, v from t");
  auto st = db.prepare("select * from mv");
  std::vector<WatchEvent> events;
  watchInto(st->getChangeScope(), events);
  db.exec("insert into t values (3, 'three')");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "t:[];");
}

TEST_F(WatchTest, MaintenanceWritesOfAMaterializedViewAreInTheChangeLog) {
  db.exec("create materialized view mv as select id, v from t");
  std::vector<WatchEvent> events;
  watchInto(rowsScope("mv", "id", {8}), events);
  db.exec("update t set v = 'x' where id = 7");
  EXPECT_TRUE(events.empty());
  db.exec("update t set v = 'x' where id = 8");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "mv:[[8]];");
}

TEST(WatchStore, FiresAfterTheBatchReachesTheSink) {
  struct Sink : PersistenceSink {
    int batches = 0;
    void write(const WriteBatch&) override { ++batches; }
  };
  auto sink = std::make_shared<Sink>();
  DatabaseOptions o;
  o.sink = sink;
  Database db(o);
  db.exec("create table s (id integer primary key, v text)");
  int seenBatches = -1;
  db.watch(fullScope("s"), [&](const WatchEvent&) { seenBatches = sink->batches; });
  int before = sink->batches;
  db.exec("insert into s values (1, 'a')");
  EXPECT_EQ(seenBatches, before + 1);
}

TEST_F(WatchTest, GroupsWatchReportsTouchedGroupKeys) {
  db.exec("create table orders (id integer primary key, customer integer, total integer)");
  db.exec("insert into orders values (1, 10, 100), (2, 10, 200), (3, 20, 300)");
  ChangeScope s;
  TableWatch w;
  w.schema = "main";
  w.table = "orders";
  w.scope.kind = WatchKind::kGroups;
  w.scope.columns = {"customer"};
  s.watches.push_back(w);
  std::vector<WatchEvent> events;
  watchInto(s, events);
  db.exec("update orders set total = total + 1 where customer = 10");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "orders:[[10]];");
}

TEST_F(WatchTest, StatementScopeEndToEnd) {
  auto st = db.prepare("select v from t where id = ?");
  EXPECT_THROW(db.watch(st->getChangeScope(), [](const WatchEvent&) {}), Error);  // unbound
  std::vector<WatchEvent> events;
  watchInto(st->getChangeScope(std::vector<Value>{Value::integer(8)}), events);
  db.exec("update t set v = 'n' where id = 7");
  EXPECT_TRUE(events.empty());
  db.exec("update t set v = 'n' where id = 8");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "t:[[8]];");
}

TEST_F(WatchTest, ValidationRejectsMissingTablesAndColumns) {
  try {
    db.watch(fullScope("absent"), [](const WatchEvent&) {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("main.absent"), std::string::npos);
  }
  EXPECT_THROW(db.watch(rowsScope("t", "nope", {1}), [](const WatchEvent&) {}), Error);
  std::vector<WatchEvent> events;
  watchInto(ChangeScope{}, events);  // dead scope: accepted, never fires
  db.exec("insert into t values (1, 'one')");
  EXPECT_TRUE(events.empty());
}

TEST_F(WatchTest, DropAndAlterDisposeTheSubscription) {
  std::vector<WatchEvent> events;
  std::string id = watchInto(fullScope("t"), events);
  db.exec("alter table t add column w integer null");
  EXPECT_FALSE(db.notifier().isWatching(id));
  db.exec("insert into t values (1, 'one', 1)");
  EXPECT_TRUE(events.empty());
  db.exec("create table d (id integer primary key)");
  std::string id2 = watchInto(fullScope("d"), events);
  db.exec("drop table d");
  db.exec("create table d (id integer primary key)");
  db.exec("insert into d values (1)");
  EXPECT_FALSE(db.notifier().isWatching(id2));
  EXPECT_TRUE(events.empty());
  // A rolled-back DROP disposes nothing.
  std::string id3 = watchInto(fullScope("d"), events);
  db.exec("begin; drop table d; rollback");
  EXPECT_TRUE(db.notifier().isWatching(id3));
}

TEST_F(WatchTest, HandlerErrorsNeverBreakACommit) {
  std::vector<WatchEvent> events;
  db.watch(fullScope("t"), [](const WatchEvent&) { throw std::runtime_error("boom"); });
  watchInto(fullScope("t"), events);
  EXPECT_NO_THROW(db.exec("insert into t values (1, 'one')"));
  EXPECT_EQ(events.size(), 1u);
  auto st = db.prepare("select count(*) from t");
  ASSERT_TRUE(st->step());
  EXPECT_EQ(st->row()[0].asInt(), 3);
  ASSERT_FALSE(db.notifier().messages().empty());
  EXPECT_NE(db.notifier().messages().back().find("boom"), std::string::npos);
}

TEST_F(WatchTest, HandlersMayWriteAndTheirCommitsFollowInOrder) {
  db.exec("create table log (n integer primary key)");
  std::vector<std::string> order;
  db.watch(fullScope("t"), [&](const WatchEvent& e) {
    order.push_back("t@" + e.txnId);
    db.exec("insert into log values ((select count(*) from log) + 1)");
  });
  db.watch(fullScope("log"), [&](const WatchEvent& e) { order.push_back("log@" + e.txnId); });
  db.exec("insert into t values (1, 'one')");
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].substr(0, 2), "t@");
  EXPECT_EQ(order[1].substr(0, 4), "log@");
  EXPECT_NE(order[0].substr(2), order[1].substr(4));
}

TEST_F(WatchTest, SubscribingInsideAHandlerStartsWithTheNextCommit) {
  std::vector<WatchEvent> late;
  bool added = false;
  db.watch(fullScope("t"), [&](const WatchEvent&) {
    if (!added) {
      added = true;
      db.watch(fullScope("t"), [&](const WatchEvent& e) { late.push_back(e); });
    }
  });
  db.exec("insert into t values (1, 'one')");
  EXPECT_TRUE(late.empty());
  db.exec("insert into t values (2, 'two')");
  EXPECT_EQ(late.size(), 1u);
}

TEST_F(WatchTest, WatchHandlersRunBeforeDataListeners) {
  std::vector<std::string> order;
  db.onDataChange([&](const DataChangeEvent&) { order.push_back("data"); });
  db.watch(fullScope("t"), [&](const WatchEvent&) { order.push_back("watch"); });
  db.exec("insert into t values (1, 'one')");
  EXPECT_EQ(order, (std::vector<std::string>{"watch", "data"}));
}

TEST_F(WatchTest, DataEventsInWriteOrderAndKeyMovesSplit) {
  std::vector<std::string> events;
  db.onDataChange([&](const DataChangeEvent& e) { events.push_back(toJson(e).dump()); });
  db.exec("begin; insert into t values (1, 'a'); update t set id = 2 where id = 1; delete from t where id = 8; commit");
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0], R"({"type":"insert","moduleName":"memory","schemaName":"main","tableName":"t","key":[1],"newRow":[1,"a"],"remote":false})");
  EXPECT_EQ(events[1], R"({"type":"delete","moduleName":"memory","schemaName":"main","tableName":"t","key":[1],"oldRow":[1,"a"],"remote":false})");
  EXPECT_EQ(events[2], R"({"type":"insert","moduleName":"memory","schemaName":"main","tableName":"t","key":[2],"newRow":[2,"a"],"remote":false})");
  EXPECT_EQ(events[3], R"({"type":"delete","moduleName":"memory","schemaName":"main","tableName":"t","key":[8],"oldRow":[8,"eight"],"remote":false})");
}

TEST_F(WatchTest, ARenameLaterInTheTransactionRelabelsEarlierEvents) {
  std::vector<std::string> events;
  db.onDataChange([&](const DataChangeEvent& e) { events.push_back(e.tableName + ":" + toJson(e)["key"].dump()); });
  db.exec("begin; insert into t values (1, 'a'); alter table t rename to t9; insert into t9 values (2, 'b'); commit");
  EXPECT_EQ(events, (std::vector<std::string>{"t9:[1]", "t9:[2]"}));
}

TEST_F(WatchTest, SchemaEventsAreBatchedToCommitAndSuccessOnly) {
  std::vector<std::string> events;
  std::vector<TransactionCommitEvent> commits;
  db.onSchemaChange([&](const SchemaChangeEvent& e) { events.push_back(toJson(e).dump()); });
  db.onTransactionCommit([&](const TransactionCommitEvent& e) { commits.push_back(e); });
  db.exec("alter table t add column w integer null");
  db.exec("alter table t rename column w to w2");
  db.exec("alter table t drop column w2");
  db.exec("alter table t rename to t2");
  db.exec("create index t2_v on t2 (v)");
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0], R"({"type":"alter","objectType":"column","moduleName":"memory","schemaName":"main","objectName":"t","columnName":"w","ddl":"alter table main.t add column w integer null","remote":false})");
  EXPECT_EQ(events[1], R"({"type":"alter","objectType":"column","moduleName":"memory","schemaName":"main","objectName":"t","columnName":"w2","oldColumnName":"w","ddl":"alter table main.t rename column w to w2","remote":false})");
  EXPECT_EQ(events[2], R"({"type":"drop","objectType":"column","moduleName":"memory","schemaName":"main","objectName":"t","columnName":"w2","ddl":"alter table main.t drop column w2","remote":false})");
  EXPECT_EQ(events[3], R"({"type":"alter","objectType":"table","moduleName":"memory","schemaName":"main","objectName":"t2","oldObjectName":"t","ddl":"alter table main.t rename to t2","remote":false})");
  EXPECT_EQ(events[4], R"j({"type":"create","objectType":"index","moduleName":"memory","schemaName":"main","objectName":"t2_v","ddl":"create index main.t2_v on main.t2 (v)","remote":false})j");
  EXPECT_EQ(commits.size(), 5u);
  events.clear();
  EXPECT_THROW(db.exec("create table t2 (id integer primary key)"), Error);  // exists: retracted
  db.exec("begin; create table z (id integer primary key); rollback");
  EXPECT_TRUE(events.empty());
  db.exec("begin; create table z (id integer primary key); drop table t2; commit");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], R"j({"type":"create","objectType":"table","moduleName":"memory","schemaName":"main","objectName":"z","ddl":"create table main.z (id integer primary key)","remote":false})j");
  EXPECT_EQ(events[1], R"({"type":"drop","objectType":"table","moduleName":"memory","schemaName":"main","objectName":"t2","ddl":"drop table main.t2","remote":false})");
}

TEST_F(WatchTest, NotifyExternalChangeFiresCoarsely) {
  std::vector<WatchEvent> events;
  watchInto(rowsScope("t", "id", {7, 8}), events);
  db.notifyExternalChange("t");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(hitsOf(events[0]), "t:[[7],[8]];");
}

}  // namespace
}  // namespace optic
