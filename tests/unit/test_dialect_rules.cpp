// The reference's general rules, end to end: parenthesised scalar subqueries and the operator
// precedence ladder (core/parser/parser.cpp), the plan-time type of a computed comparison operand
// (core/planner/expr_binder.cpp numericResultType), the collation lattice (mergeCollations),
// strict text-to-number conversion (core/common/logical_type.cpp), exact integer literals past
// int64 (core/parser/parser.cpp), numeric aggregates, TIMESPAN negation, the ISO shape checks,
// ALTER INDEX … TAGS and the reference's error wording.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;  // tests/unit/sql_test_util.h
using testing_sql::rows;

TEST(DialectRules, ParenthesisedScalarSubqueryInsideAnExpression) {
  Database db;
  EXPECT_EQ(rows(db, "select ((select 1) * 2)"), "2");
  EXPECT_EQ(rows(db, "select ((select 1))"), "1");
  EXPECT_EQ(rows(db, "select (select 1) + (select 2)"), "3");
  EXPECT_EQ(rows(db, "select ((select 2) - (select 1)) * 10"), "10");
  EXPECT_EQ(rows(db, "select 1 in ((select 1)), 3 in ((select 1), 3)"), "true|true");
  EXPECT_EQ(rows(db, "select ((select 1) union select 2 order by 1 desc limit 1)"), "2");
  EXPECT_EQ(rows(db, "select coalesce(((select null)), 7)"), "7");
}

TEST(DialectRules, PrecedenceFollowsTheReference) {
  Database db;
  // NOT over the IS predicate: not (exists(…) is null).
  EXPECT_EQ(rows(db, "select not exists (select 1) is null"), "true");
  EXPECT_EQ(rows(db, "select not exists (select 1 where false)"), "true");
  // IS tests the whole comparison: (-100 = 10.1) is not null.
  EXPECT_EQ(rows(db, "select -100 = 10.1 is not null"), "true");
  EXPECT_EQ(rows(db, "select 1 = 2 is false"), "true");
  EXPECT_EQ(rows(db, "select null = 1 is null"), "true");
  // Unary minus takes the whole concatenation.
  EXPECT_EQ(rows(db, "select -'1' || '2'"), "-12");
  // NOT binds above every predicate.
  EXPECT_EQ(rows(db, "select not 1 between 2 and 3, not 'a' like 'b', not 1 in (2)"), "true|true|true");
}

TEST(DialectRules, IsOperandNamesItsGrouping) {
  Database db;
  auto names = db.prepare("select -100 = 10.1 is not null, (1 = 1) is true, 1 is null")->columnNames();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], "(-100 = 10.1) is not null");
  EXPECT_EQ(names[1], "(1 = 1) is true");
  EXPECT_EQ(names[2], "1 is null");
}

TEST(DialectRules, ComputedNumberOperandConvertsTheText) {
  Database db;
  db.exec("create table t (id integer primary key, n integer, s text)");
  db.exec("insert into t values (1, 2, '2.5'), (2, 1, '2.5')");
  // n * 1.5 is REAL, so the TEXT side converts: 3.0 >= 2.5 and 1.5 >= 2.5.
  EXPECT_EQ(rows(db, "select id from t where n * 1.5 >= s order by id"), "1");
  EXPECT_EQ(rows(db, "select id from t where s <= n + 0.5 order by id"), "1");
  // INTEGER arithmetic converts the text to INTEGER, as a column would ('2.5' → 2).
  EXPECT_EQ(rows(db, "select id from t where n + 0 = s order by id"), "1");
  EXPECT_EQ(rows(db, "select id from t where -n < '0' order by id"), "1;2");
  // An aggregate over text keeps its argument's type; a FROM subquery's column its expression's.
  EXPECT_EQ(rows(db, "select min('2.5') < 10.5, max('10') > 9"), "true|true");
  EXPECT_EQ(rows(db, "select s < 10.5 from (select '2.5' as s)"), "true");
  EXPECT_EQ(rows(db, "select x from (select n * 1.5 as x from t) where x >= '2'"), "3");
  // A quotient of integers may be inexact, so it is NUMERIC: the text converts exactly, and a
  // materialized view's column over it is not typed INTEGER.
  EXPECT_EQ(rows(db, "select id from t where n / 4 = '0.5' order by id"), "1");
  db.exec("create materialized view q as select id, n / 4 as h from t");
  EXPECT_EQ(rows(db, "select h from q order by id"), "0.5;0.25");
  EXPECT_EQ(rows(db, "select type from table_info('q') where name = 'h'"), "NUMERIC");
  // An operand whose type is unknown until run time still compares by storage class.
  EXPECT_EQ(rows(db, "select json_extract('{\"a\":1}', '$.a') = '1'"), "false");
}

