// Unit tests of the conformance runner's pure logic (tests/conformance): block parsing, the
// capability directive, row conversion and chai deep.equal semantics, value conversion and the
// ratchet. Inline file texts mirror the situations test-corpus.md §1–2 describes.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/json.h"
#include "tests/conformance/sqllogic_corpus.h"
#include "tests/conformance/sqllogic_exec.h"
#include "tests/conformance/sqllogic_format.h"
#include "tests/conformance/sqllogic_json.h"
#include "tests/conformance/sqllogic_report.h"
#include "tests/conformance/sqllogic_rows.h"

namespace optic::sqllogic {
namespace {

JsValue js(std::string_view text) {
  std::optional<JsValue> v = parseJson(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v.value_or(JsValue());
}

// --- JS string helpers ------------------------------------------------------------------

TEST(SqllogicText, SplitLinesHandlesCrLfButKeepsLoneCr) {
  std::vector<std::string_view> lines = splitLines("a\r\nb\nc\rd\n");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "a");
  EXPECT_EQ(lines[1], "b");
  EXPECT_EQ(lines[2], "c\rd");
  EXPECT_EQ(lines[3], "");
}

TEST(SqllogicText, JsTrimStripsUnicodeWhitespaceAndBom) {
  EXPECT_EQ(jsTrim("\xEF\xBB\xBF  -- x \t"), "-- x");
  EXPECT_EQ(jsTrim("\xC2\xA0y\xE2\x80\xA8"), "y");
  EXPECT_EQ(jsTrim("\xE2\x86\x92 [1]"), "\xE2\x86\x92 [1]");  // '→' is not whitespace
  EXPECT_EQ(jsTrim(" \n "), "");
}

TEST(SqllogicText, SplitStatementsIsNaive) {
  std::vector<std::string> s = splitStatements("insert into t values ('a;b');\n select 1 ;;  ");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], "insert into t values ('a");
  EXPECT_EQ(s[1], "b')");
  EXPECT_EQ(s[2], "select 1");
}

// --- block parsing ------------------------------------------------------------------------

TEST(SqllogicBlocks, SetupStatementsShareTheResultBlock) {
  std::vector<Block> b = parseBlocks(
      "-- header comment\n"
      "create table t (a integer);\n"
      "\n"
      "-- a plain comment does not separate blocks\n"
      "insert into t values (1);\n"
      "select a from t;\n"
      "→ [{\"a\": 1}]\n");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].kind, BlockKind::kResult);
  EXPECT_EQ(b[0].sql, "create table t (a integer);\ninsert into t values (1);\nselect a from t;");
  EXPECT_EQ(b[0].expected, "[{\"a\": 1}]");
  EXPECT_EQ(b[0].line, 7);
}

TEST(SqllogicBlocks, CommentCutIsNaiveEvenInsideStrings) {
  std::vector<Block> b = parseBlocks("select 'a--b' as x; -- trailing\n→ [{\"x\":\"a\"}]\n");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].sql, "select 'a");
}

TEST(SqllogicBlocks, ErrorRunAndEndOfFileBlocks) {
  std::vector<Block> b = parseBlocks(
      "create table t (a);\n"
      "-- RUN\n"
      "create table t (a);\n"
      "-- Error: already exists\n"
      "-- error: nothing pending, ignored\n"
      "insert into t values (1);\n"
      "-- error:\n"
      "-- run\n"
      "drop table t;");
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].kind, BlockKind::kSetup);  // `-- run` is matched after lower-casing
  EXPECT_EQ(b[0].line, 2);
  EXPECT_EQ(b[1].kind, BlockKind::kError);
  EXPECT_EQ(b[1].expected, "already exists");
  EXPECT_EQ(b[2].kind, BlockKind::kError);
  EXPECT_EQ(b[2].expected, "");  // empty substring: any error
  EXPECT_EQ(b[3].kind, BlockKind::kSetup);
  EXPECT_EQ(b[3].sql, "drop table t;");
  EXPECT_EQ(b[3].line, 9);
}

