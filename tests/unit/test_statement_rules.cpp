// Statement-level rules the binder and planner enforce, with their messages: positional ORDER BY /
// GROUP BY terms, duplicate CTE names, aggregates where none may be, ranking window functions
// without ORDER BY, RETURNING qualifiers, negative LIMIT/OFFSET, minted CHECK names after a drop,
// "not found" wording, the determinism of a DEFAULT re-checked when an INSERT fires it, aggregates
// under their argument's collation, and expression fingerprints that fold identifier case.
#include <gtest/gtest.h>

#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

class StatementRules : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("create table t (id integer primary key, a integer, b text); "
            "insert into t values (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z')");
  }
  Database db;
};

TEST_F(StatementRules, PositionalTermsOutOfRangeNameThePosition) {
  EXPECT_EQ(errorOf(db, "select a from t group by 0"), "GROUP BY position 0 is not in the SELECT list (1..1)");
  EXPECT_NE(errorOf(db, "select a from t group by 2").find("GROUP BY position 2"), std::string::npos);
  EXPECT_NE(errorOf(db, "select a from t order by -1").find("ORDER BY position -1"), std::string::npos);
  EXPECT_NE(errorOf(db, "select a, b from t order by 3").find("ORDER BY position 3"), std::string::npos);
  EXPECT_EQ(rows(db, "select a, b from t order by 2 desc"), "30|z;20|y;10|x");
  EXPECT_EQ(rows(db, "select a % 20 as m, count(*) from t group by 1 order by 1"), "0|1;10|2");
}

TEST_F(StatementRules, DuplicateCteNameIsRefused) {
  EXPECT_EQ(errorOf(db, "with c as (select 1 as x), C as (select 2 as x) select * from c"),
            "Duplicate CTE name 'C' in WITH clause");
  // A nested WITH may shadow an outer name.
  EXPECT_EQ(rows(db, "with c as (select 1 as x) select (with c as (select 2 as x) select x from c) from c"), "2");
}

TEST_F(StatementRules, AggregatesAreRefusedWhereTheyCannotBe) {
  EXPECT_NE(errorOf(db, "select * from t where count(*) > 1").find("not allowed in this context"), std::string::npos);
  EXPECT_NE(errorOf(db, "select sum(count(*)) from t").find("not allowed in this context"), std::string::npos);
}

TEST_F(StatementRules, RankingWindowFunctionsNeedOrderBy) {
  EXPECT_NE(errorOf(db, "select rank() over () from t").find("rank() requires ORDER BY clause"), std::string::npos);
  EXPECT_NE(errorOf(db, "select cume_dist() over (partition by b) from t").find("requires ORDER BY clause"),
            std::string::npos);
  EXPECT_EQ(rows(db, "select row_number() over () from t order by 1"), "1;2;3");
  EXPECT_EQ(rows(db, "select rank() over (order by a desc) from t order by a"), "3;2;1");
}

TEST_F(StatementRules, ReturningNamesOnlyTheRowImagesTheStatementHas) {
  EXPECT_EQ(errorOf(db, "insert into t values (4, 40, 'w') returning old.id"),
            "OLD qualifier cannot be used in INSERT RETURNING clause");
  EXPECT_EQ(errorOf(db, "delete from t where id = 1 returning new.id"),
            "NEW qualifier cannot be used in DELETE RETURNING clause");
  EXPECT_EQ(rows(db, "select count(*) from t"), "3");  // both refused before writing
  EXPECT_EQ(rows(db, "insert into t values (1, 11, 'q') on conflict (id) do update set a = excluded.a "
                     "returning old.a, new.a"),
            "10|11");
  EXPECT_EQ(rows(db, "delete from t where id = 2 returning old.b"), "y");
}

TEST_F(StatementRules, NegativeLimitIsZeroNegativeOffsetIsNone) {
  EXPECT_EQ(rows(db, "select id from t limit -1"), "");
  EXPECT_EQ(rows(db, "select id from t order by id limit 2 offset -5"), "1;2");
  // LIMIT NULL counts as 0, as in the reference engine (104-emit-mutation-kills); OFFSET NULL skips none.
  EXPECT_EQ(rows(db, "select id from t order by id limit null offset 1"), "");
  EXPECT_EQ(rows(db, "select id from t order by id limit 2 offset null"), "1;2");
  EXPECT_EQ(rows(db, "select id from t order by id limit 1e30"), "1;2;3");
}

TEST_F(StatementRules, MintedCheckNamesSkipLiveOnes) {
  db.exec("create table c (id integer primary key, a integer null); "
          "alter table c add check (a > 0); alter table c add check (a < 100); "
          "alter table c drop constraint check_0; alter table c add check (a <> 7)");
  EXPECT_EQ(rows(db, "select name from check_constraint_info('c') order by name"), "check_1;check_2");
  EXPECT_NE(errorOf(db, "alter table c add constraint check_1 check (a < 5)").find("already exists"), std::string::npos);
}

