// Database::applyRemoteBatch (engine.h, store_module.h applyRemoteBatch): two connections on one
// storage, as two tabs on one IndexedDB database. What one commits and stores reaches the other
// as a commit of its own: memory follows, watches, data/schema/commit events say remote, live
// queries re-run, and nothing of it goes back to storage from the receiving side.
#include <gtest/gtest.h>

#include <memory>
#include <string>
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

// Keeps the batches a connection sent; deliver() stores them and hands each to the peers.
class SharedSink final : public PersistenceSink {
 public:
  explicit SharedSink(std::shared_ptr<KVStore> storage) : storage_(std::move(storage)) {}
  void write(const WriteBatch& batch) override { queued.push_back(batch); }
  bool storesLater() const override { return true; }
  std::vector<WriteBatch> queued;
  std::shared_ptr<KVStore> storage_;
};

struct Connection {
  std::shared_ptr<SharedSink> sink;
  std::unique_ptr<Database> db;
};

class StoreRemote : public ::testing::Test {
 protected:
  Connection open() {
    Connection c;
    c.sink = std::make_shared<SharedSink>(storage);
    DatabaseOptions o;
    o.sink = c.sink;
    o.contents = storage;
    c.db = std::make_unique<Database>(o);
    return c;
  }
  // Stores what `from` committed and applies each batch to `to` (when given), as the bridge's
  // broadcast does.
  void store(Connection& from, Connection* to) {
    for (const WriteBatch& b : from.sink->queued) {
      applyBatch(b, *storage);
      if (to) to->db->applyRemoteBatch(b);
    }
    from.sink->queued.clear();
    from.db->acknowledgeStored(from.db->engine().lastBatch());
  }
  void deliver(Connection& from, Connection& to) { store(from, &to); }
  // A connection that ran `sql` and stored it.
  Connection openWith(const std::string& sql) {
    Connection c = open();
    c.db->exec(sql);
    store(c, nullptr);
    return c;
  }
  std::shared_ptr<KVStore> storage = newMemoryKVStore();
};

std::string describe(const DataChangeEvent& e) {
  static const char* types[] = {"insert", "update", "delete"};
  auto row = [](const std::optional<Row>& r) {
    if (!r) return std::string("-");
    std::string s;
    for (const Value& v : *r) s += (s.empty() ? "" : ",") + toText(v);
    return s;
  };
  return std::string(types[static_cast<int>(e.type)]) + " " + e.tableName + " " + row(e.oldRow) + " > " +
         row(e.newRow) + (e.remote ? " remote" : " local");
}

TEST_F(StoreRemote, ALensAnotherConnectionDeploysArrivesWithItsBoundary) {
  Connection a = openWith("create table item (id integer primary key, name text); insert into item values (1, 'bolt')");
  Connection b = open();
  a.db->exec("declare logical schema app { table item (id integer primary key, label text, "
             "constraint short check (length(label) < 6)) }");
  a.db->exec("declare lens for app over main { view item as select id, name as label from main.item }");
  a.db->exec("apply schema app");
  deliver(a, b);
  EXPECT_EQ(rows(*b.db, "select label from app.item"), "bolt");
  EXPECT_EQ(rows(*b.db, "select source from quereus_effective_lens('app', 'item') where logical_column = 'label'"),
            "override");
  EXPECT_THROW(b.db->exec("insert into app.item values (2, 'toolong')"), Error);
}