TEST(SqllogicBlocks, ArrowWithoutPendingSqlIsIgnored) {
  std::vector<Block> b = parseBlocks("→ [1]\nselect 1;\n  →[{\"1\":1}]\n");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].expected, "[{\"1\":1}]");
}

TEST(SqllogicBlocks, ParamsStayPendingUntilTheNextExecutedBlock) {
  std::vector<Block> b = parseBlocks(
      "-- params: [1, \"x\"]\n"
      "-- error: no sql yet\n"
      "select ?, ?;\n"
      "→ []\n"
      "select 2;\n"
      "→ []\n"
      "-- params: {\"val\": 30}\n"
      "select :val;\n"
      "-- error: e\n");
  ASSERT_EQ(b.size(), 3u);
  ASSERT_TRUE(b[0].params.has_value());
  EXPECT_TRUE(deepEqual(*b[0].params, js("[1,\"x\"]")));
  EXPECT_FALSE(b[1].params.has_value());
  ASSERT_TRUE(b[2].params.has_value());  // carried, though error blocks do not bind them
  EXPECT_TRUE(deepEqual(*b[2].params, js("{\"val\":30}")));
}

TEST(SqllogicBlocks, InvalidParamsJsonBecomesAMalformedBlockInPlace) {
  std::vector<Block> b = parseBlocks("select 1;\n→ [{\"1\":1}]\n-- params: [1,\nselect ?;\n→ [1]\n");
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[1].kind, BlockKind::kMalformed);
  EXPECT_EQ(b[1].line, 3);
  EXPECT_NE(b[1].expected.find("invalid params JSON"), std::string::npos);
}

TEST(SqllogicBlocks, BomAndCrLfDoNotLeakIntoSql) {
  std::vector<Block> b = parseBlocks("\xEF\xBB\xBFselect 1 as a;\r\n\xE2\x86\x92 [{\"a\":1}]\r\n");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].sql, "select 1 as a;");
  EXPECT_EQ(b[0].expected, "[{\"a\":1}]");
}

// --- capability directive -------------------------------------------------------------------

std::optional<std::set<std::string>> caps(std::string_view text, std::string* error) {
  return parseRequiredCapabilities("f.sqllogic", text, error);
}

TEST(SqllogicCapabilities, LeadingDirectivesUnion) {
  std::string error;
  auto c = caps("\xEF\xBB\xBF-- requires-capability: standalone-index-ddl\n\n--Requires-Capability :STANDALONE-INDEX-DDL,\nselect 1;\n", &error);
  ASSERT_TRUE(c.has_value()) << error;
  EXPECT_EQ(*c, std::set<std::string>{"standalone-index-ddl"});
  c = caps("-- `-- requires-capability: x` quoted in prose is fine\nselect 1;\n", &error);
  ASSERT_TRUE(c.has_value()) << error;
  EXPECT_TRUE(c->empty());
}

TEST(SqllogicCapabilities, HardErrors) {
  std::string error;
  EXPECT_FALSE(caps("-- requires-capability: teleport\n", &error));
  EXPECT_NE(error.find("[f.sqllogic:1] unknown capability \"teleport\""), std::string::npos) << error;
  EXPECT_FALSE(caps("-- requires-capability: , \n", &error));
  EXPECT_NE(error.find("declares no tokens"), std::string::npos);
  EXPECT_FALSE(caps("select 1;\n-- requires-capability: standalone-index-ddl\n", &error));
  EXPECT_NE(error.find("[f.sqllogic:2]"), std::string::npos);
  EXPECT_NE(error.find("leading comment block"), std::string::npos);
  for (const char* nearMiss : {"-- require-capability: standalone-index-ddl", "-- requires_capability: x",
                               "-- requires capability: x", "--REQUIRED CAPABILITIES", "-- requirescapability"}) {
    EXPECT_FALSE(caps(std::string(nearMiss) + "\n", &error)) << nearMiss;
    EXPECT_NE(error.find("not the canonical form"), std::string::npos) << nearMiss;
  }
  // Late near misses fail too, even after SQL.
  EXPECT_FALSE(caps("select 1;\n-- requires capability later\n", &error));
}

