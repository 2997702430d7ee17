// Lazy loading of store tables (core/persistence/store_load.h, StoreModule::loadTables): a database
// opened from its catalog alone knows every store table but holds no rows; a statement says which
// tables it needs (tablesToLoad), the embedder hands their key ranges over (loadRanges,
// loadTables), and a statement that reaches a table that is not loaded fails with kNotLoaded and
// changes nothing, never reading it as empty.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/api/database.h"
#include "core/api/engine.h"
#include "core/api/live_query.h"
#include "core/catalog/store_layout.h"
#include "core/storage/kv_store.h"
#include "core/storage/persistence.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::rows;
using Tables = std::vector<std::string>;

// Stores what a connection sends when the test says so (as the bridge's IndexedDB writes).
class QueueSink final : public PersistenceSink {
 public:
  void write(const WriteBatch& batch) override { queued.push_back(batch); }
  bool storesLater() const override { return true; }
  std::vector<WriteBatch> queued;
};

struct Connection {
  std::shared_ptr<QueueSink> sink;
  std::unique_ptr<Database> db;
};

class StoreLazy : public ::testing::Test {
 protected:
  // A connection that opens on the catalog entries of `storage` only.
  Connection openLazy() {
    auto catalog = std::shared_ptr<KVStore>(newMemoryKVStore());
    const auto [begin, end] = Database::catalogRange();
    copyRange(begin, end, *catalog);
    Connection c;
    c.sink = std::make_shared<QueueSink>();
    DatabaseOptions o;
    o.sink = c.sink;
    o.contents = catalog;
    o.lazyLoad = true;
    c.db = std::make_unique<Database>(o);
    return c;
  }
  Connection openEager() {
    Connection c;
    c.sink = std::make_shared<QueueSink>();
    DatabaseOptions o;
    o.sink = c.sink;
    o.contents = storage;
    c.db = std::make_unique<Database>(o);
    return c;
  }
  // Stores the connection's batches; hands each to `to` (numbered as storage numbers commits).
  void store(Connection& from, Connection* to = nullptr) {
    for (const WriteBatch& b : from.sink->queued) {
      applyBatch(b, *storage);
      ++seq;
      if (to) to->db->applyRemoteBatch(b, seq);
    }
    from.sink->queued.clear();
    from.db->acknowledgeStored(from.db->engine().lastBatch());
  }
  // What the bridge does before a statement: reads the ranges of the tables `sql` needs.
  Tables load(Database& db, const std::string& sql) {
    Tables tables = db.tablesToLoad(sql);
    auto contents = newMemoryKVStore();
    for (const auto& [begin, end] : db.loadRanges(tables)) copyRange(begin, end, *contents);
    db.loadTables(tables, *contents, seq);
    return tables;
  }
  void copyRange(const std::string& begin, const std::string& end, KVStore& to) {
    auto it = storage->newIterator();
    for (it->seek(begin); it->valid() && it->key() < end; it->next()) to.put(it->key(), it->value());
  }
  void seed(const std::string& sql) {
    Connection c = openEager();
    c.db->exec(sql);
    store(c);
  }

  std::shared_ptr<KVStore> storage = newMemoryKVStore();
  uint64_t seq = 0;
};

