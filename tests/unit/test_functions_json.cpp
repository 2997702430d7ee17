// JSON built-ins: expectations from the corpus (06.7, 18-json-string-escapes, 97, 97.1) and
// test-corpus.md §4 (json_each columns).
#include "tests/unit/test_functions_util.h"

#include <cmath>

#include "core/api/database.h"
#include "core/common/error.h"

namespace optic::testing_fn {
namespace {

// The document's text (JSON values) or the value's text; NULL as "NULL".
std::string js(const Value& v) { return str(v); }

TEST(JsonFunctions, Readers) {
  EXPECT_EQ(js(call("json_extract", {T("{\"a\":1,\"b\":2}"), T("$.a")})), "1");
  EXPECT_EQ(js(call("json_extract", {T("{\"a\":{\"b\":{\"c\":42}}}"), T("$.a.b")})), "{\"c\":42}");
  EXPECT_EQ(js(call("json_extract", {T("{\"a\":1,\"b\":2}"), T("$.x"), T("$.y"), T("$.b")})), "2");
  EXPECT_EQ(js(call("json_extract", {T("{\"a.b\":42}"), T("$.\"a.b\"")})), "42");
  EXPECT_EQ(js(call("json_extract", {T("[[1,2],[3,4]]"), T("$[0][1]")})), "2");
  EXPECT_EQ(js(call("json_extract", {T("[1,2,3]"), T("$[#-1]")})), "3");
  EXPECT_TRUE(call("json_extract", {T("[1,2,3]"), T("$[-1]")}).isNull());
  EXPECT_TRUE(call("json_extract", {T("{\"a\":1}"), T("$[0")}).isNull());
  EXPECT_TRUE(call("json_extract", {T("{\"a\":1}"), T("")}).isNull());
  EXPECT_TRUE(call("json_extract", {T("{\"a\":1}"), I(42)}).isNull());
  EXPECT_EQ(call("json_extract", {T("{\"a\":true}"), T("$.a")}).kind(), ValueKind::kBoolean);
  EXPECT_EQ(call("json_extract", {T("{\"a\":\"x\"}"), T("$.a")}).kind(), ValueKind::kText);
  EXPECT_EQ(js(call("json_type", {T("{\"a\":3.14}"), T("$.a")})), "real");
  EXPECT_EQ(js(call("json_type", {T("{\"a\":1}"), I(42)})), "null");
  EXPECT_TRUE(call("json_type", {T("not-json")}).isNull());
  EXPECT_EQ(js(call("json_type", {N()})), "null");
  EXPECT_EQ(js(call("json_type", {B(false)})), "false");
  EXPECT_EQ(js(call("json_array_length", {T("{\"a\":[1,2,3,4]}"), T("$.a")})), "4");
  EXPECT_EQ(js(call("json_array_length", {N()})), "0");
  EXPECT_EQ(js(call("json_array_length", {T("[\"[\",\"]\",\"[\"]")})), "3");
  EXPECT_EQ(js(call("json_valid", {N()})), "false");
  EXPECT_EQ(js(call("json_valid", {R(3.14)})), "true");
  EXPECT_EQ(js(call("json_valid", {T("{\"a\":\"\\u00\"}")})), "false");
}

// json_schema(doc, type): the TypeScript-like type language of json_type.h.
bool fits(const std::string& doc, const std::string& type) {
  Value v = call("json_schema", {T(doc), T(type)});
  EXPECT_EQ(v.kind(), ValueKind::kBoolean) << doc << " / " << type;
  return v.kind() == ValueKind::kBoolean && v.asBool();
}

TEST(JsonFunctions, SchemaPrimitivesAndLiterals) {
  EXPECT_TRUE(fits("\"x\"", "string"));
  EXPECT_FALSE(fits("1", "string"));
  EXPECT_TRUE(fits("1.5", "number"));
  EXPECT_TRUE(fits("true", "boolean"));
  EXPECT_TRUE(fits("null", "null"));
  EXPECT_FALSE(fits("null", "undefined"));
  EXPECT_TRUE(fits("[1]", "unknown"));
  EXPECT_TRUE(fits("{}", "any"));
  EXPECT_FALSE(fits("1", "never"));
  EXPECT_FALSE(fits("1", "bigint"));
  EXPECT_TRUE(fits("[]", "object"));
  EXPECT_TRUE(fits("{}", "object"));
  EXPECT_FALSE(fits("\"{}\"", "object"));
  EXPECT_TRUE(fits("\"open\"", "'open' | \"closed\""));
  EXPECT_FALSE(fits("\"pending\"", "'open' | 'closed'"));
  EXPECT_TRUE(fits("2", "1 | 2.0 | -3.5"));
  EXPECT_TRUE(fits("-3.5", "1 | 2 | -3.5"));
  EXPECT_TRUE(fits("false", "false"));
  EXPECT_FALSE(fits("true", "false"));
}

TEST(JsonFunctions, SchemaObjectsArraysTuples) {
  const std::string person = "{ name: string, age?: number; 'e-mail': string | null }";
  EXPECT_TRUE(fits(R"({"name":"A","e-mail":null})", person));
  EXPECT_TRUE(fits(R"({"name":"A","age":3,"e-mail":"a@b","extra":[1]})", person));  // extra keys allowed
  EXPECT_FALSE(fits(R"({"name":"A","age":"3","e-mail":null})", person));  // a present optional key is checked
  EXPECT_FALSE(fits(R"({"age":3,"e-mail":null})", person));
  EXPECT_FALSE(fits(R"([{"name":"A","e-mail":null}])", person));
  EXPECT_TRUE(fits(R"({"a":1,"b":2})", "{ [key: string]: number }"));
  EXPECT_FALSE(fits(R"({"a":1,"b":"2"})", "Record<string, number>"));
  EXPECT_TRUE(fits(R"({"tags":["x","y"],"n":[[1,2],[3]]})", "{ tags: string[], n: Array<number[]> }"));
  EXPECT_FALSE(fits(R"({"tags":["x",1]})", "{ tags: string[] }"));
  EXPECT_TRUE(fits("[]", "(string | number)[]"));
  EXPECT_TRUE(fits(R"(["a",1,2,3])", "[string, ...number[]]"));
  EXPECT_FALSE(fits(R"(["a",1,"2"])", "[string, ...number[]]"));
  EXPECT_TRUE(fits(R"(["a"])", "[string, number?]"));
  EXPECT_FALSE(fits(R"(["a",1,2])", "[string, number?]"));
  EXPECT_FALSE(fits("[]", "[string, number?]"));
  EXPECT_TRUE(fits(R"([["a",1],["b",2]])", "[string, number][]"));
  EXPECT_TRUE(fits(R"({"a":1,"b":"x"})", "{ a: number } & { b: string }"));
  EXPECT_FALSE(fits(R"({"a":1})", "{ a: number } & { b: string }"));
  EXPECT_TRUE(fits(R"({"kind":"circle","r":1})", "| { kind: 'circle', r: number } | { kind: 'square', side: number }"));
}

// Never an error: a type that does not parse, a non-text type, a NULL or broken document all give
// false (a CHECK using json_schema then fails rather than the statement erroring).
TEST(JsonFunctions, SchemaRefusesWhatItCannotRead) {
  for (const char* bad : {"", "!!!", "{ name string }", "{ a: number", "string[", "strin", "Array<number",
                          "'open", "[...number]", "[number?, string]", "{ [k: number]: string }",
                          "Record<number, string>", "string string", "1e", "(string"}) {
    EXPECT_FALSE(fits("{}", bad)) << bad;
    EXPECT_FALSE(fits("\"x\"", bad)) << bad;
  }
  // Nesting past 64 levels is refused, not recursed into (a deep type is user text).
  EXPECT_TRUE(fits("1", std::string(60, '(') + "number" + std::string(60, ')')));
  EXPECT_FALSE(fits("1", std::string(100000, '(') + "number" + std::string(100000, ')')));
  EXPECT_FALSE(fits("[]", std::string(100000, '[') + std::string(100000, ']')));
  EXPECT_FALSE(call("json_schema", {T("{}"), I(42)}).asBool());
  EXPECT_FALSE(call("json_schema", {N(), T("null")}).asBool());
  EXPECT_FALSE(call("json_schema", {T("not-json"), T("unknown")}).asBool());
  EXPECT_TRUE(call("json_schema", {I(7), T("number")}).asBool());  // a SQL number is a JSON number
}

TEST(JsonFunctions, SchemaAsACheckConstraint) {
  Database db;
  db.exec("create table docs (id integer primary key, body json check (json_schema(body, '{ title: string, tags?: string[] }')))");
  db.exec("insert into docs values (1, '{\"title\":\"a\",\"tags\":[\"x\"]}')");
  try {
    db.exec("insert into docs values (2, '{\"title\":3}')");
    ADD_FAILURE() << "a body that does not fit was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CHECK constraint failed"), std::string::npos) << e.what();
  }
  auto count = db.prepare("select count(*) from docs");
  ASSERT_TRUE(count->step());
  EXPECT_EQ(count->row()[0].asInt(), 1);
}

