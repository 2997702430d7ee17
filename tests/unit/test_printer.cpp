// Printer tests: canonical expression names (sql-core.md §2 "Result column names").
// Expected strings are result-column keys taken from the spec and the conformance corpus.
#include <gtest/gtest.h>

#include "core/parser/parser.h"
#include "core/parser/printer.h"

namespace optic {
namespace {

std::string reprint(const std::string& sql) { return printExpr(*parseExpression(sql)); }

std::string reprintQuery(const std::string& sql) {
  auto stmts = parseSql(sql);
  return printSelect(*stmts.at(0)->select);
}

TEST(PrinterTest, BinaryOperatorsGetSingleSpaces) {
  EXPECT_EQ(reprint("i+1"), "i + 1");
  EXPECT_EQ(reprint("a  +  b"), "a + b");
  EXPECT_EQ(reprint("t=='world'"), "t == 'world'");
  EXPECT_EQ(reprint("a <> b"), "a != b");
  EXPECT_EQ(reprint("int_val < real_val"), "int_val < real_val");
  EXPECT_EQ(reprint("1 / 0"), "1 / 0");
}

TEST(PrinterTest, KeywordsLowerCase) {
  EXPECT_EQ(reprint("NOT (n = 0)"), "not (n = 0)");
  EXPECT_EQ(reprint("null_val IS NULL"), "null_val is null");
  EXPECT_EQ(reprint("x IS NOT NULL"), "x is not null");
  EXPECT_EQ(reprint("CAST(x AS TEXT)"), "cast(x as text)");
  EXPECT_EQ(reprint("x BETWEEN 1 AND 2"), "x between 1 and 2");
  EXPECT_EQ(reprint("CASE WHEN a THEN 'x' ELSE 'y' END"), "case when a then 'x' else 'y' end");
  EXPECT_EQ(reprint("x COLLATE NOCASE"), "x collate nocase");
  EXPECT_EQ(reprint("NULL"), "null");
  EXPECT_EQ(reprint("x IS TRUE"), "x is true");
}

TEST(PrinterTest, ParenthesesOnlyWherePrecedenceNeedsThem) {
  EXPECT_EQ(reprint("(i > 1) XOR (n < 0)"), "i > 1 xor n < 0");
  EXPECT_EQ(reprint("(a + b) * c"), "(a + b) * c");
  EXPECT_EQ(reprint("a + (b * c)"), "a + b * c");
  EXPECT_EQ(reprint("a - (b - c)"), "a - (b - c)");
  EXPECT_EQ(reprint("(a - b) - c"), "a - b - c");
  EXPECT_EQ(reprint("a + (b + c)"), "a + b + c");
  EXPECT_EQ(reprint("(a or b) and c"), "(a or b) and c");
}

TEST(PrinterTest, UnaryOperatorsHaveNoSpace) {
  EXPECT_EQ(reprint("-i"), "-i");
  EXPECT_EQ(reprint("- -1"), "--1");
  EXPECT_EQ(reprint("~-1"), "~-1");
  EXPECT_EQ(reprint("-(a + b)"), "-(a + b)");
  EXPECT_EQ(reprint("coalesce(min(val), -1)"), "coalesce(min(val), -1)");
}

// Query text printed to be read again (a stored view body) keeps a space in a minus over a
// minus, where a column name does not: `--` would re-read as a comment.
TEST(PrinterTest, QueryTextKeepsANestedMinusReparsable) {
  EXPECT_EQ(reprint("- -x"), "--x");  // the column name
  EXPECT_EQ(reprintQuery("select - -x as y, -(-1) as z from t"), "select - -x as y, - -1 as z from t");
  EXPECT_EQ(reprintQuery(reprintQuery("select - -x as y from t")), "select - -x as y from t");
}

TEST(PrinterTest, NotInPrintsNotOverIn) { EXPECT_EQ(reprint("a NOT IN (1,2)"), "not a in (1, 2)"); }

TEST(PrinterTest, LiteralsKeepSpelling) {
  EXPECT_EQ(reprint("2.0"), "2.0");
  EXPECT_EQ(reprint("1e3"), "1e3");
  EXPECT_EQ(reprint("9007199254740993 + 1"), "9007199254740993 + 1");
  EXPECT_EQ(reprint("X'01FF'"), "x'01ff'");
  EXPECT_EQ(reprint("'it''s'"), "'it''s'");
  EXPECT_EQ(reprint("true"), "true");
}

TEST(PrinterTest, Functions) {
  EXPECT_EQ(reprint("COUNT(*)"), "count(*)");
  EXPECT_EQ(reprint("count(DISTINCT grp)"), "count(distinct grp)");
  EXPECT_EQ(reprint("group_concat(val,'|')"), "group_concat(val, '|')");
  EXPECT_EQ(reprint("like('12%', n)"), "like('12%', n)");
  EXPECT_EQ(reprint("replace('aabbcc', 'b', 'x')"), "replace('aabbcc', 'b', 'x')");
  EXPECT_EQ(reprint("typeof(9007199254740993 + 1.5)"), "typeof(9007199254740993 + 1.5)");
}

TEST(PrinterTest, JsonArrowsPrintAsJsonExtract) {
  EXPECT_EQ(reprint("'{\"a\":1}' -> '$.a'"), "json_extract('{\"a\":1}', '$.a')");
  EXPECT_EQ(reprint("x ->> 'p'"), "cast(json_extract(x, 'p') as text)");
}

TEST(PrinterTest, WindowCalls) {
  EXPECT_EQ(reprint("row_number() OVER (ORDER BY v)"), "row_number() over (order by v)");
  EXPECT_EQ(reprint("sum(x) over (partition by g order by v desc)"),
            "sum(x) over (partition by g order by v desc)");
}

TEST(PrinterTest, Subqueries) {
  EXPECT_EQ(reprint("(SELECT max(val) FROM inner_t)"), "(select max(val) from inner_t)");
  EXPECT_EQ(reprint("EXISTS (SELECT 1)"), "exists (select 1)");
  EXPECT_EQ(reprint("x IN (SELECT y FROM t)"), "x in (select y from t)");
}

TEST(PrinterTest, Parameters) {
  EXPECT_EQ(reprint("?"), "?");
  EXPECT_EQ(reprint(":val"), ":val");
}

TEST(PrinterTest, IdentifiersQuotedOnlyWhenNeeded) {
  EXPECT_EQ(reprint("t1.Name"), "t1.Name");
  EXPECT_EQ(reprint("\"My Col\" + 1"), "\"My Col\" + 1");
}

TEST(PrinterTest, CanonicalQueryText) {
  EXPECT_EQ(reprintQuery("SELECT a, b AS c FROM t WHERE a > 1 ORDER BY b DESC LIMIT 5"),
            "select a, b as c from t where a > 1 order by b desc limit 5");
  EXPECT_EQ(reprintQuery("select * from a left join b on a.id = b.id"),
            "select * from a left join b on a.id = b.id");
  EXPECT_EQ(reprintQuery("select 1 union all select 2"), "select 1 union all select 2");
  EXPECT_EQ(reprintQuery("values (1, 'a'), (2, 'b')"), "values (1, 'a'), (2, 'b')");
  EXPECT_EQ(reprintQuery("with c as (select 1 as x) select x from c"),
            "with c as (select 1 as x) select x from c");
}

}  // namespace
}  // namespace optic