TEST(DialectRules, TextIntoNumberColumns) {
  Database db;
  db.exec("create table n (id integer primary key, i integer null, r real null, m numeric null)");
  db.exec("insert into n values (1, '', '', ''), (2, ' 12abc ', '1.5x', '7'), (3, '1.9', '-Infinity', '2.5')");
  EXPECT_EQ(rows(db, "select i, r, m from n order by id"), "null|null|null;12|1.5|7;1|-Infinity|2.5");
  EXPECT_EQ(rows(db, "select typeof(m) from n where id = 2"), "integer");
  EXPECT_EQ(errorOf(db, "insert into n values (4, 'abc', null, null)"),
            "Type conversion failed for column 'i': Cannot convert 'abc' to INTEGER");
  db.exec("create table nn (id integer primary key, i integer)");
  EXPECT_EQ(errorOf(db, "insert into nn values (1, '')"), "NOT NULL constraint failed: nn.i");
  EXPECT_EQ(rows(db, "select integer(''), integer('42 apples'), real(' 2.5 ')"), "null|42|2.5");
}

TEST(DialectRules, IsoShapeChecks) {
  Database db;
  EXPECT_EQ(rows(db, "select IsISODate('2024-02-29'), IsISODate(' 2024-01-31 '), isisodate('2023-02-29'), "
                     "IsISODate('2024-1-05'), IsISODate('2024-01-05T00:00'), IsISODate(null), IsISODate(20240105)"),
            "true|true|false|false|false|false|false");
  EXPECT_EQ(rows(db, "select IsISODateTime('2024-01-05T10:30'), IsISODateTime('2024-01-05T10:30:15.123456789Z'), "
                     "IsISODateTime('2024-01-05T10:30:15+05:30'), IsISODateTime('2024-01-05 10:30'), "
                     "IsISODateTime('2024-01-05T24:00'), IsISODateTime('2024-01-05T10:30:15.1234567890'), "
                     "IsISODateTime('2024-01-05T10:30+24:00'), IsISODateTime('2024-01-05')"),
            "true|true|true|false|false|false|false|false");
}

// Integer literals have no 64-bit clamp (sql-core.md §1.1): a literal past int64 is the exact big
// integer, and unary minus and arithmetic keep it exact.
TEST(DialectRules, IntegerLiteralsBeyondInt64AreExact) {
  Database db;
  EXPECT_EQ(rows(db, "select 99999999999999999999999999, typeof(99999999999999999999999999)"),
            "99999999999999999999999999|integer");
  EXPECT_EQ(rows(db, "select -9223372036854775808, -9223372036854775808 - 1, 9223372036854775808 + 1"),
            "-9223372036854775808|-9223372036854775809|9223372036854775809");
  EXPECT_EQ(rows(db, "select -9223372036854775808 = -9223372036854775807 - 1"), "true");
  EXPECT_EQ(rows(db, "select 18446744073709551616 > 18446744073709551615"), "true");
  db.exec("create table d (id integer primary key, v integer default -99999999999999999999)");
  db.exec("insert into d (id) values (1)");
  EXPECT_EQ(rows(db, "select v from d"), "-99999999999999999999");
}

