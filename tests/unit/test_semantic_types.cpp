// Declared types that change how values are written and compared (sql-core.md §1.3, §1.9):
// a write converts each cell once (never a value already of the column's type), JSON and
// TIMESPAN compare and order by their type's own compare (semanticComparand), set operations
// merge their branches' types, and an operand of unknown type (ANY) gets no guessed conversion.
#include <gtest/gtest.h>

#include "core/api/database.h"
#include "core/common/logical_type.h"
#include "core/common/value_ops.h"
#include "tests/unit/sql_test_util.h"

namespace optic {
namespace {

using testing_sql::errorOf;
using testing_sql::rows;

TEST(SemanticTypes, JsonCellsConvertOnce) {
  Database db;
  db.exec("create table j (id integer primary key, j json, v text, g json generated always as (j));"
          "insert into j values (1, '\"9\"', 'a'), (2, '\"abc\"', 'b');"
          "update j set v = 'X'; update j set j = j;"
          "create table k (id integer primary key, j json); insert into k select id, j from j");
  // The text scalar "9" stays a string: no re-parse into the number 9, no failure on "abc".
  EXPECT_EQ(rows(db, "select json_quote(j), json_quote(g), v from j order by id"), "\"9\"|\"9\"|X;\"abc\"|\"abc\"|X");
  EXPECT_EQ(rows(db, "select json_quote(j) from k order by id"), "\"9\";\"abc\"");
  // A text literal is still JSON source, and invalid source still fails naming the column.
  db.exec("update k set j = '[5,6]' where id = 1");
  EXPECT_EQ(rows(db, "select typeof(j) from k where id = 1"), "json");
  EXPECT_EQ(errorOf(db, "insert into k values (3, 'abc')"),
            "Type conversion failed for column 'j': Cannot convert 'abc' to JSON");
}

TEST(SemanticTypes, JsonComparesStructurally) {
  Database db;
  db.exec("create table t (id integer primary key, v json);"
          "insert into t values (1, '{\"a\":1,\"b\":2}'), (2, '[1,2]'), (3, '\"9\"'), (4, '42');"
          "create table c (id integer primary key, a json, b json, check (a < b))");
  EXPECT_EQ(rows(db, "select id from t where v = '{ \"b\" : 2, \"a\" : 1 }'"), "1");
  EXPECT_EQ(rows(db, "select id from t where v = 42"), "4");
  // A string scalar never equals a number (JSON type rank), and a blob is no JSON value.
  EXPECT_EQ(rows(db, "select id from t where v = 9"), "");
  EXPECT_EQ(rows(db, "select count(*) from t where v <> x'01'"), "0");
  EXPECT_EQ(rows(db, "select id from t where v in (select '[1,2]')"), "2");
  EXPECT_EQ(rows(db, "select id from t order by v"), "4;3;2;1");
  EXPECT_EQ(rows(db, "select case v when '[1, 2]' then 'hit' end from t where id = 2"), "hit");
  // Structural, not textual: {"a":2} < {"a":10}.
  EXPECT_EQ(errorOf(db, "insert into c values (1, '{\"a\":2}', '{\"a\":10}')"), "");
  EXPECT_NE(errorOf(db, "insert into c values (2, '{\"a\":10}', '{\"a\":2}')"), "");
  // An explicit COLLATE reaches two string scalars.
  EXPECT_EQ(rows(db, "select json('\"Bob\"') = json('\"bob\"') collate nocase, json('\"Bob\"') = json('\"bob\"')"),
            "true|false");
}

TEST(SemanticTypes, SetOperationsMergeBranchTypes) {
  Database db;
  db.exec("create table s (id integer primary key, j json); insert into s values (1, '\"abc\"');"
          "create table d (id integer primary key, j json);"
          "insert into d select 3, '\"9\"' union all select id, j from s");
  EXPECT_EQ(rows(db, "select json_quote(j) from d order by id"), "\"abc\";\"9\"");
  EXPECT_EQ(rows(db, "select j from s diff select '\"abc\"'"), "");
}

TEST(SemanticTypes, TimespanOrdersByElapsedTime) {
  Database db;
  db.exec("create table t (id integer primary key, d timespan);"
          "insert into t values (1, 'PT2H'), (2, 'PT90M'), (3, 'PT60M')");
  EXPECT_EQ(rows(db, "select id from t where d = 'PT1H'"), "3");
  EXPECT_EQ(rows(db, "select id from t where d > 'PT1H' order by d"), "2;1");
  EXPECT_EQ(rows(db, "select id from t where d between 'PT30M' and 'PT100M' order by id"), "2;3");
  EXPECT_EQ(rows(db, "select d, row_number() over (order by d) from t order by id"), "PT2H|3;PT90M|2;PT60M|1");
  EXPECT_EQ(rows(db, "select min(d), max(d) from t"), "PT60M|PT2H");
  // nullif/greatest/least compare by elapsed time and return the chosen argument as spelled.
  EXPECT_EQ(rows(db, "select nullif(d, 'PT120M'), greatest(d, 'PT100M'), least(d, 'PT100M') from t where id = 1"),
            "null|PT2H|PT100M");
  // A TEXT column holding the same strings keeps text order.
  db.exec("create table x (id integer primary key, d text); insert into x values (1, 'PT2H'), (2, 'PT90M')");
  EXPECT_EQ(rows(db, "select id from x order by d"), "1;2");
  EXPECT_EQ(toText(semanticComparand(Value::text("PT1H"), LogicalType::kTimespan, true)), "3600");
  EXPECT_EQ(toText(semanticComparand(Value::text("nope"), LogicalType::kTimespan, false)), "nope");
}

TEST(SemanticTypes, TimespanIdentityIsElapsedTime) {
  Database db;
  db.exec("create table k (d timespan primary key); insert into k values ('PT2H'), ('PT90M');"
          "create table t (id integer primary key, d timespan); insert into t values (1, 'PT1H'), (2, 'PT60M')");
  EXPECT_EQ(rows(db, "select d from k"), "PT90M;PT2H");  // primary-key order
  EXPECT_EQ(rows(db, "select d from k where d = 'PT120M'"), "PT2H");
  EXPECT_NE(errorOf(db, "insert into k values ('PT7200S')"), "");
  EXPECT_EQ(rows(db, "select count(*) from (select distinct d from t)"), "1");
  EXPECT_EQ(rows(db, "select count(*) from t group by d"), "2");
  EXPECT_EQ(rows(db, "select count(*) from (select d from t where id = 1 union select d from t where id = 2)"), "1");
}

TEST(SemanticTypes, UnknownTypeComparesByStorageClass) {
  Database db;
  EXPECT_EQ(rows(db, "select json_extract('{\"n\":5}', '$.n') = '5', json_extract('{\"n\":5}', '$.n') = 5"),
            "false|true");
  EXPECT_EQ(rows(db, "select 5 = '5'"), "true");
}

TEST(SemanticTypes, ArrowPathShorthands) {
  Database db;
  EXPECT_EQ(rows(db, "select '{\"name\":\"alice\"}' -> 'name', '[10,20,30]' -> 2, '[\"a\",\"b\"]' ->> 1"), "alice|30|b");
  EXPECT_EQ(rows(db, "select json_extract('{\"a\":1}', 'a')"), "null");  // the shorthand is the operator's only
}

TEST(SemanticTypes, LimitNullAndDefaultCollation) {
  Database db;
  db.exec("create table t (id integer primary key); insert into t values (1), (2)");
  EXPECT_EQ(rows(db, "select id from t limit null"), "");
  EXPECT_EQ(rows(db, "select id from t limit 5 offset null"), "1;2");
  db.exec("pragma default_collation = 'nocase'; create table c (id integer primary key, s text, d date, j json)");
  EXPECT_EQ(rows(db, "select name, collation from table_info('c') order by cid"),
            "id|BINARY;s|NOCASE;d|BINARY;j|BINARY");
}

}  // namespace
}  // namespace optic