// --- JSON and deep.equal ------------------------------------------------------------------

TEST(SqllogicJson, NumbersAreDoublesAndNegativeZeroIsDistinct) {
  EXPECT_TRUE(deepEqual(js("2.0"), js("2")));
  EXPECT_FALSE(deepEqual(js("-0"), js("0")));
  EXPECT_TRUE(deepEqual(js("-0.0"), js("-0")));
  EXPECT_TRUE(deepEqual(js("9007199254740993"), JsValue::number(9007199254740992.0)));
  EXPECT_TRUE(std::isinf(js("1e400").asNumber()));
  EXPECT_TRUE(deepEqual(JsValue::number(NAN), JsValue::number(NAN)));
}

TEST(SqllogicJson, StrictTypesAndKeySets) {
  EXPECT_FALSE(deepEqual(js("true"), js("1")));
  EXPECT_FALSE(deepEqual(js("\"1\""), js("1")));
  EXPECT_FALSE(deepEqual(js("null"), js("{}")));
  EXPECT_FALSE(deepEqual(js("{\"a\":null}"), js("{}")));  // null ≠ missing key
  EXPECT_TRUE(deepEqual(js("{\"a\":1,\"b\":[1,2]}"), js("{\"b\":[1,2],\"a\":1}")));
  EXPECT_FALSE(deepEqual(js("[1,2]"), js("[2,1]")));
  EXPECT_FALSE(deepEqual(js("{\"0\":1}"), js("[1]")));
  EXPECT_TRUE(deepEqual(js("{\"a\":1,\"a\":2}"), js("{\"a\":2}")));  // JSON.parse: last wins
}

TEST(SqllogicJson, ParsesEscapesAndRejectsNonJson) {
  EXPECT_EQ(js("\"\\u00e9\\ud83d\\ude00\\n\"").asString(), "\xC3\xA9\xF0\x9F\x98\x80\n");
  for (const char* bad : {"", "[1,]", "{'a':1}", "NaN", "01", "[1] x", "\"a\nb\"", "1.", "-"}) {
    EXPECT_FALSE(parseJson(bad).has_value()) << bad;
  }
  EXPECT_TRUE(parseJson(" \t[ ]\r\n").has_value());
}

TEST(SqllogicJson, DisplayIsCompactAndTruncates) {
  EXPECT_EQ(toDisplay(js("[{\"a\": 1.5, \"b\": \"x\\\"\"}, null, true, -0]")), "[{\"a\":1.5,\"b\":\"x\\\"\"},null,true,-0]");
  EXPECT_EQ(toDisplay(js("10.0")), "10");
  std::string cut = truncateForDisplay(std::string(10, 'x') + "\xC3\xA9", 11);
  EXPECT_EQ(cut, std::string(10, 'x') + "…");  // never splits a UTF-8 sequence
}

// --- row conversion ------------------------------------------------------------------------

TEST(SqllogicRows, BareValueRules) {
  EXPECT_TRUE(isBareValueColumn("x IS NULL"));
  EXPECT_TRUE(isBareValueColumn("a is not null"));
  EXPECT_FALSE(isBareValueColumn("a is null and b is null"));
  EXPECT_FALSE(isBareValueColumn("a xor b is null"));
  EXPECT_TRUE(isBareValueColumn("julianday('2024-01-01') - julianday('2023-01-01')"));
  EXPECT_FALSE(isBareValueColumn("a - b or c"));
  EXPECT_FALSE(isBareValueColumn("a-b"));
  EXPECT_TRUE(isBareValueColumn("JSON_ARRAY_LENGTH('[1,2,3]')"));
  EXPECT_TRUE(isBareValueColumn("json_extract('{\"a\":1}', '$.a')"));
  EXPECT_TRUE(isBareValueColumn("datetime('now')"));
  EXPECT_FALSE(isBareValueColumn("date()"));  // needs a character between the parentheses
  EXPECT_FALSE(isBareValueColumn("json_array(1)+1"));
  EXPECT_FALSE(isBareValueColumn("json_each(x)"));
  EXPECT_FALSE(isBareValueColumn("date(\n'x')"));  // JS '.' does not match a newline
  EXPECT_FALSE(isBareValueColumn("count(*)"));
}