ErrorCode codeOf(Database& db, const std::string& sql) {
  try {
    db.exec(sql);
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kError;
}

TEST_F(StoreLazy, OpeningLoadsNoTableAndAQueryLoadsOnlyItsOwn) {
  seed("create table t (id integer primary key, v text); create table u (id integer primary key, w text);"
       "create index u_w on u (w); insert into t values (1, 'a'), (2, 'b'); insert into u values (7, 'x')");
  Connection c = openLazy();
  Database& db = *c.db;
  EXPECT_FALSE(db.tableLoaded("main", "t"));
  EXPECT_FALSE(db.tableLoaded("main", "u"));
  EXPECT_EQ(codeOf(db, "select * from t"), ErrorCode::kNotLoaded);
  try {
    rows(db, "select count(*) from u");
    FAIL() << "read a table that is not loaded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "Table 'main.u' is not loaded");
    EXPECT_EQ(e.tablesToLoad(), Tables{"main.u"});  // as data: an embedder loads it from this
  }
  EXPECT_EQ(load(db, "select v from t order by id"), Tables{"main.t"});
  EXPECT_EQ(rows(db, "select v from t order by id"), "a;b");
  EXPECT_FALSE(db.tableLoaded("main", "u"));
  EXPECT_EQ(db.tablesToLoad("select v from t"), Tables{});  // loaded stays loaded
  EXPECT_EQ(load(db, "select id from u where w = 'x'"), Tables{"main.u"});
  EXPECT_EQ(rows(db, "select id from u where w = 'x'"), "7");  // the index came with it
}

TEST_F(StoreLazy, ClosureFollowsViewsForeignKeysMaterializedViewsAndAssertions) {
  seed("create table p (id integer primary key);"
       "create table c (id integer primary key, p integer references p(id) on delete cascade);"
       "create table a (id integer primary key); create table b (id integer primary key, n integer);"
       "create table lone (id integer primary key);"
       "create table audit (id integer primary key)");
  Connection conn = openLazy();
  Database& db = *conn.db;
  EXPECT_EQ(db.tablesToLoad("create view vb as select n from b"), Tables{});
  db.exec("create view vb as select n from b; create view vvb as select * from vb");
  EXPECT_EQ(db.tablesToLoad("select * from vvb"), Tables{"main.b"});
  EXPECT_EQ(db.tablesToLoad("create table z (id integer primary key)"), Tables{});
  EXPECT_EQ(db.tablesToLoad("select 'p', \"lone\" from a"), (Tables{"main.a", "main.lone"}));  // not the string
  EXPECT_EQ(db.tablesToLoad("delete from p where id = 1"), (Tables{"main.c", "main.p"}));  // the cascade
  EXPECT_EQ(db.tablesToLoad("insert into c values (1, 1)"), (Tables{"main.c", "main.p"}));  // the parent
  EXPECT_EQ(db.tablesToLoad("drop table lone"),  // DDL that is not a plain CREATE: everything
            (Tables{"main.a", "main.audit", "main.b", "main.c", "main.lone", "main.p"}));
  // A maintained table over a and b: a write to a reaches b through its derivation.
  load(db, "select * from a, b");
  db.exec("create materialized view ab using memory as select a.id, b.n from a join b on b.id = a.id");
  db.exec("create table s (id integer primary key)");
  EXPECT_EQ(db.tablesToLoad("insert into a values (1)"), Tables{});
  // An assertion is checked when it is created and at each commit: its tables come along.
  EXPECT_EQ(db.tablesToLoad("create assertion few check ((select count(*) from audit) < 5)"), Tables{"main.audit"});
  EXPECT_EQ(db.tablesToLoad("insert into s values (1)"), Tables{});
  EXPECT_EQ(db.tablesToLoad("begin"), Tables{});
}

TEST_F(StoreLazy, AMaterializedViewOverATableNotYetLoadedComesOutRight) {
  seed("create table a (id integer primary key, g integer); create table b (g integer primary key, label text);"
       "insert into a values (1, 10), (2, 20), (3, 10); insert into b values (10, 'ten'), (20, 'twenty')");
  Connection conn = openLazy();
  Database& db = *conn.db;
  const std::string mv = "create materialized view m using memory as "
                         "select b.label, count(*) as n from a join b on b.g = a.g group by b.label";
  EXPECT_EQ(load(db, mv), (Tables{"main.a", "main.b"}));
  db.exec(mv);
  EXPECT_EQ(rows(db, "select label, n from m order by label"), "ten|2;twenty|1");
  load(db, "insert into a values (4, 20)");
  db.exec("insert into a values (4, 20)");
  EXPECT_EQ(rows(db, "select label, n from m order by label"), "ten|2;twenty|2");
}

TEST_F(StoreLazy, ALensDeploymentComesBackBeforeItsBasisIsLoaded) {
  seed("create table item (id integer primary key, name text); insert into item values (1, 'bolt');"
       "declare logical schema app { table item (id integer primary key, label text, constraint short check (length(label) < 6)) };"
       "declare lens for app over main { view item as select id, name as label from main.item };"
       "apply schema app");
  Connection conn = openLazy();
  Database& db = *conn.db;
  for (const std::string& e : db.rehydration().errors) ADD_FAILURE() << "rehydration: " << e;
  EXPECT_EQ(rows(db, "select source from quereus_effective_lens('app', 'item') where logical_column = 'label'"), "override");
  const std::string bad = "insert into app.item values (2, 'toolong')";
  load(db, bad);
  EXPECT_EQ(codeOf(db, bad), ErrorCode::kConstraint);
  EXPECT_EQ(rows(db, "select label from app.item"), "bolt");
}

TEST_F(StoreLazy, ACascadeIntoATableNotYetLoadedIsRightInMemoryAndInStorage) {
  seed("create table p (id integer primary key);"
       "create table c (id integer primary key, p integer references p(id) on delete cascade);"
       "insert into p values (1), (2); insert into c values (10, 1), (11, 1), (20, 2)");
  Connection conn = openLazy();
  Database& db = *conn.db;
  const std::string del = "delete from p where id = 1";
  load(db, del);
  db.exec(del);
  EXPECT_EQ(rows(db, "select id from c order by id"), "20");
  store(conn);
  Connection again = openEager();
  EXPECT_EQ(rows(*again.db, "select id from c order by id"), "20");
  EXPECT_EQ(rows(*again.db, "select id from p order by id"), "2");
}

TEST_F(StoreLazy, AStatementThatReachesATableNotLoadedRollsBackAloneInsideATransaction) {
  seed("create table t (id integer primary key); create table u (id integer primary key);"
       "insert into t values (1); insert into u values (5)");
  Connection conn = openLazy();
  Database& db = *conn.db;
  load(db, "select * from t");
  db.exec("begin; insert into t values (2)");
  // u is not loaded: this statement fails whole and the transaction carries on without it.
  EXPECT_EQ(codeOf(db, "insert into t select id from u"), ErrorCode::kNotLoaded);
  EXPECT_FALSE(db.autocommit());
  EXPECT_EQ(rows(db, "select id from t order by id"), "1;2");
  load(db, "insert into t select id from u");
  db.exec("insert into t select id from u");
  EXPECT_EQ(rows(db, "select id from t order by id"), "1;2;5");
  db.exec("rollback");
  EXPECT_EQ(rows(db, "select id from t order by id"), "1");
  EXPECT_EQ(rows(db, "select id from u order by id"), "5");
  EXPECT_TRUE(conn.sink->queued.empty());
}

TEST_F(StoreLazy, RemoteRowsOfATableNotLoadedAreReadOnceByItsLoad) {
  seed("create table t (id integer primary key); create table u (id integer primary key, v text)");
  Connection a = openLazy();
  Connection b = openLazy();
  int changes = 0;
  a.db->onDataChange([&](const DataChangeEvent&) { ++changes; });
  load(*b.db, "insert into u values (1, 'one')");
  b.db->exec("insert into u values (1, 'one')");
  store(b, &a);  // u is not loaded in a: skipped in memory, storage has it
  EXPECT_FALSE(a.db->tableLoaded("main", "u"));
  EXPECT_EQ(changes, 0);
  b.db->exec("insert into u values (2, 'two')");
  WriteBatch second = b.sink->queued.back();
  store(b);  // stored as commit 3 (the seed was 1), announced to a only after a's load read it
  load(*a.db, "select * from u");
  a.db->applyRemoteBatch(second, seq);
  EXPECT_EQ(rows(*a.db, "select id, v from u order by id"), "1|one;2|two");
  EXPECT_EQ(changes, 0);  // the load had it: not applied a second time
  b.db->exec("update u set v = 'uno' where id = 1");
  store(b, &a);  // a later commit applies as before
  EXPECT_EQ(rows(*a.db, "select id, v from u order by id"), "1|uno;2|two");
  EXPECT_EQ(changes, 1);
}

TEST_F(StoreLazy, ATableNotLoadedThatAnotherConnectionAltersStaysNotLoadedAndLoadsItsNewShape) {
  seed("create table t (id integer primary key, v text); insert into t values (1, 'one');"
       "create table other (id integer primary key)");
  Connection a = openLazy();
  Connection b = openLazy();
  load(*b.db, "alter table t add column w integer default 7");
  b.db->exec("alter table t add column w integer default 7");
  store(b, &a);  // its batch rewrites t's store whole: a keeps it not loaded, storage has it
  EXPECT_FALSE(a.db->tableLoaded("main", "t"));
  EXPECT_EQ(a.db->tablesToLoad("select w from t"), Tables{"main.t"});
  load(*a.db, "select w from t");
  EXPECT_EQ(rows(*a.db, "select id, v, w from t"), "1|one|7");
  // A commit of a goes to storage as the rows it wrote, never as a rewrite of a table it did not load.
  a.db->exec("insert into t values (2, 'two', 8)");
  store(a);
  Connection c = openEager();
  EXPECT_EQ(rows(*c.db, "select id, w from t order by id"), "1|7;2|8");
}

// A connection that missed commits the log no longer holds (a tab asleep while another wrote a
// lot) reads again what it holds instead: its loaded tables' rows, the catalog. What changed
// arrives as one remote commit (watches, events, live queries, materialized views follow), tables
// created or altered meanwhile load on their next use, dropped ones are gone, and nothing goes
// back to storage.
TEST_F(StoreLazy, AConnectionThatMissedCommitsResyncsWhatItHolds) {
  seed("create table t (id integer primary key, v text, n integer); create index t_v on t (v);"
       "create table gone (k integer primary key); create table later (k integer primary key);"
       "create table shape (k integer primary key);"
       "insert into t values (1, 'a', 1), (2, 'b', 2), (3, 'c', 3); insert into later values (1)");
  Connection a = openLazy();
  Connection b = openLazy();
  load(*b.db, "select * from t, gone, shape");
  b.db->exec("create materialized view s using memory as select v, sum(n) as total from t group by v");
  store(b);  // (a connection resyncs with every commit of its own stored)
  std::vector<std::string> events;
  b.db->onDataChange([&](const DataChangeEvent& e) {
    events.push_back(std::to_string(static_cast<int>(e.type)) + e.tableName + (e.remote ? "r" : "l"));
  });
  std::vector<std::string> live;
  b.db->live("select count(*), sum(n) from t", {}, [&](const LiveResult& r) {
    live.push_back(toText(r.rows[0][0]) + "/" + toText(r.rows[0][1]));
  });

  load(*a.db, "select * from t, later, gone, shape");
  a.db->exec("insert into t values (4, 'a', 40); update t set v = 'z', n = 20 where id = 2; delete from t where id = 3");
  a.db->exec("insert into later values (2); drop table gone; create table fresh (k integer primary key);"
             "insert into fresh values (9); alter table shape add column w integer default 5");
  store(a);  // b hears nothing of it
  EXPECT_EQ(rows(*b.db, "select id, v, n from t order by id"), "1|a|1;2|b|2;3|c|3");

  std::vector<KeyRange> ranges = b.db->resyncRanges();
  auto contents = newMemoryKVStore();
  for (const auto& [begin, end] : ranges) copyRange(begin, end, *contents);
  b.db->resync(ranges, *contents, seq);

  EXPECT_EQ(rows(*b.db, "select id, v, n from t order by id"), "1|a|1;2|z|20;4|a|40");
  EXPECT_EQ(rows(*b.db, "select id from t where v = 'a' order by id"), "1;4");  // the index followed
  EXPECT_EQ(rows(*b.db, "select id from t where v = 'c'"), "");
  EXPECT_EQ(rows(*b.db, "select v, total from s order by v"), "a|41;z|20");
  EXPECT_EQ(live, (std::vector<std::string>{"3/6", "3/61"}));  // one delivery for the whole resync
  std::sort(events.begin(), events.end());
  // t: one insert, update and delete; s: z in, a updated, b and c out; all remote
  EXPECT_EQ(events, (std::vector<std::string>{"0sr", "0tr", "1sr", "1tr", "2sr", "2sr", "2tr"}));
  EXPECT_NE(testing_sql::errorOf(*b.db, "select * from gone"), "");
  EXPECT_FALSE(b.db->tableLoaded("main", "fresh"));  // created meanwhile: loads on use
  load(*b.db, "select * from fresh, shape, later");
  EXPECT_EQ(rows(*b.db, "select k from fresh"), "9");
  EXPECT_EQ(rows(*b.db, "select k, w from shape"), "");
  EXPECT_EQ(rows(*b.db, "select k from later order by k"), "1;2");  // never loaded here: read whole
  EXPECT_TRUE(b.sink->queued.empty());  // nothing of it is written back
  EXPECT_TRUE(b.db->loadErrors().empty());

  // Later commits arrive one by one again, and b writes on the union.
  a.db->exec("update t set n = n + 1 where id = 1");
  store(a, &b);
  EXPECT_EQ(rows(*b.db, "select n from t where id = 1"), "2");
  b.db->exec("insert into t values (5, 'a', 5)");
  store(b, &a);
  EXPECT_EQ(rows(*a.db, "select count(*), sum(n) from t"), "4|67");
}

}  // namespace
}  // namespace optic