// FILTER (WHERE …) and ORDER BY inside a call are not part of the dialect: refused on scalar
// calls as on aggregate ones, never silently ignored.
TEST(DialectRules, FilterAndOrderByInsideACallAreRefused) {
  Database db;
  EXPECT_EQ(errorOf(db, "select abs(1) filter (where 1)"), "not supported yet: aggregate FILTER clause");
  EXPECT_EQ(errorOf(db, "select count(*) filter (where 1)"), "not supported yet: aggregate FILTER clause");
  EXPECT_EQ(errorOf(db, "select abs(-1 order by 1)"), "not supported yet: ORDER BY inside aggregate calls");
  EXPECT_EQ(errorOf(db, "select group_concat('a' order by 1)"), "not supported yet: ORDER BY inside aggregate calls");
}

// A scalar's static result follows the reference's inferReturnType, as a maintained table's
// strict shape gate reads it: abs/round/floor/ceil/sqrt/clamp take their first argument's type;
// abs/round/floor/ceil/sqrt and the string functions are declared NOT NULL, clamp nullable.
TEST(DialectRules, ScalarResultTypesAndNullabilityFollowTheReference) {
  Database db;
  db.exec("create table t (id integer primary key, v integer, r real, s text)");
  db.exec("create table m (id integer primary key, a integer, b integer, c real, d real, e integer null, "
          "u text, l integer) maintained as select id, abs(v) as a, floor(v) as b, sqrt(r) as c, "
          "round(r) as d, clamp(v, 0, 9) as e, upper(s) as u, length(s) as l from t");
  db.exec("insert into t values (1, -5, 2.25, 'ab')");
  EXPECT_EQ(rows(db, "select a, b, c, d, e, u, l from m"), "5|-5|1.5|2|0|AB|2");
  EXPECT_NE(errorOf(db, "create table m2 (id integer primary key, a real) maintained as select id, abs(v) as a from t")
                .find("body derives type INTEGER for column 'a'"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "create table m3 (id integer primary key, e integer) maintained as select id, clamp(v, 0, 9) as e from t")
                .find("body derives it nullable"),
            std::string::npos);
}

TEST(DialectRules, NumericAggregatesSkipWhatNamesNoNumber) {
  Database db;
  db.exec("create table a (id integer primary key, v text null)");
  db.exec("insert into a values (1, '10'), (2, 'abc'), (3, '20'), (4, null)");
  EXPECT_EQ(rows(db, "select sum(v), avg(v), total(v), count(v) from a"), "30|15|30|3");
  EXPECT_EQ(rows(db, "select sum(v), avg(v), total(v), var_pop(v) from a where id = 2"), "null|null|0|null");
}

TEST(DialectRules, UnaryMinusNegatesADuration) {
  Database db;
  EXPECT_EQ(rows(db, "select -timespan('PT1H'), -'P1D', -'-PT30M', -'12', -'abc'"), "-PT1H|-P1D|PT30M|-12|null");
  db.exec("create table s (id integer primary key, d timespan)");
  db.exec("insert into s values (1, 'PT90M')");
  EXPECT_EQ(rows(db, "select -d from s"), "-PT90M");
}

