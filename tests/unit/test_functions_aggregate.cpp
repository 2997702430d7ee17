// Aggregate built-ins: expectations from the corpus (06.6, 07, 07.5-sum-mixed, 101), and the
// reference's aggregate argument coercion (util/coercion.ts coerceForAggregate) end to end.
#include "core/api/database.h"
#include "tests/unit/sql_test_util.h"
#include "tests/unit/test_functions_util.h"

namespace optic::testing_fn {
namespace {

using Rows = std::vector<std::vector<Value>>;

TEST(Aggregates, EmptyAndNulls) {
  EXPECT_EQ(str(aggregate("count", {})), "0");
  EXPECT_TRUE(aggregate("sum", {}).isNull());
  EXPECT_TRUE(aggregate("avg", {}).isNull());
  EXPECT_TRUE(aggregate("max", {}).isNull());
  EXPECT_EQ(str(aggregate("total", {})), "0");
  Rows r{{N()}, {I(10)}, {N()}, {I(20)}};
  EXPECT_EQ(str(aggregate("count", r)), "2");
  EXPECT_EQ(str(aggregate("sum", r)), "30");
  EXPECT_EQ(str(aggregate("avg", r)), "15");
  EXPECT_EQ(str(aggregate("min", r)), "10");
  EXPECT_TRUE(aggregate("sum", {{N()}, {N()}}).isNull());
  // count(*) steps with no arguments.
  const AggregateFunction* countStar = builtins().findAggregate("count", 0);
  auto s = countStar->create(Collation::kBinary, LogicalType::kAny);
  s->step(Args());
  s->step(Args());
  EXPECT_EQ(str(s->finish()), "2");
}

TEST(Aggregates, SumExactAndInexact) {
  Value big = aggregate("sum", {{I(INT64_MAX)}, {I(1)}});
  EXPECT_EQ(str(big), "9223372036854775808");
  Value mixed = aggregate("sum", {{R(0.5)}, {I(9007199254740993)}});
  EXPECT_EQ(mixed.kind(), ValueKind::kReal);
  EXPECT_EQ(mixed.asReal(), 9007199254740992.0);
  EXPECT_EQ(str(aggregate("sum", {{T("2024")}, {T("2023")}})), "4047");
  EXPECT_EQ(str(aggregate("total", {{T("10")}, {T("abc")}, {T("20")}, {N()}})), "30");
  EXPECT_EQ(aggregate("sum", {{I(2)}, {I(3)}}).kind(), ValueKind::kInteger);
}

TEST(Aggregates, Statistics) {
  Rows r{{R(10)}, {R(20)}, {R(30)}};
  EXPECT_EQ(str(aggregate("var_pop", r)), "66.66666666666669");
  EXPECT_EQ(str(aggregate("var_samp", r)), "100");
  EXPECT_EQ(str(aggregate("stddev_pop", r)), "8.16496580927726");
  EXPECT_EQ(str(aggregate("stddev_samp", {{R(10)}, {R(20)}})), "7.0710678118654755");
  EXPECT_TRUE(aggregate("var_samp", {{R(7.5)}}).isNull());
  EXPECT_EQ(str(aggregate("var_pop", {{R(7.5)}})), "0");
}

TEST(Aggregates, GroupConcatAndInverse) {
  Rows r{{T("a")}, {N()}, {T("b")}, {T("c")}};
  EXPECT_EQ(str(aggregate("group_concat", r)), "a,b,c");
  EXPECT_EQ(str(aggregate("string_concat", r)), "a,b,c");
  EXPECT_EQ(str(aggregate("group_concat", {{T("a"), T("-")}, {T("b"), T("-")}})), "a-b");
  EXPECT_TRUE(aggregate("group_concat", {{N()}}).isNull());
  // One separator joins the whole group: the last non-NULL one given, ',' when none is; a NULL
  // separator keeps the one before it, and a row with a NULL value still sets it.
  EXPECT_EQ(str(aggregate("group_concat", {{T("a"), N()}, {T("b"), N()}})), "a,b");
  EXPECT_EQ(str(aggregate("group_concat", {{T("a"), T(";")}, {T("b"), N()}})), "a;b");
  EXPECT_EQ(str(aggregate("group_concat", {{T("a"), T(";")}, {T("b"), T("+")}, {N(), T("/")}})), "a/b");
  EXPECT_EQ(str(aggregate("group_concat", {{B(true)}, {R(1.5)}, {I(2)}})), "true,1.5,2");
  auto s = builtins().findAggregate("sum", 1)->create(Collation::kBinary, LogicalType::kAny);
  std::vector<Value> a{I(5)}, b{I(7)};
  s->step(Args(a.data(), 1));
  s->step(Args(b.data(), 1));
  EXPECT_TRUE(s->inverse(Args(a.data(), 1)));
  EXPECT_EQ(str(s->finish()), "7");
}

// min/max of a TIMESPAN argument rank by elapsed time and return the winning spelling.
TEST(Aggregates, MinMaxFollowTimespanOrdering) {
  auto run = [](std::string_view name) {
    auto s = builtins().findAggregate(name, 1)->create(Collation::kBinary, LogicalType::kTimespan);
    for (const char* d : {"PT30M", "P1D", "PT0S", "PT2H"}) {
      std::vector<Value> a{T(d)};
      s->step(Args(a.data(), 1));
    }
    return str(s->finish());
  };
  EXPECT_EQ(run("min"), "PT0S");
  EXPECT_EQ(run("max"), "P1D");
  // Without the type, text order: 'P1D' < 'PT0S' < 'PT2H' < 'PT30M'.
  EXPECT_EQ(str(aggregate("min", {{T("PT30M")}, {T("P1D")}})), "P1D");
}

// string_concat(x) takes one argument, joins text values only and is '' (not NULL) over no
// values at all (its accumulator starts as an empty list).
TEST(Aggregates, StringConcatJoinsTextOnly) {
  EXPECT_EQ(str(aggregate("string_concat", {{T("a")}, {I(1)}, {R(2.5)}, {B(true)}, {T("b")}})), "a,b");
  EXPECT_EQ(str(aggregate("string_concat", {})), "");
  EXPECT_EQ(str(aggregate("string_concat", {{N()}, {I(7)}})), "");
  EXPECT_EQ(builtins().findAggregate("string_concat", 2), nullptr);
}

TEST(Aggregates, ArgumentCoercionReadsNumericText) {
  auto coerced = [](Value v) {
    coerceAggregateArgument(v);
    return v;
  };
  EXPECT_EQ(coerced(T("10")).kind(), ValueKind::kInteger);
  EXPECT_EQ(str(coerced(T(" 2.5 "))), "2.5");
  EXPECT_EQ(coerced(T(" 2.5 ")).kind(), ValueKind::kReal);
  EXPECT_EQ(str(coerced(T("1e3"))), "1000");
  EXPECT_EQ(coerced(T("")).kind(), ValueKind::kText);     // blank text stays text
  EXPECT_EQ(coerced(T("   ")).kind(), ValueKind::kText);
  EXPECT_EQ(coerced(T("12abc")).kind(), ValueKind::kText);  // not wholly a number
  EXPECT_EQ(coerced(T("1e999")).kind(), ValueKind::kText);  // not finite
  EXPECT_EQ(coerced(T("2024-01-05")).kind(), ValueKind::kText);
  EXPECT_EQ(coerced(B(true)).kind(), ValueKind::kBoolean);
  // Which aggregates coerce: all but count, group_concat and the json_* family.
  for (const char* name : {"sum", "total", "avg", "min", "max", "var_pop", "stddev_samp", "string_concat"})
    EXPECT_TRUE(builtins().findAggregate(name, 1)->coercesNumericText) << name;
  EXPECT_FALSE(builtins().findAggregate("count", 1)->coercesNumericText);
  EXPECT_FALSE(builtins().findAggregate("group_concat", 1)->coercesNumericText);
  EXPECT_FALSE(builtins().findAggregate("json_group_array", 1)->coercesNumericText);
  EXPECT_FALSE(builtins().findAggregate("json_group_object", 2)->coercesNumericText);
}

TEST(Aggregates, MinMaxOverNumericTextCompareAsNumbers) {
  using testing_sql::rows;
  Database db;
  db.exec("create table s (id integer primary key, x text null)");
  db.exec("insert into s values (1, '10'), (2, '9'), (3, ' 7 '), (4, 'abc'), (5, null)");
  // '10', '9' and ' 7 ' step as 10, 9 and 7; numbers order below text, so max is 'abc'.
  EXPECT_EQ(rows(db, "select min(x), max(x), typeof(min(x)) from s"), "7|abc|integer");
  EXPECT_EQ(rows(db, "select min(x), max(x) from s where id < 3"), "9|10");
  EXPECT_EQ(rows(db, "select min(x) < 9.5, max(x) > 9.5 from s where id < 3"), "true|true");
  // DISTINCT sees the coerced values: '1' and 1 are one value for sum, two for count.
  db.exec("create table m (id integer primary key, v any null)");
  db.exec("insert into m values (1, '1'), (2, 1), (3, '2')");
  EXPECT_EQ(rows(db, "select sum(distinct v), count(distinct v) from m"), "3|3");
  // string_concat skips numeric text (it steps as a number); group_concat keeps text as text.
  EXPECT_EQ(rows(db, "select string_concat(x), group_concat(x, '/') from s"), "abc|10/9/ 7 /abc");
  EXPECT_EQ(rows(db, "select json_group_array(x) from s where id < 3"), "[\"10\",\"9\"]");
  EXPECT_EQ(rows(db, "select string_concat(x) from s where id > 5"), "");
}

}  // namespace
}  // namespace optic::testing_fn