TEST_F(StatementRules, NotFoundSaysWhereItLooked) {
  EXPECT_EQ(errorOf(db, "drop table nope"), "Table 'nope' not found in schema path: main");
  EXPECT_EQ(errorOf(db, "drop table temp.nope"), "Table 'nope' not found in schema 'temp'");
  EXPECT_EQ(errorOf(db, "alter table nope add column z integer"), "Table 'nope' not found in schema path: main");
}

TEST_F(StatementRules, ANonDeterministicDefaultIsCheckedWhenAnInsertFiresIt) {
  db.exec("pragma nondeterministic_schema = true; "
          "create table k (id integer primary key, r real default (random())); "
          "pragma allow_nondeterministic_schema_expressions = false");
  EXPECT_EQ(rows(db, "pragma nondeterministic_schema"), "nondeterministic_schema|false");  // one option, two names
  EXPECT_NE(errorOf(db, "insert into k (id) values (1)").find("Non-deterministic expression not allowed in DEFAULT"),
            std::string::npos);
  db.exec("insert into k (id, r) values (2, 0.5)");  // the DEFAULT does not fire
  // A DEFAULT reading new.<col> is checked at INSERT time only.
  db.exec("create table n (id integer primary key, x integer, y integer default (new.x + random()))");
  EXPECT_NE(errorOf(db, "insert into n (id, x) values (1, 5)").find("Non-deterministic"), std::string::npos);
  EXPECT_EQ(rows(db, "select count(*) from k"), "1");
}

TEST_F(StatementRules, AUniqueConstraintsIndexNameIsTakenOnItsOwnTableOnly) {
  db.exec("create table u (id integer primary key, e text, constraint u_e unique (e)); "
          "create table v (id integer primary key, e text)");
  EXPECT_EQ(errorOf(db, "create index u_e on u (e)"), "Index u_e already exists on table u");
  db.exec("create index u_e on v (e)");  // the constraint's index is not a schema-wide name
  EXPECT_NE(errorOf(db, "create index u_e on u (id)").find("already exists"), std::string::npos);
}

TEST_F(StatementRules, GeneratedColumnsCannotBeAssignedByAnUpsertArm) {
  db.exec("create table g (id integer primary key, a integer, d integer generated always as (a * 2))");
  EXPECT_EQ(errorOf(db, "insert into g (id, a) values (1, 1) on conflict (id) do update set d = 5"),
            "Cannot UPDATE generated column 'd'");
  EXPECT_EQ(errorOf(db, "update g set d = 1"), "Cannot UPDATE generated column 'd'");
  EXPECT_EQ(rows(db, "select count(*) from g"), "0");
}

TEST_F(StatementRules, AggregatesBesideWindowsOrBareColumnsNeedGroupBy) {
  EXPECT_EQ(errorOf(db, "select count(*), a from t"),
            "Cannot mix aggregate and non-aggregate columns in SELECT list without GROUP BY (column 'a')");
  EXPECT_EQ(errorOf(db, "select count(*), row_number() over () from t"),
            "Cannot mix aggregate and non-aggregate columns in SELECT list without GROUP BY");
  EXPECT_EQ(rows(db, "select count(*), sum(a) from t"), "3|60");
}

TEST_F(StatementRules, MinMaxAndDistinctAggregatesFollowTheArgumentsCollation) {
  db.exec("create table n (id integer primary key, v text collate nocase); "
          "insert into n values (1, 'Bob'), (2, 'BOB'), (3, 'zed'), (4, 'alice')");
  EXPECT_EQ(rows(db, "select count(distinct v), min(v), max(v) from n"), "3|alice|zed");
  EXPECT_EQ(rows(db, "select count(distinct v collate binary), min(v collate binary) from n"), "4|BOB");
  EXPECT_EQ(rows(db, "select count(distinct v) over () from n where id < 3"), "1;1");
}

TEST_F(StatementRules, AGroupingKeyIsRecognisedWhateverTheIdentifierCase) {
  EXPECT_EQ(rows(db, "select b || '!' as k, row_number() over (order by B || '!') as rn from t group by b || '!' "
                     "order by rn"),
            "x!|1;y!|2;z!|3");
  EXPECT_EQ(rows(db, "select SUM(a), sum(A) from t"), "60|60");
  EXPECT_NE(errorOf(db, "select b || 'x', row_number() over (order by b || 'X') from t group by b || 'x'")
                .find("must appear in the GROUP BY clause"),
            std::string::npos);  // a literal's case is part of the spelling
}

}  // namespace
}  // namespace optic