TEST(DialectRules, CollationLatticeOfTheReference) {
  Database db;
  db.exec("create table a (id integer primary key, name text collate nocase)");
  db.exec("create table b (id integer primary key, name text collate rtrim)");
  db.exec("insert into a values (1, 'X')");
  db.exec("insert into b values (1, 'x')");
  const std::string declared =
      "ambiguous collation for comparison: column collations NOCASE vs RTRIM differ; apply an explicit COLLATE";
  EXPECT_EQ(errorOf(db, "select id from a where name in (select name from b)"), declared);
  EXPECT_EQ(errorOf(db, "select a.id from a join b on a.name in (b.name, 'y')"), declared);
  EXPECT_EQ(errorOf(db, "select name from a union select name from b"), declared);
  EXPECT_EQ(errorOf(db, "select 1 where 'a' collate nocase in ('A' collate rtrim)"),
            "conflicting COLLATE clauses in comparison: NOCASE vs RTRIM");
  // UNION ALL compares nothing; an explicit COLLATE outranks both columns.
  EXPECT_EQ(rows(db, "select name from a union all select name from b"), "X;x");
  EXPECT_EQ(rows(db, "select a.id from a join b on a.name = b.name collate nocase"), "1");
  EXPECT_EQ(rows(db, "select id from a where name in ('x', 'y')"), "1");
}

TEST(DialectRules, AlterIndexTags) {
  Database db;
  db.exec("create table t (id integer primary key, a integer, constraint u unique (a))");
  db.exec("create index ix on t (a) with tags (owner = 'x')");
  const std::string tags = "select json_extract(tags, '$.owner'), json_extract(tags, '$.purpose') from schema() "
                           "where type = 'index' and name = 'ix'";
  db.exec("alter index ix add tags (purpose = 'lookup')");
  EXPECT_EQ(rows(db, tags), "x|lookup");
  db.exec("alter index main.IX add tags (owner = 'y')");
  EXPECT_EQ(rows(db, tags), "y|lookup");
  EXPECT_EQ(errorOf(db, "alter index ix drop tags (owner, nope, other)"), "Tag key(s) not found: nope, other");
  EXPECT_EQ(rows(db, tags), "y|lookup");
  db.exec("alter index ix drop tags (owner)");
  EXPECT_EQ(rows(db, tags), "null|lookup");
  db.exec("alter index ix set tags (owner = 'z')");
  EXPECT_EQ(rows(db, tags), "z|null");
  EXPECT_EQ(errorOf(db, "alter index nope set tags (a = 1)"), "Index 'nope' not found in schema 'main'");
  // A UNIQUE constraint's structure carries the constraint's tags, not its own.
  EXPECT_EQ(errorOf(db, "alter index u set tags (a = 1)"), "Index 'u' not found in schema 'main'");
}

TEST(DialectRules, NamesResolveByTheReferenceScopeKeys) {
  Database db;
  db.exec("create table wg (id integer primary key, a text, b text)");
  db.exec("insert into wg values (1, 'x', '2'), (2, 'y', '1'), (3, 'x', '3')");
  // A quoted name holding a dot reaches the qualified column when no column is named so.
  EXPECT_EQ(rows(db, "select id from wg where \"wg.b\" = '1'"), "2");
  // An alias holding a dot is not a name: "wg.b" below is the grouping key b, not the alias of a.
  EXPECT_EQ(rows(db, "select wg.a as \"wg.b\", row_number() over (order by \"wg.b\") as rn from wg "
                     "group by wg.a, wg.b order by rn"),
            "y|1;x|2;x|3");
  // A subquery's correlated reference to a column that is not a grouping key breaks the GROUP BY
  // rule, as a bare one would.
  EXPECT_EQ(errorOf(db, "select a, row_number() over (order by (select max(t.b) from wg t where t.b = wg.b)) as rn "
                        "from wg group by a"),
            "Column 'wg.b' must appear in the GROUP BY clause or be used in an aggregate function");
  EXPECT_EQ(errorOf(db, "select nope from wg"), "Column not found: nope");
}