TEST(JsonFunctions, Builders) {
  EXPECT_EQ(js(call("json_array", {I(1), T("two"), B(true), N()})), "[1,\"two\",true,null]");
  EXPECT_EQ(js(call("json_array", {I(1), Value::blob({0x41}), I(3)})), "[1,null,3]");
  EXPECT_EQ(js(call("json_array", {R(INFINITY)})), "[null]");
  EXPECT_EQ(js(call("json_object", {T("a"), I(1), T("b"), T("two")})), "{\"a\":1,\"b\":\"two\"}");
  EXPECT_TRUE(call("json_object", {T("a")}).isNull());
  EXPECT_TRUE(call("json_object", {I(42), T("v")}).isNull());
  EXPECT_EQ(js(call("json_object", {})), "{}");
  EXPECT_EQ(js(call("json_quote", {T("he said \"hi\"")})), "\"he said \\\"hi\\\"\"");
  EXPECT_EQ(js(call("json_quote", {N()})), "null");
  EXPECT_EQ(js(call("json_quote", {I(42)})), "42");
  EXPECT_TRUE(call("json_quote", {Value::blob(Bytes{1})}).isNull());
  EXPECT_EQ(call("json", {T("{\"a\":1}")}).kind(), ValueKind::kJson);
}

TEST(JsonFunctions, Writers) {
  EXPECT_EQ(js(call("json_insert", {T("{\"a\":1}"), T("$.a"), I(99)})), "{\"a\":1}");
  EXPECT_EQ(js(call("json_insert", {T("[1,2,3]"), T("$[1]"), I(99)})), "[1,2,3]");
  EXPECT_EQ(js(call("json_insert", {T("[1,2]"), T("$[2]"), I(3)})), "[1,2,3]");
  // json_quote of an integer beyond 2^53 - 1 (the reference's bigint) is NULL.
  EXPECT_TRUE(call("json_quote", {I(9007199254740992)}).isNull());
  EXPECT_EQ(js(call("json_quote", {I(9007199254740991)})), "9007199254740991");
  // Past the end, json_insert leaves the array alone (json_set pads the gap with nulls).
  EXPECT_EQ(js(call("json_insert", {T("[1,2]"), T("$[5]"), I(9)})), "[1,2]");
  EXPECT_EQ(js(call("json_insert", {T("{\"a\":1}"), T("$invalid"), I(99)})), "{\"a\":1}");
  EXPECT_TRUE(call("json_insert", {T("{\"a\":1}"), T("$.b")}).isNull());
  EXPECT_TRUE(call("json_insert", {T("{\"a\":1}"), I(42), T("v")}).isNull());
  EXPECT_TRUE(call("json_insert", {T("not-json"), T("$.a"), I(1)}).isNull());
  EXPECT_EQ(js(call("json_replace", {T("{\"a\":1}"), T("$"), I(42)})), "42");
  EXPECT_EQ(js(call("json_replace", {T("[10,20,30]"), T("$[5]"), I(99)})), "[10,20,30]");
  EXPECT_EQ(js(call("json_set", {T("[1]"), T("$[4]"), T("x")})), "[1,null,null,null,\"x\"]");
  EXPECT_EQ(js(call("json_set", {T("{}"), T("$.a.b"), I(42)})), "{}");
  EXPECT_EQ(js(call("json_set", {T("{\"a\":1}"), T("$.b"), T("new")})), "{\"a\":1,\"b\":\"new\"}");
  EXPECT_EQ(js(call("json_remove", {T("[10,20,30]"), T("$[0]")})), "[20,30]");
  EXPECT_EQ(js(call("json_remove", {T("{\"a\":1,\"b\":2,\"c\":3}"), T("$.a"), T("$.c")})), "{\"b\":2}");
  EXPECT_EQ(js(call("json_remove", {T("{\"a\":1}"), T("$[invalid")})), "{\"a\":1}");
  EXPECT_TRUE(call("json_remove", {T("{\"a\":1}"), I(42)}).isNull());
  EXPECT_TRUE(call("json_remove", {N(), T("$.a")}).isNull());
}