TEST(SqllogicRows, ObjectsNamesAndFallbacks) {
  EXPECT_TRUE(deepEqual(makeRow({"json_array_length('[1]')"}, {JsValue::number(1)}), js("1")));
  EXPECT_TRUE(deepEqual(makeRow({"n"}, {JsValue::number(1)}), js("{\"n\":1}")));
  EXPECT_TRUE(deepEqual(makeRow({"a", ""}, {JsValue::number(1), JsValue::null()}), js("{\"a\":1,\"col_1\":null}")));
  EXPECT_TRUE(deepEqual(makeRow({"a", "a"}, {JsValue::number(1), JsValue::number(2)}), js("{\"a\":2}")));
  // Two columns never collapse, even when a name qualifies.
  EXPECT_TRUE(deepEqual(makeRow({"a is null", "b"}, {JsValue::boolean(true), JsValue::number(1)}),
                        js("{\"a is null\":true,\"b\":1}")));
}

// --- values ----------------------------------------------------------------------------------

TEST(SqllogicValues, CellsBecomeJsValues) {
  EXPECT_TRUE(deepEqual(valueToJs(Value::integer(int64_t{1} << 60)), JsValue::number(std::ldexp(1.0, 60))));
  EXPECT_TRUE(deepEqual(valueToJs(Value::real(-0.0)), js("-0")));
  EXPECT_FALSE(deepEqual(valueToJs(Value::real(-0.0)), js("0")));
  EXPECT_TRUE(deepEqual(valueToJs(Value::boolean(true)), js("true")));
  EXPECT_TRUE(deepEqual(valueToJs(Value::text("1")), js("\"1\"")));
  EXPECT_TRUE(deepEqual(valueToJs(Value::null()), js("null")));
  EXPECT_TRUE(deepEqual(valueToJs(Value::blob({0xde, 0xad})), js("{\"0\":222,\"1\":173}")));
}

TEST(SqllogicValues, JsonCellsConvertStructurally) {
  Json doc = Json::parse(R"({"b":[1,2.5,"x",null,true],"a":{"c":-1}})");
  doc["z"] = -0.0;
  JsValue v = valueToJs(Value::json(makeJson(doc)));
  EXPECT_TRUE(deepEqual(v, js(R"({"a":{"c":-1},"b":[1,2.5,"x",null,true],"z":-0})")));
  EXPECT_FALSE(deepEqual(v, js(R"({"a":{"c":-1},"b":[1,2.5,"x",null,true],"z":0})")));
  EXPECT_TRUE(deepEqual(valueToJs(Value::json(makeJson(Json("s")))), js("\"s\"")));  // JSON scalar
}

TEST(SqllogicValues, ParamsBindLikeJsNumbers) {
  Value i = jsToBindValue(js("20.0"));
  ASSERT_EQ(i.kind(), ValueKind::kInteger);
  EXPECT_EQ(i.asInt(), 20);
  EXPECT_EQ(jsToBindValue(js("2.5")).kind(), ValueKind::kReal);
  EXPECT_EQ(jsToBindValue(js("1e300")).kind(), ValueKind::kReal);
  EXPECT_EQ(jsToBindValue(js("\"epsilon\"")).asText(), "epsilon");
  EXPECT_EQ(jsToBindValue(js("false")).kind(), ValueKind::kBoolean);
  EXPECT_TRUE(jsToBindValue(js("null")).isNull());
  Value doc = jsToBindValue(js(R"({"k":[1]})"));
  ASSERT_EQ(doc.kind(), ValueKind::kJson);
  EXPECT_EQ(serializeJson(doc.asJson().doc), R"({"k":[1]})");
}

