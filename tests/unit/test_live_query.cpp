// Live queries (core/api/live_query.h): first result, re-run only on intersecting commits,
// keyed and whole-row diffs, one delivery per commit, nothing on rollback, re-subscription after
// ALTER, stop.
#include <gtest/gtest.h>

#include "core/api/database.h"

namespace optic {
namespace {

std::string rowsText(const std::vector<Row>& rows) {
  Json j = Json::array();
  for (const Row& r : rows) {
    Json t = Json::array();
    for (const Value& v : r) t.push_back(scopeValueToJson(v));
    j.push_back(t);
  }
  return j.dump();
}

class LiveQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table t (id integer primary key, v text, g integer)");
    db.exec("insert into t values (1, 'a', 1), (2, 'b', 1), (3, 'c', 2)");
  }
  Database db;
  std::vector<LiveResult> results;
  LiveHandler collect() {
    return [this](const LiveResult& r) { results.push_back(r); };
  }
};

TEST_F(LiveQueryTest, FirstResultThenKeyedDiffs) {
  std::string id = db.live("select id, v from t where g = ? order by id", {Value::integer(1)}, collect());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].initial);
  EXPECT_EQ(rowsText(results[0].rows), R"([[1,"a"],[2,"b"]])");
  EXPECT_EQ(results[0].keyColumns, std::vector<int>{0});
  db.exec("update t set v = 'bb' where id = 2");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[1].initial);
  EXPECT_EQ(rowsText(results[1].rows), R"([[1,"a"],[2,"bb"]])");
  ASSERT_EQ(results[1].changed.size(), 1u);
  EXPECT_EQ(rowsText({results[1].changed[0].first, results[1].changed[0].second}), R"([[2,"b"],[2,"bb"]])");
  EXPECT_TRUE(results[1].added.empty());
  EXPECT_TRUE(results[1].removed.empty());
  db.exec("begin; insert into t values (4, 'd', 1); delete from t where id = 1; commit");
  ASSERT_EQ(results.size(), 3u);  // one delivery for the transaction
  EXPECT_EQ(rowsText(results[2].added), R"([[4,"d"]])");
  EXPECT_EQ(rowsText(results[2].removed), R"([[1,"a"]])");
  EXPECT_TRUE(db.stopLive(id));
  EXPECT_FALSE(db.stopLive(id));
  db.exec("insert into t values (5, 'e', 1)");
  EXPECT_EQ(results.size(), 3u);
}

TEST_F(LiveQueryTest, NoDeliveryWhenTheAnswerDidNotChangeOrOnRollback) {
  db.live("select id, v from t where g = 1", {}, collect());
  db.exec("update t set g = 5 where id = 3");  // touches t, not the answer
  db.exec("begin; update t set v = 'x' where id = 1; rollback");
  EXPECT_EQ(results.size(), 1u);
}

TEST_F(LiveQueryTest, RowScopedLiveQueryIgnoresOtherRows) {
  db.live("select v from t where id = ?", {Value::integer(3)}, collect());
  EXPECT_TRUE(results[0].keyColumns.empty());  // id is not an output column
  db.exec("update t set v = 'z' where id = 1");
  EXPECT_EQ(results.size(), 1u);
  db.exec("update t set v = 'z' where id = 3");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(rowsText(results[1].added), R"([["z"]])");
  EXPECT_EQ(rowsText(results[1].removed), R"([["c"]])");
}

TEST_F(LiveQueryTest, AggregatesDiffByTheirGroupKey) {
  std::string grouped = db.live("select g, count(*) from t group by g order by g", {}, collect());
  EXPECT_EQ(rowsText(results[0].rows), R"([[1,2],[2,1]])");
  db.exec("insert into t values (9, 'q', 2)");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[1].added.empty());
  EXPECT_TRUE(results[1].removed.empty());
  ASSERT_EQ(results[1].changed.size(), 1u);
  EXPECT_EQ(rowsText({results[1].changed[0].first, results[1].changed[0].second}), R"([[2,1],[2,2]])");
  // Without GROUP BY the one row has no key column: a whole-row diff.
  db.stopLive(grouped);
  db.live("select count(*) from t", {}, collect());
  db.exec("delete from t where id = 9");
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[3].keyColumns.empty());
  EXPECT_EQ(rowsText(results[3].added), R"([[3]])");
  EXPECT_EQ(rowsText(results[3].removed), R"([[4]])");
}

TEST_F(LiveQueryTest, AlterResubscribesAgainstTheNewSchema) {
  db.live("select * from t where id = 1", {}, collect());
  db.exec("alter table t add column w integer null");
  ASSERT_EQ(results.size(), 2u);  // the row now has a fourth column
  EXPECT_EQ(rowsText(results[1].rows), R"([[1,"a",1,null]])");
  db.exec("update t set w = 7 where id = 1");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(rowsText(results[2].rows), R"([[1,"a",1,7]])");
}

TEST_F(LiveQueryTest, HandlerWritesAreDeliveredInCommitOrder) {
  db.exec("create table log (n integer primary key)");
  std::vector<std::string> seen;
  db.live("select count(*) from log", {}, [&](const LiveResult& r) { seen.push_back(rowsText(r.rows)); });
  db.live("select count(*) from t", {}, [&](const LiveResult& r) {
    if (!r.initial) db.exec("insert into log values (1)");
  });
  db.exec("insert into t values (10, 'x', 3)");
  EXPECT_EQ(seen, (std::vector<std::string>{"[[0]]", "[[1]]"}));
}

TEST_F(LiveQueryTest, KeyedByTheProvableKeyNotByAColumnName) {
  // A grouped result is keyed by its group column, so a new count is a change, not a swap.
  db.live("select g, count(*) as n from t group by g", {}, collect());
  EXPECT_EQ(results[0].keyColumns, std::vector<int>{0});
  // An output merely named like the key is no key: v repeats.
  db.live("select v as id, g from t", {}, collect());
  EXPECT_TRUE(results[1].keyColumns.empty());
  // A renamed key column still keys; a materialized view is keyed by its own key.
  db.live("select id as k, v from t", {}, collect());
  EXPECT_EQ(results[2].keyColumns, std::vector<int>{0});
  db.exec("create materialized view per_g as select g, count(*) as n from t group by g");
  db.live("select n, g from per_g", {}, collect());
  EXPECT_EQ(results[3].keyColumns, std::vector<int>{1});
  results.clear();
  db.exec("insert into t values (20, 'q', 2)");
  ASSERT_EQ(results.size(), 4u);  // every answer changed
  int changedGroups = 0, addedRows = 0;
  for (const LiveResult& r : results) {
    if (r.changed.size() == 1 && r.added.empty() && r.removed.empty()) ++changedGroups;  // g = 2: n 1 -> 2
    if (r.added.size() == 1 && r.removed.empty() && r.changed.empty()) ++addedRows;      // the new row
  }
  EXPECT_EQ(changedGroups, 2);  // the grouped query and the materialized view
  EXPECT_EQ(addedRows, 2);      // both projections of t
}

TEST_F(LiveQueryTest, BadStatementsThrow) {
  EXPECT_THROW(db.live("select * from nope", {}, collect()), Error);
  EXPECT_THROW(db.live("select v from t where id = ?", {}, collect()), Error);  // unbound
}

}  // namespace
}  // namespace optic