TEST_F(StoreRemote, RowChangesArriveAsARemoteCommit) {
  Connection a = open();
  a.db->exec("create table t (id integer primary key, v text); create index t_v on t (v)");
  a.db->exec("insert into t values (1, 'a'), (2, 'b')");
  Connection b = open();  // hydrated after a's commits were stored
  deliver(a, b);          // (already in b's copy: applying them again changes nothing)
  std::vector<std::string> events;
  std::vector<TransactionCommitEvent> commits;
  b.db->onDataChange([&](const DataChangeEvent& e) { events.push_back(describe(e)); });
  b.db->onTransactionCommit([&](const TransactionCommitEvent& e) { commits.push_back(e); });
  std::vector<std::string> watched;
  b.db->watch(b.db->prepare("select v from t")->getChangeScope(), [&](const WatchEvent& e) { watched.push_back(e.txnId); });

  a.db->exec("begin; insert into t values (3, 'c'); update t set v = 'z' where id = 1; delete from t where id = 2; commit");
  deliver(a, b);

  EXPECT_EQ(events, (std::vector<std::string>{"update t 1,a > 1,z remote", "delete t 2,b > - remote",
                                              "insert t - > 3,c remote"}));
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_TRUE(commits[0].remote);
  EXPECT_EQ(commits[0].dataChanges, 3u);
  EXPECT_EQ(watched.size(), 1u);
  EXPECT_EQ(rows(*b.db, "select id, v from t order by id"), "1|z;3|c");
  // The index followed the rows (an index scan finds the new value and not the old ones).
  EXPECT_EQ(rows(*b.db, "select id from t where v = 'z'"), "1");
  EXPECT_EQ(rows(*b.db, "select count(*) from t where v in ('a', 'b')"), "0");
  EXPECT_TRUE(b.sink->queued.empty());  // storage has it already: b sends nothing
  // b's own commits after it go to storage as usual, and both see the same table.
  b.db->exec("insert into t values (4, 'd')");
  deliver(b, a);
  EXPECT_EQ(rows(*a.db, "select id, v from t order by id"), "1|z;3|c;4|d");
  Connection c = open();
  EXPECT_EQ(rows(*c.db, "select id, v from t order by id"), "1|z;3|c;4|d");
}

TEST_F(StoreRemote, LiveQueriesRerunOnARemoteCommit) {
  Connection a = openWith("create table t (id integer primary key, n integer)");
  Connection b = open();
  std::vector<std::string> results;
  b.db->live("select sum(n) from t", {}, [&](const LiveResult& r) {
    results.push_back(r.rows.empty() || r.rows[0][0].isNull() ? "null" : toText(r.rows[0][0]));
  });
  a.db->exec("insert into t values (1, 5)");
  a.db->exec("insert into t values (2, 7)");
  deliver(a, b);
  EXPECT_EQ(results, (std::vector<std::string>{"null", "5", "12"}));  // one delivery per commit
}

TEST_F(StoreRemote, RemoteDdlRefreshesTheCatalog) {
  Connection a = openWith("create table t (id integer primary key, v text); insert into t values (1, 'a');"
                          "create table gone (k integer primary key)");
  Connection b = open();
  std::vector<std::string> schema;
  b.db->onSchemaChange([&](const SchemaChangeEvent& e) {
    static const char* types[] = {"create", "alter", "drop"};
    schema.push_back(std::string(types[static_cast<int>(e.type)]) + " " + e.objectName + (e.remote ? " remote" : ""));
  });
  bool watchFired = false;
  std::string watchId = b.db->watch(b.db->prepare("select v from t")->getChangeScope(), [&](const WatchEvent&) { watchFired = true; });
  std::vector<size_t> liveColumns;
  b.db->live("select * from t", {}, [&](const LiveResult& r) { liveColumns.push_back(r.columns.size()); });

  a.db->exec("alter table t add column w integer default 9");
  a.db->exec("create table u (k integer primary key); insert into u values (7)");
  a.db->exec("drop table gone");
  deliver(a, b);

  EXPECT_EQ(schema, (std::vector<std::string>{"alter t remote", "create u remote", "drop gone remote"}));
  EXPECT_EQ(rows(*b.db, "select id, v, w from t"), "1|a|9");
  EXPECT_EQ(rows(*b.db, "select k from u"), "7");
  EXPECT_NE(testing_sql::errorOf(*b.db, "select * from gone"), "");
  EXPECT_FALSE(watchFired);                       // an ALTER disposes watches, as a local one does
  EXPECT_FALSE(b.db->notifier().isWatching(watchId));
  EXPECT_EQ(liveColumns, (std::vector<size_t>{2, 3}));  // the live query re-derived on the new table
  EXPECT_TRUE(b.db->loadErrors().empty());

  // Later row changes to the re-declared table arrive incrementally again.
  a.db->exec("update t set w = 1 where id = 1");
  deliver(a, b);
  EXPECT_EQ(rows(*b.db, "select w from t"), "1");
  b.db->exec("insert into u values (8)");
  deliver(b, a);
  EXPECT_EQ(rows(*a.db, "select k from u order by k"), "7;8");
}

TEST_F(StoreRemote, RenamedTableMovesUnderItsNewName) {
  Connection a = openWith("create table t (id integer primary key); insert into t values (1), (2)");
  Connection b = open();
  a.db->exec("alter table t rename to t2");
  deliver(a, b);
  EXPECT_EQ(rows(*b.db, "select id from t2 order by id"), "1;2");
  EXPECT_NE(testing_sql::errorOf(*b.db, "select * from t"), "");
}

