// Values: text rendering, numeric parsing, total order, hashing, truthiness, declared types and
// the strict/lenient conversions. Expected values come from sql-core.md §1 and the corpus
// (03.6-type-system, 99.1-cast-syntax-extras, 22-boundary-values).
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/bigint.h"
#include "core/common/error.h"
#include "core/common/json.h"
#include "core/common/logical_type.h"
#include "core/common/value_ops.h"

namespace optic {
namespace {

Value big(const char* digits) { return Value::fromBigInt(*BigInt::parse(digits)); }
Value text(const char* s) { return Value::text(s); }
Value bytes(std::initializer_list<uint8_t> b) { return Value::blob(Bytes(b)); }

TEST(FormatReal, MatchesJsString) {
  EXPECT_EQ(formatReal(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(formatReal(1e21), "1e+21");
  EXPECT_EQ(formatReal(1e20), "100000000000000000000");
  EXPECT_EQ(formatReal(1e-7), "1e-7");
  EXPECT_EQ(formatReal(0.000001), "0.000001");
  EXPECT_EQ(formatReal(123456789012345680000.0), "123456789012345680000");
  EXPECT_EQ(formatReal(-0.0), "0");
  EXPECT_EQ(formatReal(1.0), "1");
  EXPECT_EQ(formatReal(3.14), "3.14");
  EXPECT_EQ(formatReal(-2.5), "-2.5");
  EXPECT_EQ(formatReal(10.0 / 3), "3.3333333333333335");
  EXPECT_EQ(formatReal(1e-15), "1e-15");
  EXPECT_EQ(formatReal(1e15), "1000000000000000");
  EXPECT_EQ(formatReal(1.5e300), "1.5e+300");
  EXPECT_EQ(formatReal(5e-324), "5e-324");
  EXPECT_EQ(formatReal(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(formatReal(INFINITY), "Infinity");
  EXPECT_EQ(formatReal(-INFINITY), "-Infinity");
  EXPECT_EQ(formatReal(NAN), "NaN");
}

TEST(ToText, EveryKind) {
  EXPECT_EQ(toText(Value::integer(-42)), "-42");
  EXPECT_EQ(toText(big("99999999999999999999999999")), "99999999999999999999999999");
  EXPECT_EQ(toText(Value::real(2.0)), "2");
  EXPECT_EQ(toText(Value::boolean(true)), "true");
  EXPECT_EQ(toText(Value::boolean(false)), "false");
  EXPECT_EQ(toText(bytes({0x61, 0x62})), "ab");
  EXPECT_EQ(toText(bytes({0xff})), "\xef\xbf\xbd");  // lossy: U+FFFD
  EXPECT_EQ(toText(Value::json(parseJson(R"({"b": 1, "a": [true, null, 1.5]})"))),
            R"({"b":1,"a":[true,null,1.5]})");
}

TEST(ParseNumber, NumericLookingText) {
  EXPECT_EQ(parseNumber("42")->asInt(), 42);
  EXPECT_EQ(parseNumber(" -1.5e3 ")->asReal(), -1500.0);
  EXPECT_EQ(parseNumber("+7")->asInt(), 7);
  EXPECT_EQ(parseNumber(".5")->asReal(), 0.5);
  EXPECT_EQ(toText(*parseNumber("9007199254740993")), "9007199254740993");
  EXPECT_EQ(parseNumber("9007199254740993")->kind(), ValueKind::kInteger);
  EXPECT_EQ(parseNumber("99999999999999999999")->kind(), ValueKind::kBigInt);
  EXPECT_FALSE(parseNumber("0x10"));
  EXPECT_FALSE(parseNumber("abc"));
  EXPECT_FALSE(parseNumber("3x"));
  EXPECT_FALSE(parseNumber(""));
  EXPECT_FALSE(parseNumber("1e"));
  EXPECT_FALSE(parseNumber("."));
}

TEST(CompareValues, CategoryOrder) {
  // NULL < numbers/booleans < text < blob < JSON (03.6 order_test).
  std::vector<Value> ordered = {Value::null(), Value::integer(-1), Value::integer(0), Value::integer(1),
                                text("aaa"), text("zzz"), bytes({0x00}), bytes({0xff}),
                                Value::json(parseJson("[1]"))};
  for (size_t i = 0; i < ordered.size(); ++i)
    for (size_t j = 0; j < ordered.size(); ++j) {
      int c = compareValues(ordered[i], ordered[j]);
      EXPECT_EQ(c < 0, i < j) << i << " vs " << j;
      EXPECT_EQ(c == 0, i == j) << i << " vs " << j;
    }
}

TEST(CompareValues, NumbersExactAcrossRepresentations) {
  EXPECT_EQ(compareValues(Value::integer(1), Value::real(1.0)), 0);
  EXPECT_LT(compareValues(Value::integer(1), Value::real(1.5)), 0);
  EXPECT_EQ(compareValues(Value::boolean(true), Value::integer(1)), 0);
  EXPECT_LT(compareValues(Value::boolean(false), Value::boolean(true)), 0);
  // 9007199254740993 is not 9007199254740992.0 (03.6 real_big).
  EXPECT_GT(compareValues(Value::integer(9007199254740993), Value::real(9007199254740992.0)), 0);
  EXPECT_LT(compareValues(Value::integer(-9007199254740993), Value::real(5.0)), 0);
  EXPECT_GT(compareValues(big("99999999999999999999"), Value::integer(INT64_MAX)), 0);
  EXPECT_LT(compareValues(big("-99999999999999999999"), Value::integer(INT64_MIN)), 0);
  EXPECT_LT(compareValues(big("99999999999999999999"), Value::real(1e20)), 0);
  EXPECT_EQ(compareValues(big("100000000000000000000"), Value::real(1e20)), 0);
  EXPECT_LT(compareValues(Value::real(9.2e18), Value::integer(INT64_MAX)), 0);
  EXPECT_GT(compareValues(Value::real(9.3e18 * 2), Value::integer(INT64_MAX)), 0);
  EXPECT_EQ(compareValues(Value::real(0.0), Value::real(-0.0)), 0);
  EXPECT_GT(compareValues(Value::real(NAN), Value::real(INFINITY)), 0);
}

TEST(CompareValues, TextAndBlob) {
  EXPECT_LT(compareValues(text("ABC"), text("abc")), 0);
  EXPECT_EQ(compareValues(text("ABC"), text("abc"), Collation::kNoCase), 0);
  EXPECT_EQ(compareValues(text("abc  "), text("abc"), Collation::kRTrim), 0);
  // Blobs bytewise, then by length (03.6 blob_cmp: 01 < 0100 < 01ff < 02 < 0200 < abcd).
  std::vector<Value> blobs = {bytes({1}), bytes({1, 0}), bytes({1, 0xff}), bytes({2}), bytes({2, 0}),
                              bytes({0xab, 0xcd})};
  for (size_t i = 0; i + 1 < blobs.size(); ++i) EXPECT_LT(compareValues(blobs[i], blobs[i + 1]), 0);
}

TEST(CompareValues, JsonStructural) {
  auto j = [](const char* s) { return Value::json(parseJson(s)); };
  EXPECT_EQ(compareValues(j(R"({"a":1,"b":2})"), j(R"({"b":2,"a":1})")), 0);
  EXPECT_NE(compareValues(j(R"({"a":1})"), j(R"({"a":2})")), 0);
  EXPECT_LT(compareValues(j("[1,2,3]"), j("[1,2,4]")), 0);
  EXPECT_LT(compareValues(j("[1,2]"), j("[1,2,0]")), 0);
  EXPECT_LT(compareValues(j("null"), j("false")), 0);
  EXPECT_LT(compareValues(j("true"), j("0")), 0);
  EXPECT_LT(compareValues(j("99"), j(R"("a")")), 0);
  EXPECT_LT(compareValues(j(R"("z")"), j("[]")), 0);
  EXPECT_LT(compareValues(j("[9]"), j("{}")), 0);
}

TEST(HashValue, ConsistentWithEquality) {
  EXPECT_EQ(hashValue(Value::integer(2)), hashValue(Value::real(2.0)));
  EXPECT_EQ(hashValue(Value::integer(1)), hashValue(Value::boolean(true)));
  EXPECT_EQ(hashValue(Value::real(0.0)), hashValue(Value::real(-0.0)));
  EXPECT_EQ(hashValue(big("100000000000000000000")), hashValue(Value::real(1e20)));
  EXPECT_EQ(hashValue(text("ABC"), Collation::kNoCase), hashValue(text("abc"), Collation::kNoCase));
  EXPECT_EQ(hashValue(text("x "), Collation::kRTrim), hashValue(text("x"), Collation::kRTrim));
  EXPECT_EQ(hashValue(Value::json(parseJson(R"({"a":1,"b":[2]})"))),
            hashValue(Value::json(parseJson(R"({"b":[2.0],"a":1})"))));
}

TEST(TruthValue, Rules) {
  EXPECT_FALSE(truthValue(Value::null()).has_value());
  EXPECT_TRUE(*truthValue(Value::integer(-1)));
  EXPECT_FALSE(*truthValue(Value::integer(0)));
  EXPECT_TRUE(*truthValue(Value::real(0.5)));
  EXPECT_FALSE(*truthValue(text("abc")));
  EXPECT_FALSE(*truthValue(text("0")));
  EXPECT_TRUE(*truthValue(text("2")));
  EXPECT_FALSE(*truthValue(bytes({1})));
  EXPECT_TRUE(*truthValue(Value::json(parseJson("[]"))));
  EXPECT_FALSE(*truthValue(Value::json(parseJson("0"))));
}

TEST(LogicalType, DeclaredNames) {
  EXPECT_EQ(logicalTypeFromName("integer"), LogicalType::kInteger);
  EXPECT_EQ(logicalTypeFromName("int"), LogicalType::kInteger);
  EXPECT_EQ(logicalTypeFromName("bigint"), LogicalType::kInteger);
  EXPECT_EQ(logicalTypeFromName("varchar(10)"), LogicalType::kText);
  EXPECT_EQ(logicalTypeFromName("nvarchar"), LogicalType::kText);
  EXPECT_EQ(logicalTypeFromName("char"), LogicalType::kText);
  EXPECT_EQ(logicalTypeFromName("float"), LogicalType::kReal);
  EXPECT_EQ(logicalTypeFromName("double"), LogicalType::kReal);
  EXPECT_EQ(logicalTypeFromName(""), LogicalType::kBlob);
  EXPECT_EQ(logicalTypeFromName("bool"), LogicalType::kBoolean);
  EXPECT_EQ(logicalTypeFromName("Timespan"), LogicalType::kTimespan);
  EXPECT_EQ(logicalTypeFromName("json"), LogicalType::kJson);
  EXPECT_EQ(logicalTypeFromName("any"), LogicalType::kAny);
  EXPECT_EQ(logicalTypeName(LogicalType::kDateTime), "DATETIME");
  EXPECT_TRUE(isTextLike(LogicalType::kDate));
  EXPECT_FALSE(isTextLike(LogicalType::kJson));
}

TEST(ConvertStrict, Writes) {
  EXPECT_EQ(convertStrict(text("4"), LogicalType::kInteger).asInt(), 4);
  EXPECT_EQ(convertStrict(text("5.5"), LogicalType::kReal).asReal(), 5.5);
  EXPECT_EQ(convertStrict(Value::real(3.14), LogicalType::kInteger).asInt(), 3);  // integer(3.14)
  EXPECT_EQ(convertStrict(Value::boolean(true), LogicalType::kInteger).asInt(), 1);
  EXPECT_EQ(toText(convertStrict(text("9007199254740993"), LogicalType::kInteger)), "9007199254740993");
  EXPECT_EQ(convertStrict(Value::integer(1), LogicalType::kText).asText(), "1");
  EXPECT_EQ(convertStrict(Value::integer(1), LogicalType::kBlob).asBlob(), Bytes({'1'}));
  EXPECT_EQ(convertStrict(Value::real(1.5), LogicalType::kAny).asReal(), 1.5);
  EXPECT_TRUE(convertStrict(text("yes"), LogicalType::kBoolean).asBool());
  EXPECT_FALSE(convertStrict(text("off"), LogicalType::kBoolean).asBool());
  EXPECT_TRUE(convertStrict(Value::integer(42), LogicalType::kBoolean).asBool());
  EXPECT_TRUE(convertStrict(Value::null(), LogicalType::kInteger).isNull());
  Value obj = convertStrict(text(R"({"x":1})"), LogicalType::kJson);
  ASSERT_EQ(obj.kind(), ValueKind::kJson);
  EXPECT_EQ(toText(obj), R"({"x":1})");
  try {
    convertStrict(text("abc"), LogicalType::kInteger);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kType);
    EXPECT_STREQ(e.what(), "Cannot convert 'abc' to INTEGER");
  }
  EXPECT_THROW(convertStrict(text("{invalid"), LogicalType::kJson), Error);
  EXPECT_THROW(convertStrict(text("maybe"), LogicalType::kBoolean), Error);
  EXPECT_THROW(convertStrict(Value::json(parseJson(R"({"a":1})")), LogicalType::kBlob), Error);
}

TEST(ConvertStrict, ColumnPrefix) {
  try {
    convertForColumn(text("abc"), LogicalType::kInteger, "d");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Type conversion failed for column 'd': Cannot convert 'abc' to INTEGER");
  }
}

// The write path keeps a value already in the column type's stored form instead of converting
// it: that must never change what is stored. For every sample value and type, a value the rule
// calls stored is exactly what the conversion would have made of it.
TEST(ConvertStrict, StoredFormIsWhatConversionWouldMake) {
  const std::vector<Value> samples = {
      Value::null(),        Value::integer(7),   Value::integer(-1),  big("123456789012345678901234567890"),
      Value::real(2.5),     Value::real(-0.0),   Value::real(3.0),    text(""),
      text("12"),           text("2024-01-31"),  text("1 hour"),      text("{\"a\":1}"),
      text("yes"),          bytes({1, 2}),       Value::boolean(true), Value::json(parseJson("[1,2]")),
  };
  const LogicalType types[] = {LogicalType::kNull,     LogicalType::kInteger, LogicalType::kReal,  LogicalType::kNumeric,
                               LogicalType::kText,     LogicalType::kBlob,    LogicalType::kBoolean, LogicalType::kAny,
                               LogicalType::kDate,     LogicalType::kTime,    LogicalType::kDateTime, LogicalType::kTimespan,
                               LogicalType::kTimestamp, LogicalType::kJson};
  int stored = 0;
  for (LogicalType t : types) {
    for (const Value& v : samples) {
      if (!isStoredForm(v, t)) continue;
      ++stored;
      std::optional<Value> converted = tryConvertStrict(v, t);
      ASSERT_TRUE(converted) << toText(v) << " into " << logicalTypeName(t);
      EXPECT_EQ(converted->kind(), v.kind()) << toText(v) << " into " << logicalTypeName(t);
      EXPECT_EQ(compareValues(*converted, v), 0) << toText(v) << " into " << logicalTypeName(t);
      EXPECT_EQ(toText(*converted), toText(v)) << toText(v) << " into " << logicalTypeName(t);
      EXPECT_EQ(compareValues(convertForColumn(v, t, "c"), v), 0);
    }
  }
  EXPECT_GT(stored, 20);
  // What still converts: another kind, and temporal text (normalized on the way in).
  EXPECT_FALSE(isStoredForm(Value::integer(1), LogicalType::kReal));
  EXPECT_EQ(convertForColumn(Value::integer(1), LogicalType::kReal, "c").kind(), ValueKind::kReal);
  EXPECT_FALSE(isStoredForm(text("12"), LogicalType::kInteger));
  EXPECT_EQ(convertForColumn(text("12"), LogicalType::kInteger, "c").asInt(), 12);
  EXPECT_FALSE(isStoredForm(text("2024-1-31"), LogicalType::kDate));
  EXPECT_FALSE(isStoredForm(Value::real(2.0), LogicalType::kInteger));
  EXPECT_TRUE(isStoredForm(Value::null(), LogicalType::kDate));
}

TEST(CastTo, Lenient) {
  auto cast = [](const Value& v, LogicalType t) { return castTo(v, t); };
  EXPECT_EQ(cast(text("12abc"), LogicalType::kInteger).asInt(), 12);
  EXPECT_EQ(cast(text("abc"), LogicalType::kInteger).asInt(), 0);
  EXPECT_TRUE(cast(text(""), LogicalType::kInteger).isNull());
  EXPECT_EQ(cast(text("  42  "), LogicalType::kInteger).asInt(), 42);
  EXPECT_EQ(cast(text("9e18"), LogicalType::kInteger).asInt(), 9);
  EXPECT_EQ(toText(cast(text("9007199254740993abc"), LogicalType::kInteger)), "9007199254740993");
  EXPECT_EQ(toText(cast(text("+9007199254740993"), LogicalType::kNumeric)), "9007199254740993");
  EXPECT_EQ(toText(cast(text("99999999999999999999999999"), LogicalType::kInteger)),
            "99999999999999999999999999");
  EXPECT_EQ(toText(cast(text("9007199254740993.0"), LogicalType::kNumeric)), "9007199254740992");
  EXPECT_EQ(cast(Value::real(1.9), LogicalType::kInteger).asInt(), 1);
  EXPECT_EQ(cast(Value::real(-2.9), LogicalType::kInteger).asInt(), -2);
  EXPECT_EQ(cast(Value::boolean(true), LogicalType::kInteger).asInt(), 1);
  EXPECT_EQ(cast(Value::boolean(true), LogicalType::kText).asText(), "true");
  EXPECT_EQ(cast(Value::real(3.14), LogicalType::kText).asText(), "3.14");
  EXPECT_TRUE(cast(Value::integer(42), LogicalType::kBoolean).asBool());
  EXPECT_TRUE(cast(Value::real(0.5), LogicalType::kBoolean).asBool());
  EXPECT_FALSE(cast(Value::real(0.0), LogicalType::kBoolean).asBool());
  EXPECT_TRUE(cast(text("junk"), LogicalType::kBoolean).isNull());
  EXPECT_EQ(cast(text("1.23e+2"), LogicalType::kReal).asReal(), 123.0);
  EXPECT_EQ(cast(text("5e-1"), LogicalType::kReal).asReal(), 0.5);
  EXPECT_EQ(cast(text("junk"), LogicalType::kReal).toDouble(), 0.0);
  EXPECT_EQ(cast(text("6162"), LogicalType::kBlob).asBlob(), Bytes({'6', '1', '6', '2'}));
  EXPECT_EQ(cast(bytes({0xff}), LogicalType::kText).asText(), "\xef\xbf\xbd");
  EXPECT_EQ(cast(text("abc"), LogicalType::kJson).asText(), "abc");
  EXPECT_TRUE(cast(bytes({1, 2}), LogicalType::kJson).isNull());
  EXPECT_EQ(toText(cast(Value::json(parseJson(R"({"a":1})")), LogicalType::kBlob)), R"({"a":1})");
  EXPECT_TRUE(cast(bytes({1, 2}), LogicalType::kDate).isNull());
}

TEST(BigIntTest, ArithmeticAndConversions) {
  BigInt a = *BigInt::parse("9223372036854775807");
  BigInt b = a + BigInt(1);
  EXPECT_EQ(b.toString(), "9223372036854775808");
  EXPECT_FALSE(b.fitsInt64());
  EXPECT_TRUE(a.fitsInt64());
  EXPECT_EQ((-b).toString(), "-9223372036854775808");
  EXPECT_TRUE((-b).fitsInt64());
  EXPECT_EQ((BigInt(-7) / BigInt(2)).toString(), "-3");
  EXPECT_EQ((BigInt(-7) % BigInt(2)).toString(), "-1");
  EXPECT_EQ(BigInt::parse("9007199254740993")->toDouble(), 9007199254740992.0);
  EXPECT_EQ(BigInt::fromDouble(1e20)->toString(), "100000000000000000000");
  EXPECT_FALSE(BigInt::fromDouble(1.5));
  EXPECT_FALSE(BigInt::parse("12a"));
  EXPECT_FALSE(BigInt::parse("-"));
  EXPECT_EQ(Value::fromBigInt(BigInt(5)).kind(), ValueKind::kInteger);
}

// toString prints 18 digits per chunk: zeros inside a chunk, at chunk edges and signs survive.
TEST(BigIntTest, ToStringAcrossChunks) {
  for (const char* digits : {"0", "7", "-7", "999999999999999999", "1000000000000000000",
                             "-1000000000000000000", "1000000000000000001", "123000000000000000000000000000000000045",
                             "-99999999999999999999999999999999999999999999999999999"}) {
    EXPECT_EQ(BigInt::parse(digits)->toString(), digits);
  }
  BigInt p = BigInt(1);
  std::string expected = "1";
  for (int i = 0; i < 60; ++i) {
    p = p * BigInt(10);
    expected += '0';
    EXPECT_EQ(p.toString(), expected);
    EXPECT_EQ((-p).toString(), "-" + expected);
  }
}

TEST(Json, ParseSerialize) {
  EXPECT_EQ(parseJson("{invalid"), nullptr);
  EXPECT_EQ(parseJson(""), nullptr);
  auto d = parseJson(R"( {"z": "a\"b\\c\n\u0001", "n": [1.0, -0, 1e21, 0.5]} )");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(serializeJson(d->doc), R"({"z":"a\"b\\c\n\u0001","n":[1,0,1e+21,0.5]})");
  EXPECT_EQ(canonicalJson(parseJson(R"({"b":{"d":1,"c":2},"a":0})")->doc), R"({"a":0,"b":{"c":2,"d":1}})");
  EXPECT_EQ(jsonToValue(parseJson("\"x\"")->doc).asText(), "x");
  EXPECT_TRUE(jsonToValue(parseJson("null")->doc).isNull());
  EXPECT_EQ(jsonToValue(parseJson("[1]")->doc).kind(), ValueKind::kJson);
  EXPECT_EQ(serializeJson(valueToJson(Value::boolean(true))), "true");
  EXPECT_EQ(serializeJson(valueToJson(Value::real(NAN))), "null");
}

}  // namespace
}  // namespace optic
