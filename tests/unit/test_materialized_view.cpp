// Materialized-view tests (core/catalog/materialized_view.h, core/maintenance/mv_maintenance.h):
// one group per maintenance strategy (keyed projection/filter, aggregate groups with min/max
// deletes and key changes, 1:1 join, full-rebuild floor, MV over MV), transactional behaviour
// (rollback, savepoints, reads of the transaction's own writes), and a randomized differential
// test: random eligible bodies over random tables, random transactions with savepoints and
// rollbacks, and after each one the MV's rows must equal its body evaluated as a plain view.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/api/database.h"
#include "core/api/engine.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"
#include "core/maintenance/mv_maintenance.h"

namespace optic {
namespace {

// All rows of `sql`, each as "a|b|c", sorted (order-insensitive comparison).
std::vector<std::string> sortedRows(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  std::vector<std::string> out;
  while (st->step()) {
    std::string line;
    for (const Value& v : st->row()) line += (v.isNull() ? std::string("null") : toText(v)) + "|";
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined(const std::vector<std::string>& rows) {
  std::string out;
  for (const auto& r : rows) out += r + ";";
  return out;
}

std::string rowsOf(Database& db, const std::string& sql) { return joined(sortedRows(db, sql)); }

std::string errorOf(Database& db, const std::string& sql) {
  try {
    db.exec(sql);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The MV equals its body evaluated as a plain query.
void expectConsistent(Database& db, const std::string& mv, const std::string& body) {
  EXPECT_EQ(rowsOf(db, "select * from " + mv), rowsOf(db, body)) << mv << " as " << body;
}

TEST(MaterializedViewDdl, CreateFillsAndDropRemoves) {
  Database db;
  db.exec("create table t (x integer primary key, y text)");
  db.exec("insert into t values (1, 'a'), (2, 'b')");
  db.exec("create materialized view mv as select x, y from t");
  EXPECT_EQ(rowsOf(db, "select * from mv"), "1|a|;2|b|;");
  EXPECT_EQ(rowsOf(db, "select type from schema() where name = 'mv'"), "materialized_view|;");
  db.exec("create materialized view if not exists mv as select x from t");  // no-op
  EXPECT_NE(errorOf(db, "create materialized view mv as select x, y from t").find("already exists"), std::string::npos);
  EXPECT_NE(errorOf(db, "drop view mv").find("DROP MATERIALIZED VIEW"), std::string::npos);
  db.exec("drop materialized view mv");
  EXPECT_NE(errorOf(db, "select * from mv"), "");
  EXPECT_NE(errorOf(db, "drop materialized view t").find("not a materialized view"), std::string::npos);
  EXPECT_NE(errorOf(db, "refresh materialized view nope").find("no such materialized view"), std::string::npos);
}

TEST(MaterializedViewDdl, EligibilityRefusals) {
  Database db;
  db.exec("create table g (id integer primary key, k integer, v integer)");
  EXPECT_NE(errorOf(db, "create materialized view m as select id, random() as r from g")
                .find("non-deterministic expression column 'r'"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "create materialized view m as select v from g").find("no provable unique key"), std::string::npos);
  // A keyless body whose rows already repeat says so.
  db.exec("insert into g values (1, 1, 7), (2, 2, 7)");
  EXPECT_NE(errorOf(db, "create materialized view m as select v from g").find("materialized view 'main.m' body produces duplicate rows"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "create materialized view m as select count(*) as n from g group by k")
                .find("body produces duplicate rows"),
            std::string::npos);
  db.exec("delete from g");
  EXPECT_NE(errorOf(db, "create materialized view m as select count(*) as n").find("reads no source table"), std::string::npos);
  // The failed creates left nothing behind.
  db.exec("create materialized view m as select id, v from g");
  EXPECT_EQ(rowsOf(db, "select count(*) from m"), "0|;");
}

TEST(MaterializedViewDdl, DeclaredShapeIsChecked) {
  Database db;
  db.exec("create table s (id integer primary key, v text not null)");
  EXPECT_NE(errorOf(db, "create table m (id integer primary key, v text not null, e integer) maintained as select id, v from s")
                .find("body produces 2 columns"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "create table m (id integer primary key, v integer not null) maintained as select id, v from s")
                .find("body derives type"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "create table m (id integer primary key, v text null) maintained as select id, v from s")
                .find("nullable"),
            std::string::npos);
  db.exec("create table m (id integer primary key, v text not null) maintained as select id, v from s");
  db.exec("insert into s values (1, 'a')");
  EXPECT_EQ(rowsOf(db, "select * from m"), "1|a|;");
}

TEST(MaterializedViewDdl, GroupedBodyColumnsCarryTheAggregateType) {
  Database db;
  db.exec("create table s (id integer primary key, g text not null, v text not null)");
  EXPECT_NE(errorOf(db, "create table m (g text not null collate binary primary key, ja real null) maintained as "
                        "select g, json_group_array(v) as ja from s group by g")
                .find("body derives type JSON for column 'ja'"),
            std::string::npos);
  db.exec("create table m (g text not null collate binary primary key, ja json null, sc text null) maintained as "
          "select g, json_group_array(v) as ja, string_concat(v) as sc from s group by g");
  db.exec("insert into s values (1, 'a', 'x'), (2, 'a', 'y')");
  EXPECT_EQ(rowsOf(db, "select sc from m"), "x,y|;");
}

TEST(MaterializedViewMaintenance, ProjectionFilterFollowsSource) {
  Database db;
  db.exec("create table t (id integer primary key, x integer, status text)");
  db.exec("create materialized view open_t as select id, x + 1 as y from t where status = 'open'");
  db.exec("insert into t values (1, 10, 'open'), (2, 20, 'closed'), (3, 30, 'open')");
  EXPECT_EQ(rowsOf(db, "select * from open_t"), "1|11|;3|31|;");
  db.exec("update t set status = 'closed' where id = 1");  // leaves the filter
  db.exec("update t set status = 'open' where id = 2");    // enters it
  db.exec("update t set id = 30 where id = 3");            // key change
  EXPECT_EQ(rowsOf(db, "select * from open_t"), "2|21|;30|31|;");
  db.exec("delete from t where id = 2");
  EXPECT_EQ(rowsOf(db, "select * from open_t"), "30|31|;");
}

TEST(MaterializedViewMaintenance, AggregateMinMaxDeletesAndGroupMoves) {
  Database db;
  db.exec("create table t (id integer primary key, g text null, v integer null)");
  const std::string body = "select g, count(*) as n, sum(v) as s, min(v) as lo, max(v) as hi, avg(v) as a from t group by g";
  db.exec("create materialized view agg as " + body);
  db.exec("insert into t values (1, 'a', 5), (2, 'a', 1), (3, 'a', 9), (4, 'b', 3)");
  expectConsistent(db, "agg", body);
  db.exec("delete from t where id = 2");  // the group's min
  EXPECT_EQ(rowsOf(db, "select lo from agg where g = 'a'"), "5|;");
  db.exec("delete from t where id = 3");  // the group's max
  EXPECT_EQ(rowsOf(db, "select hi from agg where g = 'a'"), "5|;");
  db.exec("update t set g = 'b' where id = 1");  // moves between groups; 'a' disappears
  EXPECT_EQ(rowsOf(db, "select g, n from agg"), "b|2|;");
  expectConsistent(db, "agg", body);
  db.exec("insert into t values (5, null, null)");  // a NULL group with a NULL value
  expectConsistent(db, "agg", body);
  db.exec("delete from t");
  EXPECT_EQ(rowsOf(db, "select * from agg"), "");
}

TEST(MaterializedViewMaintenance, JoinAndRebuildFloor) {
  Database db;
  db.exec("create table c (id integer primary key, name text)");
  db.exec("create table o (id integer primary key, cid integer, amt integer)");
  const std::string join = "select o.id, o.amt, c.name from o join c on o.cid = c.id";
  const std::string distinct = "select distinct amt from o";
  db.exec("create materialized view oj as " + join);
  db.exec("create materialized view od as " + distinct);
  db.exec("insert into c values (1, 'ann'), (2, 'bo')");
  db.exec("insert into o values (10, 1, 5), (11, 2, 5), (12, 1, 7)");
  expectConsistent(db, "oj", join);
  expectConsistent(db, "od", distinct);
  db.exec("update c set name = 'ANN' where id = 1");  // the partner side changes
  db.exec("delete from o where id = 11");
  expectConsistent(db, "oj", join);
  expectConsistent(db, "od", distinct);
}

TEST(MaterializedViewMaintenance, ChainsRollbackAndSavepoints) {
  Database db;
  db.exec("create table base (id integer primary key, x integer)");
  db.exec("create materialized view m1 as select id, x from base where x > 0");
  db.exec("create materialized view m2 as select id, x * 2 as x2 from m1");
  db.exec("insert into base values (1, 1), (2, -1)");
  EXPECT_EQ(rowsOf(db, "select * from m2"), "1|2|;");
  db.exec("begin");
  db.exec("insert into base values (3, 3)");
  EXPECT_EQ(rowsOf(db, "select * from m2"), "1|2|;3|6|;");  // reads see own writes
  db.exec("savepoint s");
  db.exec("update base set x = 5 where id = 2");
  EXPECT_EQ(rowsOf(db, "select * from m2"), "1|2|;2|10|;3|6|;");
  db.exec("rollback to s");
  EXPECT_EQ(rowsOf(db, "select * from m2"), "1|2|;3|6|;");
  db.exec("rollback");
  EXPECT_EQ(rowsOf(db, "select * from m1"), "1|1|;");
  EXPECT_EQ(rowsOf(db, "select * from m2"), "1|2|;");
}

TEST(MaterializedViewMaintenance, WriteThroughAndReadOnlyBackstop) {
  Database db;
  db.exec("create table t (id integer primary key, x integer)");
  db.exec("create materialized view m as select id, x from t");
  db.exec("insert into m values (1, 10)");
  EXPECT_EQ(rowsOf(db, "select * from t"), "1|10|;");
  EXPECT_EQ(rowsOf(db, "select * from m"), "1|10|;");
  EXPECT_EQ(rowsOf(db, "delete from m where id = 1 returning *"), "1|10|;");
  EXPECT_EQ(rowsOf(db, "select count(*) from m"), "0|;");
}

TEST(MaterializedViewMaintenance, StaleAfterSourceDrop) {
  Database db;
  db.exec("create table s (x integer primary key, y text)");
  db.exec("create materialized view smv as select x, y from s");
  db.exec("alter table s drop column y");
  EXPECT_NE(errorOf(db, "select * from smv").find("stale"), std::string::npos);
}

// ---- randomized differential test ---------------------------------------------------------

const char* const kBodies[] = {
    "select id, g, v from t",
    "select id, v + 1 as w from t where g <> 2",
    "select id, g, s from t where v is not null and v > 3",
    "select g, count(*) as n from t group by g",
    "select g, count(v) as n, sum(v) as s, min(v) as lo, max(v) as hi from t group by g",
    "select g, avg(v) as a, total(v) as tt from t group by g",
    "select s, max(v) as hi, count(*) as n from t group by s",
    "select count(*) as n, sum(v) as s from t",
    // backing-as-state: the counts carried by the row itself
    "select g, count(*) as n, count(v) as c, sum(v) as s, min(v) as lo, max(v) as hi from t group by g",
    "select s, max(id) as mx, count(*) as n, sum(id) as si, min(id) as mn from t where v > 3 group by s",
    "select t.id, t.v, u.name from t join u on t.g = u.id",
    "select t.id, u.name from t left join u on t.g = u.id",
    "select distinct g, s from t",
    "select id, v from t order by v",
};

class Differential {
 public:
  explicit Differential(uint32_t seed) : rng_(seed) {}

  void run(int transactions) {
    db_.exec("create table t (id integer primary key, g integer, v integer null, s text null)");
    db_.exec("create table u (id integer primary key, name text)");
    for (int i = 0; i < 4; ++i) db_.exec("insert into u values (" + std::to_string(i) + ", 'n" + std::to_string(i) + "')");
    int n = 0;
    for (const char* body : kBodies) {
      std::string name = "mv" + std::to_string(n++);
      db_.exec("create materialized view " + name + " as " + body);
      views_.emplace_back(name, body);
    }
    for (int i = 0; i < transactions; ++i) {
      transaction();
      check(i);
      if (::testing::Test::HasFailure()) return;
    }
    // The test is only as good as the writes that ran: most random statements must succeed.
    EXPECT_GT(succeeded_, transactions);
    EXPECT_GT(rowsOf(db_, "select count(*) from t"), std::string("0|;"));
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string value() { return pick(0, 5) == 0 ? "null" : std::to_string(pick(-2, 9)); }
  std::string text() { return pick(0, 4) == 0 ? "null" : "'" + std::string(1, static_cast<char>('a' + pick(0, 3))) + "'"; }

  void op() {
    int id = pick(1, 30);
    std::string ids = std::to_string(id);
    try {
      switch (pick(0, 6)) {
        case 0:
        case 1:
          db_.exec("insert or replace into t values (" + ids + ", " + std::to_string(pick(0, 4)) + ", " + value() + ", " +
                   text() + ")");
          break;
        case 2:
          db_.exec("update t set v = " + value() + " where id = " + ids);
          break;
        case 3:
          db_.exec("update t set g = " + std::to_string(pick(0, 4)) + ", s = " + text() + " where id % 5 = " +
                   std::to_string(id % 5));
          break;
        case 4:
          db_.exec("delete from t where id = " + ids);
          break;
        case 5:
          db_.exec("update t set id = " + std::to_string(pick(31, 60)) + " where id = " + ids);
          break;
        default:
          db_.exec("update u set name = 'm" + std::to_string(pick(0, 3)) + "' where id = " + std::to_string(pick(0, 4)));
      }
      ++succeeded_;
    } catch (const Error&) {
      // A key collision or similar: the statement rolled back alone.
    }
  }

  void transaction() {
    db_.exec("begin");
    int ops = pick(1, 6);
    bool savepoint = false;
    for (int i = 0; i < ops; ++i) {
      if (!savepoint && pick(0, 3) == 0) {
        db_.exec("savepoint sp");
        savepoint = true;
      }
      op();
      if (savepoint && pick(0, 4) == 0) {
        db_.exec("rollback to sp");
        db_.exec("release sp");
        savepoint = false;
      }
    }
    db_.exec(pick(0, 4) == 0 ? "rollback" : "commit");
  }

  void check(int round) {
    for (const auto& [name, body] : views_) {
      ASSERT_EQ(rowsOf(db_, "select * from " + name), rowsOf(db_, body)) << "after transaction " << round << ": " << body;
    }
  }

  Database db_;
  std::mt19937 rng_;
  int succeeded_ = 0;
  std::vector<std::pair<std::string, std::string>> views_;
};

TEST(MaterializedViewDifferential, RandomTransactionsMatchPlainEvaluation) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    Differential d(seed);
    d.run(1000);
    if (HasFailure()) return;
  }
}

// Aggregate bodies whose backing row carries the whole group state (count(*) plus counts,
// sums, min and max whose input count is known) are maintained from the backing row alone.
TEST(MaterializedViewMaintenance, BackingAsStateAggregatesFollowTransactions) {
  Database db;
  db.exec("create table t (id integer primary key, g integer not null, v integer not null, w integer null)");
  const std::string notNullBody = "select g, count(*) as n, sum(v) as s, min(v) as lo, max(v) as hi from t group by g";
  const std::string nullableBody = "select g, count(*) as n, count(w) as c, sum(w) as s, max(w) as hi from t group by g";
  db.exec("create materialized view a1 as " + notNullBody);
  db.exec("create materialized view a2 as " + nullableBody);
  db.exec("insert into t values (1, 1, 10, null), (2, 1, 20, 5), (3, 2, 30, null)");
  expectConsistent(db, "a1", notNullBody);
  expectConsistent(db, "a2", nullableBody);
  db.exec("update t set w = null where id = 2");  // group 1's only non-null w leaves: sum and max become NULL
  EXPECT_EQ(rowsOf(db, "select c, s, hi from a2 where g = 1"), "0|null|null|;");
  db.exec("delete from t where id = 1");  // group 1's min
  EXPECT_EQ(rowsOf(db, "select lo, hi from a1 where g = 1"), "20|20|;");
  db.exec("begin");
  db.exec("insert into t values (4, 3, 7, 1)");
  db.exec("savepoint s1");
  db.exec("update t set g = 3 where id = 3");  // group 2 disappears, group 3 grows
  EXPECT_EQ(rowsOf(db, "select g, n, s from a1"), "1|1|20|;3|2|37|;");
  db.exec("rollback to savepoint s1");
  EXPECT_EQ(rowsOf(db, "select g, n, s from a1"), "1|1|20|;2|1|30|;3|1|7|;");
  db.exec("rollback");
  expectConsistent(db, "a1", notNullBody);
  expectConsistent(db, "a2", nullableBody);
  EXPECT_EQ(rowsOf(db, "select g from a1"), "1|;2|;");
  db.exec("delete from t");
  EXPECT_EQ(rowsOf(db, "select * from a1"), "");
  EXPECT_EQ(rowsOf(db, "select * from a2"), "");
}

// One statement touching many groups (past the handful the delta finds by scanning) moves
// every group right, in both the backing-state and the state-store forms, and a rollback
// restores them; a statement moving rows between groups nets them per group.
TEST(MaterializedViewMaintenance, StatementTouchingManyGroups) {
  Database db;
  db.exec("create table t (id integer primary key, g integer not null, v integer not null, w integer null)");
  const std::string backingBody = "select g, count(*) as n, sum(v) as s from t group by g";
  const std::string stateBody = "select g, max(w) as hi, avg(v) as a from t group by g";
  db.exec("create materialized view a1 as " + backingBody);
  db.exec("create materialized view a2 as " + stateBody);
  db.exec("insert into t select value, value % 40, value, case when value % 3 = 0 then null else value end "
          "from generate_series(1, 400)");
  expectConsistent(db, "a1", backingBody);
  expectConsistent(db, "a2", stateBody);
  EXPECT_EQ(rowsOf(db, "select count(*) from a1"), "40|;");
  db.exec("update t set g = (g + 7) % 40, v = v + 1");  // every row changes group
  expectConsistent(db, "a1", backingBody);
  expectConsistent(db, "a2", stateBody);
  db.exec("begin");
  db.exec("delete from t where g < 25");
  EXPECT_EQ(rowsOf(db, "select count(*) from a1"), "15|;");
  expectConsistent(db, "a2", stateBody);
  db.exec("rollback");
  expectConsistent(db, "a1", backingBody);
  expectConsistent(db, "a2", stateBody);
  EXPECT_EQ(rowsOf(db, "select sum(n) from a1"), "400|;");
}

// The aggregate delta starts from what the backing already is: the first write after create

// The follower of a source (the backing a write of its rows rewrites under the same key bytes):
// a projection keyed by the source key, filtered or not; not an aggregate, not a projection whose
// key is another column, not a view gone stale. Updates and deletes looked up with it keep the
// projection equal to its body.
TEST(MaterializedViewMaintenance, FollowerIsTheBackingKeyedLikeItsSource) {
  Database db;
  Engine& engine = db.engine();
  MaterializedViewMaintainer& mvs = engine.materializedViews();
  db.exec("create table t (id integer primary key, g integer not null, v integer not null)");
  db.exec("create table u (id integer primary key, code text not null unique)");
  db.exec("insert into t select value, value % 10, value from generate_series(1, 300)");
  db.exec("insert into u select value, 'c' || value from generate_series(1, 50)");
  auto table = [&](const char* name) { return engine.catalog().findTable("main", name); };
  EXPECT_EQ(mvs.follower(*table("t")), nullptr);
  db.exec("create materialized view agg as select g, count(*) as n from t group by g");
  db.exec("create materialized view bycode as select code from u");
  EXPECT_EQ(mvs.follower(*table("t")), nullptr) << "an aggregate is keyed by its group";
  EXPECT_EQ(mvs.follower(*table("u")), nullptr) << "keyed by code, not by u's key";
  db.exec("create materialized view big as select id, v from t where v % 3 <> 0");
  ASSERT_EQ(mvs.follower(*table("t")), &table("big")->rows());
  db.exec("update t set v = v + 1 where id = 7");
  db.exec("update t set v = v + 1 where id between 20 and 40");
  db.exec("delete from t where id = 9");
  db.exec("update t set id = 1000 where id = 10");
  expectConsistent(db, "big", "select id, v from t where v % 3 <> 0");
  expectConsistent(db, "agg", "select g, count(*) as n from t group by g");
  db.exec("drop materialized view big");
  EXPECT_EQ(mvs.follower(*table("t")), nullptr);
}
// costs one group, not a rebuild of the table, and DDL elsewhere (which recompiles every
// maintained table's plans) keeps the backing's exactness and the delta's state. A state-store
// delta builds its state once, on first use. A changed source shape still rebuilds.
TEST(MaterializedViewMaintenance, AggregateDeltaSurvivesCreateAndUnrelatedDdl) {
  Database db;
  MaterializedViewMaintainer& mvs = db.engine().materializedViews();
  db.exec("create table t (id integer primary key, g integer not null, v integer not null)");
  db.exec("insert into t select value, value % 10, value from generate_series(1, 200)");
  const std::string backingBody = "select g, count(*) as n, sum(v) as s from t group by g";
  const std::string stateBody = "select g, avg(v) as a, total(v) as tv from t group by g";
  db.exec("create materialized view a1 as " + backingBody);
  uint64_t afterCreate = mvs.fullRebuilds();
  db.exec("insert into t values (201, 3, 5)");
  EXPECT_EQ(mvs.fullRebuilds(), afterCreate) << "the first write after create rebuilt the backing";
  db.exec("create table other (x integer primary key)");
  db.exec("create index t_v on t (v)");
  db.exec("update t set v = v + 1 where id = 7");
  db.exec("delete from t where id = 8");
  EXPECT_EQ(mvs.fullRebuilds(), afterCreate) << "unrelated DDL cost a rebuild";
  expectConsistent(db, "a1", backingBody);

  db.exec("create materialized view a2 as " + stateBody);
  uint64_t afterSecond = mvs.fullRebuilds();
  db.exec("insert into t values (202, 4, 9)");  // a2 builds its state: one rebuild
  EXPECT_EQ(mvs.fullRebuilds(), afterSecond + 1);
  db.exec("create table other2 (x integer primary key)");
  db.exec("begin");
  db.exec("update t set g = 5 where id = 3");
  db.exec("rollback");
  db.exec("update t set v = 0 where id = 4");
  EXPECT_EQ(mvs.fullRebuilds(), afterSecond + 1) << "unrelated DDL dropped the delta state";
  expectConsistent(db, "a1", backingBody);
  expectConsistent(db, "a2", stateBody);

  db.exec("alter table t add column z integer null");  // the source's shape: the state is rebuilt
  db.exec("insert into t (id, g, v) values (203, 1, 1)");
  EXPECT_GT(mvs.fullRebuilds(), afterSecond + 1);
  expectConsistent(db, "a1", backingBody);
  expectConsistent(db, "a2", stateBody);
}

// The delta ranks min/max inputs as the aggregate does: under the argument's collation and its
// type's semantic ordering (TIMESPAN by elapsed time), in the backing-state and the state-store
// forms, through inserts after create (no rebuild in between) and deletes of the extremum.
TEST(MaterializedViewMaintenance, AggregateExtremaRankByCollationAndSemanticType) {
  Database db;
  db.exec("create table t (id integer primary key, g integer not null, name text not null collate nocase, "
          "dur timespan not null, note text null collate nocase)");
  const std::string backingBody =
      "select g, count(*) as n, min(name) as lo, max(name) as hi, min(dur) as dlo, max(dur) as dhi from t group by g";
  const std::string stateBody = "select g, min(note) as lo, max(note) as hi, avg(id) as a from t group by g";
  db.exec("insert into t values (1, 1, 'b', 'PT30M', 'b')");
  db.exec("create materialized view a1 as " + backingBody);
  db.exec("create materialized view a2 as " + stateBody);
  const char* writes[] = {
      "insert into t values (2, 1, 'C', 'P1D', 'C')",    // text order would keep max 'b'
      "insert into t values (3, 1, 'a', 'PT2H', 'a')",
      "insert into t values (4, 1, 'Z', 'PT90M', null)",
      "insert into t values (5, 2, 'x', 'PT1H', 'Y')",
      "insert into t values (6, 2, 'X', 'PT60M', 'y')",  // equal under nocase and by elapsed time
      "delete from t where id = 2",                       // group 1's max duration leaves
      "delete from t where id = 4",                       // and its max name
      "update t set dur = 'PT1M' where id = 3",
      "delete from t where id = 5",
  };
  for (const char* w : writes) {
    db.exec(w);
    expectConsistent(db, "a1", backingBody);
    expectConsistent(db, "a2", stateBody);
  }
  EXPECT_EQ(rowsOf(db, "select g, lo, hi, dlo, dhi from a1"), "1|a|b|PT1M|PT30M|;2|X|X|PT60M|PT60M|;");
}

// ALTER TABLE … SET MAINTAINED reshapes in place when expressible: relabels, trailing appends.
TEST(MaterializedViewDdl, SetMaintainedReshapesInPlace) {
  Database db;
  db.exec("create table src (id integer primary key, x text not null, y text not null)");
  db.exec("insert into src values (1, 'a', 'A'), (2, 'b', 'B')");
  db.exec("create table p (id integer primary key)");
  db.exec("insert into p values (99)");
  db.exec("alter table p set maintained as select id, x from src");  // appends x; derived rows win
  EXPECT_EQ(rowsOf(db, "select id, x from p"), "1|a|;2|b|;");
  db.exec("insert into src values (3, 'c', 'C')");
  EXPECT_EQ(rowsOf(db, "select x from p where id = 3"), "c|;");
  db.exec("alter table p set maintained (id, z) as select id, x from src");  // relabels x -> z
  EXPECT_EQ(rowsOf(db, "select id, z from p"), "1|a|;2|b|;3|c|;");
  EXPECT_NE(errorOf(db, "alter table p set maintained (z, id) as select id, x from src").find("changed incompatibly"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "alter table p set maintained (id, z, w) as select id, x, y from src")
                .find("body produces 3 columns but the table declares 2"),
            std::string::npos);
  EXPECT_EQ(rowsOf(db, "select id, z from p"), "1|a|;2|b|;3|c|;");
  db.exec("begin");
  db.exec("alter table p set maintained as select id, x, y from src");  // bare verb: natural names, append y
  EXPECT_EQ(rowsOf(db, "select id, x, y from p where id = 1"), "1|a|A|;");
  db.exec("rollback");  // the reshape and its rows revert together
  EXPECT_EQ(rowsOf(db, "select id, z from p"), "1|a|;2|b|;3|c|;");
}

}  // namespace
}  // namespace optic
