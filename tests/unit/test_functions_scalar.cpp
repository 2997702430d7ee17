// Built-in string, math, conversion and misc functions: expectations from the conformance
// corpus (06.1, 06.1.3, 06.2, 06.5, 06.5.1, 24.1, 24.2, 101).
#include "tests/unit/test_functions_util.h"

#include "core/execution/functions/pattern.h"

namespace optic::testing_fn {
namespace {

TEST(StringFunctions, BasicsAndNulls) {
  EXPECT_EQ(str(call("trim", {T("xxhelloxx"), T("x")})), "hello");
  EXPECT_EQ(str(call("ltrim", {T("  hello  ")})), "hello  ");
  EXPECT_EQ(str(call("rtrim", {T("  hello  ")})), "  hello");
  EXPECT_EQ(str(call("trim", {T("  hello  "), N()})), "hello");
  EXPECT_EQ(str(call("replace", {T("banana"), T("a"), T("o")})), "bonono");
  EXPECT_EQ(str(call("replace", {T("hello"), T(""), T("x")})), "hello");
  EXPECT_EQ(str(call("replace", {T("hello"), N(), T("b")})), "NULL");
  EXPECT_EQ(str(call("instr", {T("hello world"), T("world")})), "7");
  EXPECT_EQ(str(call("instr", {T("hello"), T("")})), "0");
  EXPECT_EQ(str(call("reverse", {T("a😀b")})), "b😀a");
  EXPECT_EQ(str(call("lpad", {T("hi"), I(7), T("ab")})), "ababahi");
  EXPECT_EQ(str(call("rpad", {T("hi"), I(4), T("-")})), "hi--");
  EXPECT_EQ(str(call("lpad", {T("hello"), I(3), T("*")})), "hello");
  // Typed arguments: text, a number, text; anything else is NULL. The pad defaults to a space.
  EXPECT_TRUE(call("lpad", {I(123), I(5), T("0")}).isNull());
  EXPECT_TRUE(call("rpad", {T("a"), T("5"), T("x")}).isNull());
  EXPECT_TRUE(call("rpad", {T("a"), I(5), N()}).isNull());
  EXPECT_TRUE(call("lpad", {T("a"), N(), T("x")}).isNull());
  EXPECT_EQ(str(call("lpad", {T("ab"), R(3.5), T("x")})), "xab");
  EXPECT_EQ(str(call("rpad", {T("ab"), I(4)})), "ab  ");
  EXPECT_EQ(str(call("lower", {I(42)})), "NULL");
  EXPECT_EQ(str(call("upper", {T("hello")})), "HELLO");
  EXPECT_EQ(str(call("length", {T("café")})), "4");
  EXPECT_EQ(str(call("length", {Value::blob({1, 2, 3})})), "3");
}

TEST(StringFunctions, Substr) {
  EXPECT_EQ(str(call("substr", {T("abcdef"), I(0), I(2)})), "ab");
  EXPECT_EQ(str(call("substr", {T("abcdef"), I(-3)})), "def");
  EXPECT_EQ(str(call("substr", {T("abc"), I(-10)})), "abc");
  EXPECT_EQ(str(call("substr", {T("hello"), I(3), I(100)})), "llo");
  EXPECT_EQ(str(call("substr", {T("abcdef"), I(4), I(-1)})), "");
  EXPECT_EQ(str(call("substr", {T("hello"), I(1), N()})), "");
  EXPECT_EQ(str(call("substr", {T("hello"), N(), I(1)})), "NULL");
  EXPECT_EQ(str(call("substr", {T("a😀b"), I(2), I(1)})), "😀");
  EXPECT_EQ(str(call("substring", {T("hi"), I(5)})), "");
}

TEST(StringFunctions, HexUnhex) {
  EXPECT_EQ(str(call("hex", {Value::blob({0xca, 0xfe})})), "CAFE");
  EXPECT_EQ(str(call("hex", {I(42)})), "3432");
  EXPECT_EQ(str(call("hex", {B(true)})), "74727565");
  EXPECT_EQ(str(call("hex", {Value::blob({})})), "");
  EXPECT_TRUE(call("unhex", {T("616")}).isNull());
  EXPECT_TRUE(call("unhex", {T("zz")}).isNull());
  EXPECT_TRUE(call("unhex", {I(42)}).isNull());
  EXPECT_EQ(call("unhex", {T("CAFE")}).asBlob(), (Bytes{0xca, 0xfe}));
  EXPECT_EQ(call("unhex", {T("")}).asBlob().size(), 0u);
}

TEST(Pattern, LikeAndGlob) {
  EXPECT_FALSE(likeMatch("A%", "apple"));
  EXPECT_TRUE(likeMatch("a%", "apple"));
  EXPECT_TRUE(likeMatch("a_b", "aäb"));
  EXPECT_TRUE(likeMatch("_", "😀"));
  EXPECT_TRUE(likeMatch("%a%b%", "xxaxxbxx"));
  EXPECT_FALSE(likeMatch("%a%b", "xxaxxbxx"));
  EXPECT_TRUE(likeMatch("10!%", "10%", U'!'));
  EXPECT_FALSE(likeMatch("10!%", "100", U'!'));
  // The literal and literal-then-% shapes match bytes directly; same answers as the general path.
  EXPECT_TRUE(likeMatch("apple", "apple"));
  EXPECT_FALSE(likeMatch("apple", "apples"));
  EXPECT_FALSE(likeMatch("Apple", "apple"));
  EXPECT_TRUE(likeMatch("", ""));
  EXPECT_FALSE(likeMatch("", "a"));
  EXPECT_TRUE(likeMatch("%", ""));
  EXPECT_TRUE(likeMatch("ap%", "ap"));
  EXPECT_FALSE(likeMatch("ap%", "a"));
  EXPECT_TRUE(likeMatch("é%", "éclair"));
  EXPECT_FALSE(likeMatch("é%", "eclair"));
  EXPECT_FALSE(likeMatch("ap%", "xap"));
  EXPECT_TRUE(likeMatch("a%%", "abc"));
  EXPECT_TRUE(likeMatch("a!%", "a%", U'!'));
  EXPECT_FALSE(likeMatch("a!%", "ab", U'!'));
  EXPECT_TRUE(globMatch("abc*", "abcdef"));
  EXPECT_FALSE(globMatch("ABC*", "abcdef"));
  EXPECT_TRUE(globMatch("[a-c]", "b"));
  EXPECT_FALSE(globMatch("[a-c]", "d"));
  EXPECT_TRUE(globMatch("[^abc]", "d"));
  EXPECT_FALSE(globMatch("[^abc]", "a"));
  EXPECT_TRUE(globMatch("a?c", "abc"));
  EXPECT_EQ(str(call("like", {T("12%"), I(1234)})), "true");
  EXPECT_TRUE(call("like", {T("a%"), N()}).isNull());
  EXPECT_TRUE(call("glob", {N(), T("abc")}).isNull());
}

TEST(MathFunctions, Rounding) {
  EXPECT_EQ(str(call("round", {R(-2.5)})), "-2");
  EXPECT_EQ(str(call("round", {R(2.5)})), "3");
  EXPECT_EQ(str(call("round", {R(1.2345), I(2)})), "1.23");
  EXPECT_EQ(str(call("round", {I(12345), I(-3)})), "12000");
  EXPECT_EQ(str(call("round", {R(3.7), N()})), "4");
  EXPECT_EQ(str(call("round", {R(-3.14), I(0)})), "-3");
  EXPECT_EQ(str(call("floor", {R(-3.7)})), "-4");
  EXPECT_EQ(str(call("ceiling", {R(-3.2)})), "-3");
  EXPECT_EQ(str(call("ceil", {R(-0.1)})), "0");
  EXPECT_TRUE(call("abs", {T("x")}).isNull());
  EXPECT_EQ(str(call("abs", {R(-3.14)})), "3.14");
  EXPECT_EQ(str(call("abs", {I(INT64_MIN)})), "9223372036854775808");
}

TEST(MathFunctions, Others) {
  EXPECT_EQ(str(call("sqrt", {I(2)})), "1.4142135623730951");
  EXPECT_TRUE(call("sqrt", {I(-1)}).isNull());
  EXPECT_EQ(str(call("pow", {I(2), I(-1)})), "0.5");
  EXPECT_EQ(str(call("pow", {I(0), I(0)})), "1");
  EXPECT_EQ(str(call("clamp", {I(50), I(0), I(10)})), "10");
  EXPECT_EQ(str(call("clamp", {I(3), I(5), I(5)})), "5");
  // max(lo, min(hi, v)): with lo above hi the lower bound wins.
  EXPECT_EQ(str(call("clamp", {I(5), I(10), I(1)})), "10");
  EXPECT_EQ(str(call("clamp", {I(-3), I(10), I(1)})), "10");
  EXPECT_TRUE(call("clamp", {I(5), N(), I(10)}).isNull());
  EXPECT_EQ(str(call("greatest", {I(10), R(2.5), I(42)})), "42");
  EXPECT_EQ(str(call("least", {I(10), R(2.5), I(42)})), "2.5");
  EXPECT_EQ(str(call("greatest", {T("apple"), T("banana"), T("cherry")})), "cherry");
  EXPECT_EQ(str(call("least", {N(), I(5), N(), I(3)})), "3");
  EXPECT_TRUE(call("greatest", {N(), N()}).isNull());
  EXPECT_TRUE(builtins().findScalar("abs", 1)->numericArgs);
}

TEST(ConversionFunctions, TypeofAndStrict) {
  EXPECT_EQ(str(call("typeof", {R(2.0)})), "integer");
  EXPECT_EQ(str(call("typeof", {R(2.5)})), "real");
  EXPECT_EQ(str(call("typeof", {B(true)})), "integer");
  EXPECT_EQ(str(call("typeof", {N()})), "null");
  EXPECT_EQ(str(call("integer", {R(-3.9)})), "-3");
  EXPECT_EQ(str(call("integer", {T("123")})), "123");
  EXPECT_EQ(str(call("text", {B(true)})), "true");
  EXPECT_EQ(str(call("boolean", {T("off")})), "false");
  EXPECT_EQ(call("blob", {I(42)}).asBlob(), (Bytes{'4', '2'}));
  try {
    call("integer", {T("not_a_number")});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Cannot convert to INTEGER"), std::string::npos) << e.what();
  }
  EXPECT_THROW(call("boolean", {T("maybe")}), Error);
  EXPECT_THROW(call("real", {T("x")}), Error);
}

TEST(MiscFunctions, Basics) {
  EXPECT_EQ(str(call("coalesce", {N(), B(false)})), "false");
  EXPECT_TRUE(call("nullif", {I(0), I(0)}).isNull());
  EXPECT_EQ(str(call("nullif", {I(5), I(10)})), "5");
  EXPECT_EQ(str(call("iif", {T("0"), T("yes"), T("no")})), "no");
  EXPECT_EQ(str(call("iif", {T("abc"), T("yes"), T("no")})), "no");
  EXPECT_EQ(str(call("iif", {I(-1), T("yes"), T("no")})), "yes");
  EXPECT_EQ(str(call("choose", {I(2), T("a"), T("b"), T("c")})), "b");
  EXPECT_TRUE(call("choose", {I(-1), T("a")}).isNull());
  uint64_t state = 42;
  FunctionContext ctx;
  ctx.randomState = &state;
  Value a = call("random", {}, ctx), b = call("random", {}, ctx);
  EXPECT_EQ(a.kind(), ValueKind::kInteger);
  EXPECT_NE(a.asInt(), b.asInt());
  EXPECT_FALSE(builtins().findScalar("random", 0)->deterministic);
  EXPECT_EQ(call("randomblob", {I(16)}, ctx).asBlob().size(), 16u);
  EXPECT_EQ(call("randomblob", {I(-5)}, ctx).asBlob().size(), 0u);
  // random() stays in JavaScript's safe integer range; randomblob() takes a number only, an
  // integral positive one for any bytes, and caps the length at 1 MiB.
  for (int i = 0; i < 1000; ++i) {
    int64_t r = call("random", {}, ctx).asInt();
    ASSERT_LE(r, 9007199254740991);
    ASSERT_GE(r, -9007199254740991);
  }
  EXPECT_TRUE(call("randomblob", {T("5")}, ctx).isNull());
  EXPECT_TRUE(call("randomblob", {N()}, ctx).isNull());
  EXPECT_EQ(call("randomblob", {R(2.5)}, ctx).asBlob().size(), 0u);
  EXPECT_EQ(call("randomblob", {R(3.0)}, ctx).asBlob().size(), 3u);
  EXPECT_EQ(call("randomblob", {I(5000000)}, ctx).asBlob().size(), 1048576u);
  ctx.mutationOrdinal = 3;
  EXPECT_EQ(str(call("mutation_ordinal", {}, ctx)), "3");
  std::vector<Value> args{I(1), I(5), I(2)};
  FunctionContext c2;
  auto rows = builtins().findTable("GENERATE_SERIES")->impl(Args(args.data(), 3), c2);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2][0].asInt(), 5);
}

