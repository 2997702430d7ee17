// Change-scope tests (core/planner/change_scope.h): the exact canonical JSON of each statement
// shape in api-and-watch.md §4's table, parameter binding, the wire form round trip and the
// union/intersect lattice.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "core/planner/change_scope.h"

namespace optic {
namespace {

class ChangeScopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table t (id integer primary key, v text, g integer null)");
    db.exec("create table u (x integer primary key, y text)");
    db.exec("create table k2 (a integer, b text, c integer null, primary key (a, b))");
  }
  // The live JSON shape of the statement's scope, compact.
  std::string scope(const std::string& sql, const std::vector<Value>& params = {}) {
    auto st = db.prepare(sql);
    ChangeScope s = params.empty() ? st->getChangeScope() : st->getChangeScope(params);
    return changeScopeToJson(s).dump();
  }
  Database db;
};

const std::string kIntParam1 = R"({"kind":"param","index":1,"type":{"typeName":"INTEGER","nullable":false}})";

TEST_F(ChangeScopeTest, KeyEqualityParameterIsRowsWithPlaceholder) {
  EXPECT_EQ(scope("select v from t where id = ?"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["id","v"],"scope":{"kind":"rows","key":["id"],"values":[[)" +
                kIntParam1 + R"(]]}}],"nonDeterministicSources":[],"unboundParameters":[1]})");
}

TEST_F(ChangeScopeTest, BoundParameterBecomesLiteral) {
  EXPECT_EQ(scope("select v from t where id = ?", {Value::integer(7)}),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["id","v"],"scope":{"kind":"rows","key":["id"],"values":[[7]]}}],"nonDeterministicSources":[],"unboundParameters":[]})");
  auto st = db.prepare("select v from t where id = ?");
  st->bind(1, Value::integer(99));
  EXPECT_EQ(changeScopeToJson(st->getChangeScope()).dump(),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["id","v"],"scope":{"kind":"rows","key":["id"],"values":[[99]]}}],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, StarAndCountAreFullAllColumns) {
  const std::string full = R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":"all","scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})";
  EXPECT_EQ(scope("select * from t"), full);
  EXPECT_EQ(scope("select count(*) from t"), full);
}