TEST(DialectRules, ReferenceErrorWording) {
  Database db;
  EXPECT_EQ(errorOf(db, "create table d (id integer primary key, a integer, constraint c check (a > 0), "
                        "constraint C unique (a))"),
            "Cannot create table 'd': duplicate constraint name 'C' — constraint names must be unique within a "
            "table (case-insensitive, across CHECK / UNIQUE / FOREIGN KEY)");
  db.exec("create table t (id integer primary key, a integer, b integer, constraint ck check (a > 0), "
          "constraint ck2 check (b > 0))");
  EXPECT_EQ(errorOf(db, "alter table t add constraint CK check (a < 9)"),
            "Cannot add constraint 'CK' to table 't': a constraint with that name already exists");
  EXPECT_EQ(errorOf(db, "alter table t rename constraint ck2 to ck"),
            "Cannot rename constraint to 'ck': a constraint with that name already exists in table 't'");
  EXPECT_EQ(errorOf(db, "select 1 union select 1, 2"), "SET operation column count mismatch: left has 1, right has 2");
  EXPECT_EQ(errorOf(db, "select a from t order by 2"), "ORDER BY position 2 is not in the SELECT list (1..1)");
  EXPECT_EQ(errorOf(db, "select a from t group by 0"), "GROUP BY position 0 is not in the SELECT list (1..1)");
  EXPECT_NE(errorOf(db, "insert or ignore into t values (1, 1, 1) on conflict do nothing")
                .find("Cannot use both 'INSERT OR ...' and 'ON CONFLICT' in the same statement."),
            std::string::npos);
}

// No value grows past 1 GiB (core/common/value_limits.h): a function asked to build more fails
// the statement with SQLite's message before it allocates, and the database goes on working. The
// sizes just under the limit's neighbourhood are not built here (a test allocating a gigabyte);
// modest sizes show the functions still build what they are asked for.
TEST(DialectRules, ValueSizeLimitFailsTheStatementNotTheProcess) {
  Database db;
  db.exec("create table t (id integer primary key, s text)");
  db.exec("insert into t values (1, 'x')");
  const char* tooBig[] = {
      "select lpad('x', 100000000000)",
      "select rpad(s, 600000000, 'é') from t",  // 600M two-byte pads
      "select replace(hex(zeroblob(1000000)), '0', hex(zeroblob(1000)))",  // 2e6 hits × 2000 bytes
      "select zeroblob(2000000000)",
      "insert into t values (2, lpad('y', 5000000000))",
  };
  for (const char* sql : tooBig) EXPECT_EQ(errorOf(db, sql), "string or blob too big") << sql;
  EXPECT_EQ(rows(db, "select count(*), max(id) from t"), "1|1");  // the refused insert wrote nothing
  EXPECT_EQ(rows(db, "select length(lpad('x', 1000000)), length(rpad('x', 10, 'ab'))"), "1000000|10");
  EXPECT_EQ(rows(db, "select length(replace(hex(zeroblob(1000)), '0', 'abc'))"), "6000");
  EXPECT_EQ(rows(db, "select length(zeroblob(1000000))"), "1000000");
}

// 'now' is the statement's time: read once, when a function first asks, and the same for every
// row after (a long query, an INSERT of many rows), while the next statement reads again.
TEST(TemporalNow, IsOneInstantForTheWholeStatement) {
  Database db;
  EXPECT_EQ(rows(db, "select count(distinct strftime('%Y-%m-%d %H:%M:%S%f', 'now')) from generate_series(1, 50000)"), "1");
  db.exec("create table t (id integer primary key, at text)");
  db.exec("insert into t select value, strftime('%Y-%m-%d %H:%M:%S%f', 'now') from generate_series(1, 50000)");
  EXPECT_EQ(rows(db, "select count(distinct at) from t"), "1");
  EXPECT_EQ(rows(db, "select min(at) > '2026-01-01' from t"), "true");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  db.exec("insert into t values (50001, strftime('%Y-%m-%d %H:%M:%S%f', 'now'))");
  EXPECT_EQ(rows(db, "select count(distinct at) from t"), "2");
  EXPECT_EQ(rows(db, "select (select at from t where id = 50001) > (select at from t where id = 1)"), "true");
}

}  // namespace
}  // namespace optic