// --- corpus naming and the ratchet ------------------------------------------------------------

TEST(SqllogicCorpus, NamesAndMemoryOnlyList) {
  EXPECT_EQ(fileName("/x/y/01-basic.sqllogic"), "01-basic");
  EXPECT_EQ(fileName("01-basic"), "01-basic");
  EXPECT_TRUE(isMemoryOnlyFile("83-merge-join"));
  EXPECT_TRUE(isMemoryOnlyFile("05-vtab_memory.sqllogic"));
  EXPECT_FALSE(isMemoryOnlyFile("01-basic"));
}

FileRecord record(std::string name, FileStatus s, int passed, int total, std::string area = "select") {
  FileRecord r;
  r.name = std::move(name);
  r.area = std::move(area);
  r.status = s;
  r.blocksPassed = passed;
  r.blocksTotal = total;
  if (s == FileStatus::kFailed) r.detail = "block " + std::to_string(passed + 1) + " (line 9): boom";
  return r;
}

TEST(SqllogicReport, RatchetFlagsOnlyListedFilesThatRanAndFailed) {
  std::vector<FileRecord> rs = {record("a", FileStatus::kPassed, 3, 3), record("b", FileStatus::kFailed, 1, 4),
                                record("c", FileStatus::kFailed, 0, 2), record("d", FileStatus::kSkipped, 0, 0)};
  std::set<std::string> passing = {"a", "b", "d", "gone"};
  std::vector<const FileRecord*> reg = findRegressions(passing, rs);
  ASSERT_EQ(reg.size(), 1u);
  EXPECT_EQ(reg[0]->name, "b");
  EXPECT_TRUE(findUnlistedPasses({"b"}, rs) == std::vector<std::string>{"a"});
  EXPECT_EQ(ratchetText(rs), "a\n");
}

TEST(SqllogicReport, LinesTableAndClosingLine) {
  std::vector<FileRecord> rs = {record("a", FileStatus::kPassed, 3, 3, "joins"),
                                record("b", FileStatus::kFailed, 1, 4, "joins"),
                                record("c", FileStatus::kPassed, 2, 2, "alter"),
                                record("d", FileStatus::kSkipped, 0, 0, "alter")};
  EXPECT_EQ(formatFileLine(rs[0]), "PASS a");
  EXPECT_EQ(formatFileLine(rs[1]), "FAIL b: block 2 (line 9): boom");
  EXPECT_EQ(formatClosingLine(rs), "2 passed, 1 failed");
  std::string table = formatAreaTable(rs);
  EXPECT_NE(table.find("alter"), std::string::npos);
  EXPECT_LT(table.find("alter"), table.find("joins"));
  EXPECT_NE(table.find("1/1"), std::string::npos);    // alter files (skip excluded)
  EXPECT_NE(table.find("1/2"), std::string::npos);    // joins files
  EXPECT_NE(table.find("4/7"), std::string::npos);    // joins blocks
  EXPECT_NE(table.find("total"), std::string::npos);
  std::optional<JsValue> report = parseJson(toJsonReport(rs));
  ASSERT_TRUE(report.has_value());
  ASSERT_EQ(report->items().size(), 4u);
  EXPECT_TRUE(deepEqual(report->items()[1],
                        js("{\"file\":\"b\",\"area\":\"joins\",\"passed\":false,\"skipped\":false,"
                           "\"blocksPassed\":1,\"blocksTotal\":4,\"firstFailure\":\"block 2 (line 9): boom\"}")));
  EXPECT_TRUE(report->items()[0].find("firstFailure")->kind() == JsValue::Kind::kNull);
}

}  // namespace
}  // namespace optic::sqllogic