// split_string(text, delimiter) (docs/functions.md): rows (value, ordinal) as
// JavaScript's String.split cuts them; no rows unless both arguments are text.
TEST(TableFunctions, SplitString) {
  auto split = [](std::vector<Value> args) {
    FunctionContext c;
    std::string out;
    for (const auto& row : builtins().findTable("split_string")->impl(Args(args.data(), args.size()), c))
      out += (out.empty() ? "" : ";") + str(row[0]) + "@" + str(row[1]);
    return out;
  };
  EXPECT_EQ(split({T("a,b,,c"), T(",")}), "a@0;b@1;@2;c@3");
  EXPECT_EQ(split({T("a--b--"), T("--")}), "a@0;b@1;@2");
  EXPECT_EQ(split({T("abc"), T("x")}), "abc@0");
  EXPECT_EQ(split({T(""), T(",")}), "@0");
  EXPECT_EQ(split({T("h\xC3\xA9"), T("")}), "h@0;\xC3\xA9@1");  // characters, not bytes
  EXPECT_EQ(split({T(""), T("")}), "");
  EXPECT_EQ(split({I(123), T("2")}), "");
  EXPECT_EQ(split({T("a,b"), N()}), "");
  EXPECT_EQ(builtins().findTable("split_string")->columns, (std::vector<std::string>{"value", "ordinal"}));
}

TEST(Registry, NotRegisteredPerSpec) {
  for (const char* name : {"ifnull", "printf", "quote", "nth_value"}) {
    EXPECT_FALSE(builtins().hasName(name)) << name;
  }
  EXPECT_EQ(builtins().findScalar("min", 2), nullptr);
  EXPECT_NE(builtins().findAggregate("MIN", 1), nullptr);
  EXPECT_EQ(builtins().findScalar("random", 1), nullptr);
}

}  // namespace
}  // namespace optic::testing_fn
