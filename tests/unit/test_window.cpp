// Window functions end to end (planWindows + WindowOp): ranking, navigation, frames, output
// order and the rejected forms. Expectations follow sql-core.md §5 and the 07.5 / 27.x corpus.
#include <gtest/gtest.h>

#include <string>

#include "core/api/database.h"
#include "core/common/error.h"
#include "core/common/value_ops.h"

namespace optic {
namespace {

// Rows rendered as "a|b;c|d" (NULL as "N") so a whole result is one comparison.
std::string query(Database& db, const std::string& sql) {
  std::unique_ptr<Statement> st = db.prepare(sql);
  std::string out;
  while (st->step()) {
    if (!out.empty()) out += ";";
    const Row& r = st->row();
    for (size_t i = 0; i < r.size(); ++i) out += (i ? "|" : "") + (r[i].isNull() ? std::string("N") : toText(r[i]));
  }
  return out;
}

std::string errorOf(Database& db, const std::string& sql) {
  try {
    query(db, sql);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class WindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec(
        "create table t (id integer primary key, g text, v integer null);"
        "insert into t values (1,'a',10),(2,'a',20),(3,'a',20),(4,'b',30),(5,'b',null),(6,'b',50);");
  }
  Database db;
};

TEST(GroupedAliases, AliasOutranksANonKeyColumnButNotAGroupingKey) {
  Database db;
  db.exec("create table wg (id integer primary key, a text, b text)");
  db.exec("insert into wg values (1, 'x', 'p'), (2, 'x', 'q'), (3, 'y', 'r')");
  // `b` is a column of wg but no grouping key: in the grouped scope the alias wins.
  EXPECT_EQ(query(db, "select a as b, row_number() over (order by b) as rn from wg group by a order by rn"),
            "x|1;y|2");
  // A grouping key of the same name outranks the alias.
  EXPECT_EQ(query(db, "select a as b, count(*) over (partition by b) as c from wg group by a, b order by b"),
            "x|1;x|1;y|1");
  // A correlated subquery in the specification reaches the alias of a grouping key.
  EXPECT_EQ(query(db, "select a as k, row_number() over (order by (select count(*) from wg t where t.a = k)) as rn "
                      "from wg group by a order by rn"),
            "y|1;x|2");
  // The select list itself is not widened.
  EXPECT_EQ(errorOf(db, "select a as k, k as k2 from wg group by a"), "Column not found: k");
  // Two aliases of one name over different keys are ambiguous.
  EXPECT_EQ(errorOf(db, "select a as k, b as k, row_number() over (order by k) as rn from wg group by a, b"),
            "ambiguous column name: k");
}

TEST_F(WindowTest, RankingWithTies) {
  EXPECT_EQ(query(db, "select id, rank() over (order by v), dense_rank() over (order by v) from t where g = 'a' order by id"),
            "1|1|1;2|2|2;3|2|2");
  EXPECT_EQ(query(db, "select id, percent_rank() over (order by v), cume_dist() over (order by v) from t where g = 'a' order by id"),
            "1|0|0.3333333333333333;2|0.5|1;3|0.5|1");
  EXPECT_EQ(query(db, "select id, row_number() over (partition by g order by id desc) from t order by id"),
            "1|3;2|2;3|1;4|3;5|2;6|1");
}

TEST_F(WindowTest, NtileSplitsUnevenly) {
  EXPECT_EQ(query(db, "select id, ntile(4) over (order by id) from t order by id"), "1|1;2|1;3|2;4|2;5|3;6|4");
  EXPECT_EQ(query(db, "select id, ntile(10) over (order by id) from t order by id"), "1|1;2|2;3|3;4|4;5|5;6|6");
  EXPECT_NE(errorOf(db, "select ntile(0) over (order by id) from t").find("ntile"), std::string::npos);
}

TEST_F(WindowTest, LagLeadStayInsidePartitions) {
  EXPECT_EQ(query(db, "select id, lag(id) over (partition by g order by id), lead(id, 2, -1) over (partition by g order by id) "
                      "from t order by id"),
            "1|N|3;2|1|-1;3|2|-1;4|N|6;5|4|-1;6|5|-1");
}

TEST_F(WindowTest, RowsFramesSlide) {
  EXPECT_EQ(query(db, "select id, sum(id) over (order by id rows between 1 preceding and 1 following) from t order by id"),
            "1|3;2|6;3|9;4|12;5|15;6|11");
  // min has no inverse: the frame is rebuilt as it slides.
  EXPECT_EQ(query(db, "select id, min(v) over (order by id rows between current row and 1 following) from t order by id"),
            "1|10;2|20;3|20;4|30;5|50;6|50");
  EXPECT_EQ(query(db, "select id, first_value(id) over (order by id rows 1 preceding), "
                      "last_value(id) over (order by id rows between 2 following and unbounded following) from t order by id"),
            "1|1|6;2|1|6;3|2|6;4|3|6;5|4|N;6|5|N");
  EXPECT_EQ(query(db, "select id, count(distinct v) over (order by id rows unbounded preceding) from t order by id"),
            "1|1;2|2;3|2;4|3;5|3;6|4");
}

TEST_F(WindowTest, RangeFramesUsePeersAndValues) {
  // Default frame with ORDER BY includes peers; NULL keys form their own peer group.
  EXPECT_EQ(query(db, "select id, sum(v) over (order by v) from t order by id"), "1|10;2|50;3|50;4|80;5|N;6|130");
  EXPECT_EQ(query(db, "select id, count(*) over (order by v range between 10 preceding and 10 following) from t order by id"),
            "1|3;2|4;3|4;4|3;5|1;6|1");
  EXPECT_EQ(query(db, "select id, count(*) over (order by v desc range between 10 preceding and current row) from t order by id"),
            "1|3;2|3;3|3;4|1;5|1;6|1");
  EXPECT_EQ(query(db, "select id, sum(v) over (partition by g) from t order by id"), "1|50;2|50;3|50;4|80;5|80;6|80");
}

TEST_F(WindowTest, FrameOffsetsMustBeNonNegativeIntegers) {
  EXPECT_EQ(errorOf(db, "select sum(v) over (order by v range between 1.5 preceding and current row) from t"),
            "Invalid window frame offset");
  EXPECT_EQ(errorOf(db, "select sum(v) over (order by id rows between -1 preceding and current row) from t"),
            "Invalid window frame offset");
  std::unique_ptr<Statement> st = db.prepare("select id, sum(id) over (order by id rows ? preceding) from t where id < 4");
  st->bind(1, Value::integer(1));
  std::string out;
  while (st->step()) out += toText(st->row()[1]) + ",";
  EXPECT_EQ(out, "1,3,5,");
}

// A window function called with the wrong number of arguments: the reference's wording names
// the count a fixed-arity function expects (spelled as written); lag/lead need their expression.
TEST_F(WindowTest, ArityErrorsUseTheReferenceWording) {
  EXPECT_EQ(errorOf(db, "select ntile() over (order by id) from t"), "Window function ntile expects 1 arguments, got 0");
  EXPECT_EQ(errorOf(db, "select ROW_NUMBER(5) over (order by id) from t"),
            "Window function ROW_NUMBER expects 0 arguments, got 1");
  EXPECT_EQ(errorOf(db, "select first_value(v, 2) over (order by id) from t"),
            "Window function first_value expects 1 arguments, got 2");
  EXPECT_EQ(errorOf(db, "select lag() over (order by id) from t"), "lag requires at least one argument");
  EXPECT_EQ(query(db, "select lag(v, 1, 0) over (order by id) from t where id < 3"), "0;10");
}

TEST_F(WindowTest, OutputFollowsFirstWindowOrder) {
  EXPECT_EQ(query(db, "select id, row_number() over (order by id desc), rank() over (order by id) from t"),
            "6|1|6;5|2|5;4|3|4;3|4|3;2|5|2;1|6|1");
  EXPECT_EQ(query(db, "select id from (select id, count(*) over (partition by v) as c from t)"), "5;1;2;3;4;6");
  EXPECT_EQ(query(db, "select id, row_number() over (order by id) from t where id > 100"), "");
}

TEST_F(WindowTest, WindowsOverGroups) {
  EXPECT_EQ(query(db, "select g, count(*) as c, row_number() over (order by count(*) desc, g) from t group by g order by g"),
            "a|3|1;b|3|2");
  EXPECT_EQ(query(db, "select g, count(*), sum(count(*)) over () from t group by g order by g"), "a|3|6;b|3|6");
  EXPECT_EQ(errorOf(db, "select g, row_number() over (order by max(v)) from t group by g"),
            "Aggregate function max in a window function's ORDER BY is only supported when the same aggregate also "
            "appears in the SELECT list");
}

// ORDER BY an alias after a `*`: the alias names its own output, wherever the star's columns
// put it (here the third).
TEST_F(WindowTest, OrderByAliasAfterAStar) {
  EXPECT_EQ(query(db, "select *, row_number() over (order by id desc) as rn from t order by rn limit 2"),
            query(db, "select id, g, v, row_number() over (order by id desc) as rn from t order by rn limit 2"));
  EXPECT_EQ(query(db, "select g, count(*) as n from t group by g order by n desc, g"), "a|3;b|3");
  EXPECT_EQ(query(db, "select *, id * 10 as k from t where id < 3 order by k desc"),
            query(db, "select id, g, v, id * 10 from t where id < 3 order by id desc"));
}

TEST_F(WindowTest, UnsupportedFormsAreRejected) {
  EXPECT_EQ(errorOf(db, "select row_number() over w from t window w as (order by id)"),
            "Window name references are not yet supported");
  EXPECT_EQ(errorOf(db, "select nth_value(v, 1) over (order by id) from t"), "Unknown window function: nth_value");
  EXPECT_EQ(errorOf(db, "select json_group_array(v) over (order by id) from t"),
            "Unknown window function: json_group_array");
  EXPECT_NE(errorOf(db, "select sum(v) over (order by id groups 1 preceding) from t").find("GROUPS"), std::string::npos);
  EXPECT_NE(errorOf(db, "select sum(v) over (order by id rows 1 preceding exclude ties) from t").find("EXCLUDE"),
            std::string::npos);
  EXPECT_NE(errorOf(db, "select sum(v) over (order by id, g range 1 preceding) from t").find("exactly one ORDER BY"),
            std::string::npos);
}

}  // namespace
}  // namespace optic