TEST(JsonFunctions, Patch) {
  EXPECT_EQ(js(call("json_patch", {T("{\"a\":1,\"b\":2}"),
                                   T("[{\"op\":\"replace\",\"path\":\"/a\",\"value\":3}]")})),
            "{\"a\":3,\"b\":2}");
  EXPECT_EQ(js(call("json_patch", {T("{\"a\":1}"),
                                   T("[{\"op\":\"add\",\"path\":\"/b\",\"value\":2},{\"op\":\"remove\",\"path\":\"/a\"}]")})),
            "{\"b\":2}");
  EXPECT_TRUE(call("json_patch", {T("{\"a\":1}"), T("[{\"value\":1}]")}).isNull());
  EXPECT_TRUE(call("json_patch", {T("{\"a\":1}"),
                                  T("[{\"op\":\"replace\",\"path\":\"/nonexistent/deep/path\",\"value\":99}]")})
                  .isNull());
  EXPECT_TRUE(call("json_patch", {T("{\"a\":1}"), T("not-json")}).isNull());
  // The reference takes an operation list only: an RFC 7396 merge object is not a patch.
  EXPECT_TRUE(call("json_patch", {T("{\"a\":1}"), T("{\"b\":2}")}).isNull());
}

TEST(JsonFunctions, Aggregates) {
  EXPECT_EQ(js(aggregate("json_group_array", {{I(10)}, {N()}, {Value::blob({1})}})), "[10,null,null]");
  EXPECT_TRUE(aggregate("json_group_array", {}).isNull());
  EXPECT_EQ(js(aggregate("json_group_object", {{T("a"), I(10)}, {N(), I(30)}, {T("b"), I(20)}})),
            "{\"a\":10,\"b\":20}");
  EXPECT_TRUE(builtins().findAggregate("json_group_object", 2)->create(Collation::kBinary, LogicalType::kAny)->finish().isNull());
}