TEST_F(StoreRemote, MemoryMaterializedViewsFollowRemoteRows) {
  Connection a = openWith("create table t (id integer primary key, g integer)");
  Connection b = open();
  b.db->exec("create materialized view s using memory as select g, count(*) as n from t group by g");
  a.db->exec("insert into t values (1, 1), (2, 1), (3, 2)");
  a.db->exec("update t set g = 2 where id = 1");
  deliver(a, b);
  EXPECT_EQ(rows(*b.db, "select g, n from s order by g"), "1|1;2|2");
}

TEST_F(StoreRemote, RefusedInsideATransaction) {
  Connection a = openWith("create table t (id integer primary key)");
  Connection b = open();
  a.db->exec("insert into t values (1)");
  b.db->exec("begin");
  EXPECT_FALSE(b.db->idle());
  ASSERT_EQ(a.sink->queued.size(), 1u);
  try {
    b.db->applyRemoteBatch(a.sink->queued[0]);
    FAIL() << "applied inside a transaction";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kMisuse);
  }
  b.db->exec("commit");
  EXPECT_TRUE(b.db->idle());
  b.db->applyRemoteBatch(a.sink->queued[0]);
  EXPECT_EQ(rows(*b.db, "select id from t"), "1");
}

// The clean-shutdown marker vouches for stored materialized-view rows only when the closing
// connection saw every write as its own: after another connection's batch it lists them as
// awaiting a refill; and another connection's later write takes a stored marker away.
TEST_F(StoreRemote, AMarkerNeverVouchesForRowsAnotherConnectionWrote) {
  {
    Connection setup = openWith("create table t (id integer primary key, v integer); insert into t values (1, 10)");
    setup.db->close();
    store(setup, nullptr);
  }
  Connection a = open();
  Connection b = open();
  a.db->exec("create materialized view m as select count(*) as n, sum(v) as s from t");
  deliver(a, b);
  b.db->exec("insert into t values (2, 20)");  // b maintains m too (it learnt it from a's batch)
  deliver(b, a);
  EXPECT_EQ(rows(*a.db, "select n, s from m"), "2|30");
  a.db->close();  // a saw b's write: its marker lists m
  deliver(a, b);
  Connection reopened = open();
  EXPECT_EQ(reopened.db->rehydration().refilled, std::vector<std::string>{"main.m"});
  EXPECT_EQ(rows(*reopened.db, "select n, s from m"), "2|30");

  Connection c = open();
  c.db->exec("select * from m");  // refilled and stored by c
  store(c, nullptr);
  Connection d = open();
  c.db->close();
  deliver(c, d);  // d learns the marker is in storage
  d.db->exec("insert into t values (3, 30)");
  store(d, nullptr);  // d's batch erases it
  Connection e = open();
  EXPECT_TRUE(e.db->rehydration().adopted.empty());
  EXPECT_EQ(rows(*e.db, "select n, s from m"), "3|60");
}

// Database::writes: what must take the write lock shared by connections (js/src/write_lock.ts).
TEST(StatementWrites, EverythingButQueriesAndPragmasMayWrite) {
  for (const char* sql : {"select 1", "select * from t where id = 1", "values (1), (2)",
                          "with x as (select 1) select * from x", "pragma schema_path",
                          "pragma use_indexes = off", "select 1; select 2", "diff schema main",
                          "not sql at all ("}) {
    EXPECT_FALSE(Database::writes(sql)) << sql;
  }
  for (const char* sql : {"insert into t values (1)", "update t set v = 1", "delete from t", "begin",
                          "savepoint s", "commit", "create table u (id integer primary key)",
                          "create view w as select 1", "drop table t", "alter table t add column c text",
                          "select 1; insert into t values (2)", "refresh materialized view m",
                          "apply schema main", "analyze"}) {
    EXPECT_TRUE(Database::writes(sql)) << sql;
  }
}