TEST_F(ChangeScopeTest, GroupByIsFullOnTheGroupColumns) {
  EXPECT_EQ(scope("select g, count(*) from t group by g"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["g"],"scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, ViewReportsTheBaseTableAndTheColumnsItsBodyReads) {
  db.exec("create view vv as select id, v from t");
  EXPECT_EQ(scope("select * from vv"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["id","v"],"scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, MaterializedViewReportsItsSourcesWholeTable) {
  db.exec("create materialized view mv as select id, v from t");
  const std::string src = R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":"all","scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})";
  EXPECT_EQ(scope("select * from mv"), src);
  EXPECT_EQ(scope("select v from mv where id = 1"), src);
  // Reading the MV and its source reports the source once.
  EXPECT_EQ(scope("select mv.v from mv join t on t.id = mv.id"), src);
}

TEST_F(ChangeScopeTest, TimeAndRandomAreNonDeterministicSources) {
  EXPECT_EQ(scope("select datetime('now'), random()"),
            R"({"watches":[],"nonDeterministicSources":[{"kind":"random"},{"kind":"time"}],"unboundParameters":[]})");
  // A clock reader over a stored value reads no clock.
  EXPECT_EQ(scope("select date(v) from t"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["v"],"scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, DmlWithoutReturningWatchesNothingButListsParameters) {
  EXPECT_EQ(scope("update t set v = ? where id = ?"),
            R"({"watches":[],"nonDeterministicSources":[],"unboundParameters":[1,2]})");
  EXPECT_EQ(scope("delete from t where id = 3"), R"({"watches":[],"nonDeterministicSources":[],"unboundParameters":[]})");
  EXPECT_EQ(scope("insert into t (id, v) select x, y from u"),
            R"({"watches":[],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, DmlWithReturningWatchesTheWriteTarget) {
  EXPECT_EQ(scope("insert into t (id, v) values (1, 'a') returning id"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":"all","scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})");
  EXPECT_EQ(scope("update t set v = 'b' where id = 1 returning v"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":"all","scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, KeyAgainstSubqueryIsFullForBothTables) {
  EXPECT_EQ(scope("select v from t where id in (select x from u)"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["id","v"],"scope":{"kind":"full"}},)"
            R"({"table":{"schema":"main","table":"u"},"columns":["x"],"scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, InListAndCompositeKeysPinEveryTuple) {
  EXPECT_EQ(scope("select v from t where id in (3, 1, 3)"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["id","v"],"scope":{"kind":"rows","key":["id"],"values":[[1],[3]]}}],"nonDeterministicSources":[],"unboundParameters":[]})");
  EXPECT_EQ(scope("select c from k2 where b = 'x' and a = 2"),
            R"({"watches":[{"table":{"schema":"main","table":"k2"},"columns":["a","b","c"],"scope":{"kind":"rows","key":["a","b"],"values":[[2,"x"]]}}],"nonDeterministicSources":[],"unboundParameters":[]})");
  // Half a key pins nothing.
  EXPECT_EQ(scope("select c from k2 where a = 2"),
            R"({"watches":[{"table":{"schema":"main","table":"k2"},"columns":["a","c"],"scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, ParameterOutsideAKeyPinIsANonDeterministicInput) {
  EXPECT_EQ(scope("select v from t where v > :lo"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["v"],"scope":{"kind":"full"}}],"nonDeterministicSources":[{"kind":"parameter","index":"lo"}],"unboundParameters":["lo"]})");
  auto st = db.prepare("select v from t where v > :lo");
  ChangeScope s = st->getChangeScope(std::map<ParamIndex, Value>{{ParamIndex("lo"), Value::text("m")}});
  EXPECT_TRUE(s.nonDeterministicSources.empty());
  EXPECT_TRUE(s.unboundParameters.empty());
}

TEST_F(ChangeScopeTest, ComplexKeyValueDegradesToFull) {
  EXPECT_EQ(scope("select v from t where id = coalesce(?, 0)"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["id","v"],"scope":{"kind":"full"}}],"nonDeterministicSources":[{"kind":"parameter","index":1}],"unboundParameters":[1]})");
}

TEST_F(ChangeScopeTest, JoinsAndSelfJoinsMergePerTable) {
  EXPECT_EQ(scope("select a.v from t a join t b on a.id = b.g"),
            R"({"watches":[{"table":{"schema":"main","table":"t"},"columns":["g","id","v"],"scope":{"kind":"full"}}],"nonDeterministicSources":[],"unboundParameters":[]})");
}

TEST_F(ChangeScopeTest, WireFormRoundTrips) {
  auto st = db.prepare("select v from t where id = ? and 1 = 1");
  ChangeScope live = st->getChangeScope();
  Json wire = serializeChangeScope(live);
  EXPECT_EQ(wire["watches"][0]["scope"]["values"][0][0].dump(), R"({"p":1,"t":{"typeName":"INTEGER","nullable":false}})");
  ChangeScope back = deserializeChangeScope(Json::parse(wire.dump()));
  EXPECT_EQ(changeScopeToJson(back).dump(), changeScopeToJson(live).dump());
  ChangeScope lit = st->getChangeScope({Value::integer(int64_t{1} << 60)});
  Json w2 = serializeChangeScope(lit);
  EXPECT_EQ(w2["watches"][0]["scope"]["values"][0][0].dump(), R"({"v":{"$bigint":"1152921504606846976"}})");
  EXPECT_EQ(serializeChangeScope(deserializeChangeScope(w2)).dump(), w2.dump());
  EXPECT_THROW(deserializeChangeScope(Json::parse(R"({"watches":[{"table":{"table":"t"},"scope":{"kind":"nope"}}]})")), Error);
  EXPECT_THROW(deserializeChangeScope(Json::parse(R"({"watches":[{"table":{"table":"t"},"scope":{"kind":"rows","key":["id"],"values":[[{"v":1},{"v":2}]]}}]})")), Error);
}

ChangeScope rowsScope(const std::string& table, const std::string& key, std::vector<int64_t> values) {
  ChangeScope s;
  TableWatch w;
  w.schema = "main";
  w.table = table;
  w.scope.kind = WatchKind::kRows;
  w.scope.columns = {key};
  for (int64_t v : values) w.scope.values.push_back({ScopeValue::literal(Value::integer(v))});
  s.watches.push_back(w);
  canonicalize(s);
  return s;
}

TEST(ChangeScopeLattice, UnionMergesSameKeyRowsAndWidensMismatches) {
  ChangeScope u = unionScopes(rowsScope("t", "id", {2}), rowsScope("t", "id", {1, 2}));
  EXPECT_EQ(changeScopeToJson(u)["watches"][0]["scope"].dump(), R"({"kind":"rows","key":["id"],"values":[[1],[2]]})");
  ChangeScope m = unionScopes(rowsScope("t", "id", {1}), rowsScope("t", "v", {1}));
  EXPECT_EQ(changeScopeToJson(m)["watches"][0]["scope"].dump(), R"({"kind":"full"})");
  ChangeScope full;
  full.watches.push_back(TableWatch{"main", "t", true, {}, {}});
  EXPECT_EQ(changeScopeToJson(unionScopes(full, rowsScope("t", "id", {1})))["watches"][0]["scope"].dump(), R"({"kind":"full"})");
  EXPECT_EQ(unionScopes(rowsScope("t", "id", {1}), rowsScope("u", "x", {1})).watches.size(), 2u);
}

TEST(ChangeScopeLattice, IntersectNarrows) {
  ChangeScope i = intersectScopes(rowsScope("t", "id", {1, 2, 3}), rowsScope("t", "id", {2, 3, 4}));
  EXPECT_EQ(changeScopeToJson(i)["watches"][0]["scope"].dump(), R"({"kind":"rows","key":["id"],"values":[[2],[3]]})");
  EXPECT_TRUE(intersectScopes(rowsScope("t", "id", {1}), rowsScope("t", "id", {2})).watches.empty());
  EXPECT_TRUE(intersectScopes(rowsScope("t", "id", {1}), rowsScope("u", "x", {1})).watches.empty());
  ChangeScope full;
  full.watches.push_back(TableWatch{"main", "t", true, {}, {}});
  EXPECT_EQ(changeScopeToJson(intersectScopes(full, rowsScope("t", "id", {5})))["watches"][0]["scope"].dump(),
            R"({"kind":"rows","key":["id"],"values":[[5]]})");
}

TEST(ChangeScopeLattice, EmptinessEverythingAndHash) {
  ChangeScope none;
  EXPECT_TRUE(isEmpty(none));
  ChangeScope full;
  full.watches.push_back(TableWatch{"main", "t", true, {}, {}});
  EXPECT_FALSE(isEmpty(full));
  EXPECT_TRUE(describesEverything(full));
  EXPECT_FALSE(describesEverything(rowsScope("t", "id", {1})));
  std::string h = scopeHash(rowsScope("t", "id", {1, 2}));
  EXPECT_EQ(h.size(), 6u);
  EXPECT_EQ(h, scopeHash(rowsScope("t", "id", {2, 1})));  // canonical: same constraints, same hash
  EXPECT_NE(h, scopeHash(rowsScope("t", "id", {3})));
}

}  // namespace
}  // namespace optic
