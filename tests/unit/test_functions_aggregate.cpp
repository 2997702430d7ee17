// Aggregate built-ins: expectations from the corpus (06.6, 07, 07.5-sum-mixed, 101).
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

}  // namespace
}  // namespace optic::testing_fn