// Views and materialized views created, re-declared and dropped in one connection reach the
// other: it reads them, and its own writes maintain the materialized views (in storage too), so
// a third connection opening storage finds every view equal to its body.
TEST_F(StoreRemote, ViewsAndMaterializedViewsFollowRemoteDdl) {
  Connection a = openWith("create table t (id integer primary key, g integer, v integer); "
                          "insert into t values (1, 1, 10), (2, 2, 20)");
  Connection b = open();
  a.db->exec("create view big as select id, v from t where v >= 20");
  a.db->exec("create materialized view m as select g, sum(v) as s, count(*) as n from t group by g");
  a.db->exec("create materialized view mem using memory as select count(*) as n from t");
  a.db->exec("create materialized view over_m as select sum(s) as total from m");
  deliver(a, b);
  EXPECT_EQ(rows(*b.db, "select id, v from big order by id"), "2|20");
  EXPECT_EQ(rows(*b.db, "select g, s, n from m order by g"), "1|10|1;2|20|1");
  EXPECT_EQ(rows(*b.db, "select n from mem"), "2");
  EXPECT_EQ(rows(*b.db, "select total from over_m"), "30");

  b.db->exec("insert into t values (3, 1, 30); update t set v = 5 where id = 2");
  deliver(b, a);
  const std::string expected = "1|40|2;2|5|1";
  EXPECT_EQ(rows(*b.db, "select g, s, n from m order by g"), expected);
  EXPECT_EQ(rows(*a.db, "select g, s, n from m order by g"), expected);
  EXPECT_EQ(rows(*a.db, "select total from over_m"), "45");
  EXPECT_EQ(rows(*b.db, "select total from over_m"), "45");
  EXPECT_EQ(rows(*a.db, "select n from mem"), "3");
  EXPECT_EQ(rows(*b.db, "select id from big order by id"), "3");
  {
    Connection c = open();  // storage holds the rows b maintained
    EXPECT_EQ(rows(*c.db, "select g, s, n from m order by g"), expected);
    EXPECT_EQ(rows(*c.db, "select total from over_m"), "45");
  }

  // A rename there rewrites the bodies; b follows and keeps maintaining.
  a.db->exec("alter table t rename to u");
  deliver(a, b);
  b.db->exec("insert into u values (4, 2, 1)");
  deliver(b, a);
  EXPECT_EQ(rows(*b.db, "select g, s, n from m order by g"), "1|40|2;2|6|2");
  EXPECT_EQ(rows(*a.db, "select g, s, n from m order by g"), "1|40|2;2|6|2");
  EXPECT_EQ(rows(*b.db, "select id from big order by id"), "3");

  a.db->exec("drop view big; drop materialized view over_m; drop materialized view mem");
  deliver(a, b);
  EXPECT_NE(testing_sql::errorOf(*b.db, "select * from big"), "");
  EXPECT_NE(testing_sql::errorOf(*b.db, "select * from over_m"), "");
  EXPECT_NE(testing_sql::errorOf(*b.db, "select * from mem"), "");
  b.db->exec("create view big as select 1 as one");  // the name is free again there and here
  store(b, nullptr);
  Connection d = open();
  EXPECT_EQ(rows(*d.db, "select one from big"), "1");
  EXPECT_EQ(rows(*d.db, "select g, s, n from m order by g"), "1|40|2;2|6|2");
  EXPECT_TRUE(d.db->rehydration().errors.empty());
}

// Nothing of a remote DDL's entries goes back to storage from the receiving side: its next
// commit writes its rows only.
TEST_F(StoreRemote, RemoteEntriesAreNotWrittenBack) {
  Connection a = openWith("create table t (id integer primary key)");
  Connection b = open();
  a.db->exec("create view v as select id from t; create materialized view m as select count(*) as n from t");
  deliver(a, b);
  b.db->exec("insert into t values (1)");
  ASSERT_EQ(b.sink->queued.size(), 1u);
  struct Keys final : WriteBatch::Handler {
    std::vector<std::string> catalog;
    void put(std::string_view k, std::string_view) override { note(k); }
    void erase(std::string_view k) override { note(k); }
    void eraseRange(std::string_view b, std::string_view) override { note(b); }
    void note(std::string_view k) {
      if (k.find(std::string_view("\0view\0", 6)) != std::string_view::npos ||
          k.find(std::string_view("\0mview\0", 7)) != std::string_view::npos) catalog.emplace_back(k);
    }
  } keys;
  b.sink->queued[0].iterate(keys);
  EXPECT_TRUE(keys.catalog.empty());
  deliver(b, a);
  EXPECT_EQ(rows(*a.db, "select n from m"), "1");
}

}  // namespace
}  // namespace optic