TEST(JsonFunctions, EachAndTree) {
  FunctionContext ctx;
  std::vector<Value> args{T("[0,{\"b\":1,\"a\":[2]}]")};
  auto rows = builtins().findTable("json_each")->impl(Args(args.data(), 1), ctx);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(str(rows[0][0]), "0");       // key
  EXPECT_EQ(str(rows[0][2]), "integer");  // type
  EXPECT_EQ(str(rows[0][6]), "[0]");      // fullkey
  EXPECT_EQ(str(rows[0][7]), "");         // path
  EXPECT_TRUE(rows[0][5].isNull());       // parent
  EXPECT_EQ(str(rows[1][1]), "{\"b\":1,\"a\":[2]}");
  EXPECT_TRUE(rows[1][3].isNull());  // atom of a container
  auto tree = builtins().findTable("json_tree")->impl(Args(args.data(), 1), ctx);
  ASSERT_EQ(tree.size(), 6u);  // root, 0, object, a, a[0], b (keys sorted)
  EXPECT_EQ(str(tree[3][6]), "[1].a");
  EXPECT_EQ(str(tree[4][6]), "[1].a[0]");
  EXPECT_EQ(str(tree[4][7]), "[1].a");
  EXPECT_EQ(str(tree[0][4]), "1");
  EXPECT_EQ(str(tree[1][5]), "1");
  std::vector<Value> bad{T("not json")};
  EXPECT_THROW(builtins().findTable("json_each")->impl(Args(bad.data(), 1), ctx), Error);
}

}  // namespace
}  // namespace optic::testing_fn
