// Row codec: every kind round-trips exactly (kind and value), and malformed input throws.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/bigint.h"
#include "core/common/error.h"
#include "core/common/json.h"
#include "core/common/value_ops.h"
#include "core/storage/row_codec.h"

namespace optic {
namespace {

Row sampleRow() {
  return {Value::null(),
          Value::integer(0),
          Value::integer(-1),
          Value::integer(INT64_MIN),
          Value::integer(INT64_MAX),
          Value::fromBigInt(*BigInt::parse("-123456789012345678901234567890")),
          Value::real(-0.0),
          Value::real(0.1),
          Value::real(INFINITY),
          Value::text(""),
          Value::text(std::string("h\xc3\xa9\0llo", 7)),
          Value::blob({}),
          Value::blob({0, 255, 1}),
          Value::boolean(false),
          Value::boolean(true),
          Value::json(parseJson(R"({"z":[1,2.5,"x"],"a":{"n":null}})"))};
}

TEST(RowCodec, RoundTripsEveryKind) {
  Row row = sampleRow();
  Row back = decodeRow(encodeRow(row));
  ASSERT_EQ(back.size(), row.size());
  for (size_t i = 0; i < row.size(); ++i) {
    EXPECT_EQ(back[i].kind(), row[i].kind()) << i;
    EXPECT_EQ(compareValues(back[i], row[i]), 0) << i << ": " << toText(back[i]);
    EXPECT_EQ(toText(back[i]), toText(row[i])) << i;
  }
  EXPECT_TRUE(std::signbit(back[6].asReal()));  // -0 survives storage
  EXPECT_EQ(toText(back[15]), R"({"z":[1,2.5,"x"],"a":{"n":null}})");  // key order kept
}

TEST(RowCodec, EmptyRowAndReuse) {
  EXPECT_TRUE(decodeRow(encodeRow(Row{})).empty());
  Row out = {Value::integer(9)};
  decodeRow(encodeRow(Row{Value::text("x")}), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].asText(), "x");
}

// A scan decodes every row into one Row: each decode leaves exactly the new row, whatever the
// previous one held (wider, narrower, other kinds in each position, the same again).
TEST(RowCodec, DecodingIntoAReusedRowGivesEachRowExactly) {
  Row every = sampleRow();
  Row reversed(every.rbegin(), every.rend());
  std::vector<Row> rows = {every, Row{Value::text("short")}, reversed, Row{}, every, every,
                           Row{Value::null(), Value::integer(3)}};
  Row out;
  for (const Row& row : rows) {
    decodeRow(encodeRow(row), out);
    ASSERT_EQ(out.size(), row.size());
    for (size_t i = 0; i < row.size(); ++i) {
      EXPECT_EQ(out[i].kind(), row[i].kind()) << i;
      EXPECT_EQ(toText(out[i]), toText(row[i])) << i;
    }
  }
}

// A scan that reads some columns skips the others: each skipped value of every kind is stepped
// over exactly (the next wanted value still decodes) and left NULL; columns past the mask decode.
TEST(RowCodec, DecodingSomeColumnsSkipsTheOthersExactly) {
  Row row = sampleRow();
  for (size_t wantedEvery : {1u, 2u, 3u}) {
    std::vector<bool> columns(row.size() - 2);
    for (size_t i = 0; i < columns.size(); ++i) columns[i] = i % wantedEvery == 0 && wantedEvery != 1;
    Row out = {Value::text("stale")};
    decodeRow(encodeRow(row), out, &columns);
    ASSERT_EQ(out.size(), row.size());
    for (size_t i = 0; i < row.size(); ++i) {
      bool wanted = i >= columns.size() || columns[i];
      EXPECT_EQ(out[i].kind(), wanted ? row[i].kind() : ValueKind::kNull) << wantedEvery << ":" << i;
      if (wanted) {
        EXPECT_EQ(toText(out[i]), toText(row[i])) << i;
      }
    }
  }
}

TEST(RowCodec, SkippedColumnsAreStillChecked) {
  std::vector<bool> none(16, false);
  Row out;
  std::string good = encodeRow(sampleRow());
  EXPECT_THROW(decodeRow(std::string_view(good).substr(0, good.size() - 3), out, &none), Error);
  EXPECT_THROW(decodeRow(std::string("\x01\x63", 2), out, &none), Error);
  EXPECT_THROW(decodeRow(std::string("\x01\x04\x10" "ab", 5), out, &none), Error);
  EXPECT_THROW(decodeRow(std::string("\x01\x03" "1234", 6), out, &none), Error);  // a short REAL
}

TEST(RowCodec, CompactSmallIntegers) {
  EXPECT_EQ(encodeRow(Row{Value::integer(5)}).size(), 3u);  // count, tag, one varint byte
}

TEST(RowCodec, MalformedInputThrows) {
  std::string good = encodeRow(sampleRow());
  EXPECT_THROW(decodeRow(std::string_view(good).substr(0, good.size() - 3)), Error);
  EXPECT_THROW(decodeRow(good + "x"), Error);
  EXPECT_THROW(decodeRow(std::string("\x01\x63", 2)), Error);  // unknown tag
  EXPECT_THROW(decodeRow(std::string("\x01\x04\x10" "ab", 5)), Error);  // length past end
}

}  // namespace
}  // namespace optic
