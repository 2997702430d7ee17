// Key codec: memcmp order of encoded keys must equal compareValues order (store.md §3), for
// mixed kinds, both directions and every collation; plus the fixed layout facts of the spec.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/common/bigint.h"
#include "core/common/json.h"
#include "core/common/key_codec.h"
#include "core/common/value_ops.h"

namespace optic {
namespace {

int memcmpOrder(const std::string& a, const std::string& b) {
  int c = a.compare(b);  // std::string compares as unsigned char
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}
int sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

std::string key(const Value& v, Collation c = Collation::kBinary, bool desc = false) {
  std::string out;
  encodeKey(v, c, desc, out);
  return out;
}

// Random values biased toward the tricky spots: equal numbers in different representations,
// the 2^53 and int64 edges, escapes (00/01 bytes), prefixes, case and trailing spaces.
class ValueGen {
 public:
  explicit ValueGen(uint32_t seed) : rng_(seed) {}
  Value next() {
    switch (pick(10)) {
      case 0: return Value::null();
      case 1: return Value::integer(static_cast<int64_t>(pick(21)) - 10);
      case 2: {
        static const int64_t edges[] = {INT64_MIN, INT64_MIN + 1, -9007199254740993, -9007199254740992,
                                        9007199254740991, 9007199254740992, 9007199254740993,
                                        9007199254740994, INT64_MAX - 1, INT64_MAX};
        int64_t edge = edges[pick(10)], nudged;
        if (__builtin_add_overflow(edge, static_cast<int64_t>(pick(3)) - 1, &nudged)) nudged = edge;
        return Value::integer(nudged);
      }
      case 3: {
        static const double reals[] = {-1.5, -0.0, 0.0, 0.5, 1.0, 2.0, 1e20, -1e20, 9007199254740992.0,
                                       9.2233720368547758e18, 1e300, -INFINITY, INFINITY, 3.25};
        return Value::real(reals[pick(14)]);
      }
      case 4: {
        static const char* bigs[] = {"9223372036854775808", "-9223372036854775809", "100000000000000000000",
                                     "99999999999999999999", "100000000000000000001",
                                     "-100000000000000000000", "123456789012345678901234567890"};
        return Value::fromBigInt(*BigInt::parse(bigs[pick(7)]));
      }
      case 5: return Value::boolean(pick(2) == 1);
      case 6:
      case 7: return Value::text(randomString("aAbB \x01\x00z\xc3\xa9", 10));
      case 8: {
        std::string s = randomString("\x00\x01\x02\xff", 4);
        return Value::blob(Bytes(s.begin(), s.end()));
      }
      default: {
        static const char* docs[] = {"null", "false", "true", "0", "1.5", "\"a\"", "\"\"", "[]", "[1]",
                                     "[1,2]", "[[]]", "{}", "{\"a\":1}", "{\"b\":1,\"a\":1}",
                                     "{\"a\":1,\"b\":1}", "{\"\":null}", "{\"a\":[true]}"};
        return Value::json(parseJson(docs[pick(17)]));
      }
    }
  }

 private:
  uint32_t pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }
  std::string randomString(const char* alphabet, size_t alphabetSize) {
    std::string s;
    size_t len = pick(5);
    for (size_t i = 0; i < len; ++i) s += alphabet[pick(static_cast<uint32_t>(alphabetSize))];
    return s;
  }
  std::mt19937 rng_;
};

TEST(KeyCodec, MemcmpOrderEqualsValueOrder) {
  ValueGen gen(12345);
  for (Collation c : {Collation::kBinary, Collation::kNoCase, Collation::kRTrim}) {
    for (int i = 0; i < 3000; ++i) {
      Value a = gen.next(), b = gen.next();
      int expected = sign(compareValues(a, b, c));
      ASSERT_EQ(memcmpOrder(key(a, c), key(b, c)), expected)
          << toText(a) << " vs " << toText(b) << " collation " << collationName(c);
      ASSERT_EQ(memcmpOrder(key(a, c, true), key(b, c, true)), -expected)
          << "desc: " << toText(a) << " vs " << toText(b);
    }
  }
}

TEST(KeyCodec, CompositeKeysOrderLexicographically) {
  ValueGen gen(777);
  for (int i = 0; i < 2000; ++i) {
    Value a1 = gen.next(), a2 = gen.next(), b1 = gen.next(), b2 = gen.next();
    if (i % 3 == 0) b1 = a1;  // exercise the second component
    std::string ka = key(a1) + key(a2, Collation::kBinary, true);
    std::string kb = key(b1) + key(b2, Collation::kBinary, true);
    int expected = sign(compareValues(a1, b1));
    if (expected == 0) expected = -sign(compareValues(a2, b2));
    ASSERT_EQ(memcmpOrder(ka, kb), expected) << toText(a1) << "," << toText(a2) << " vs " << toText(b1)
                                             << "," << toText(b2);
  }
}

TEST(KeyCodec, Layout) {
  EXPECT_EQ(key(Value::null()), std::string(1, '\0'));
  EXPECT_EQ(key(Value::integer(1)).size(), 17u);
  EXPECT_EQ(key(Value::integer(1))[0], '\x01');
  EXPECT_EQ(key(Value::integer(2)), key(Value::real(2.0)));
  EXPECT_EQ(key(Value::boolean(true)), key(Value::integer(1)));
  EXPECT_EQ(key(Value::real(-0.0)), key(Value::real(0.0)));
  EXPECT_NE(key(Value::integer(9007199254740993)), key(Value::real(9007199254740992.0)));
  EXPECT_EQ(key(Value::text(std::string("a\0\1", 3))), std::string("\x03" "a\x01\x01\x01\x02\x00", 7));
  EXPECT_EQ(key(Value::text("ABC"), Collation::kNoCase), key(Value::text("abc"), Collation::kNoCase));
  EXPECT_EQ(key(Value::text("ab  "), Collation::kRTrim), key(Value::text("ab"), Collation::kRTrim));
  EXPECT_EQ(key(Value::blob({0x04}))[0], '\x04');
  EXPECT_EQ(key(Value::json(parseJson("{}")))[0], '\x05');
  // DESC: every byte inverted; NULL becomes FF.
  EXPECT_EQ(key(Value::null(), Collation::kBinary, true), std::string(1, '\xff'));
  std::string asc = key(Value::text("x")), desc = key(Value::text("x"), Collation::kBinary, true);
  ASSERT_EQ(asc.size(), desc.size());
  for (size_t i = 0; i < asc.size(); ++i) EXPECT_EQ(static_cast<char>(~asc[i]), desc[i]);
  // JSON key order is ignored.
  EXPECT_EQ(key(Value::json(parseJson(R"({"a":1,"b":2})"))), key(Value::json(parseJson(R"({"b":2,"a":1})"))));
}

TEST(KeyCodec, DecodeRoundTrip) {
  std::vector<Value> values = {Value::null(), Value::integer(-5), Value::integer(INT64_MAX),
                               Value::integer(INT64_MIN), Value::integer(9007199254740993),
                               Value::fromBigInt(*BigInt::parse("123456789012345678901234567")),
                               Value::real(2.5), Value::real(-1e-300), Value::text(std::string("a\0b", 3)),
                               Value::blob({0, 1, 2, 255})};
  for (bool desc : {false, true}) {
    std::string k;
    for (const Value& v : values) encodeKey(v, Collation::kBinary, desc, k);
    std::string_view in = k;
    for (const Value& v : values) {
      Value out;
      ASSERT_TRUE(decodeKey(in, desc, out)) << toText(v);
      EXPECT_EQ(compareValues(out, v), 0) << toText(out) << " vs " << toText(v);
      EXPECT_EQ(out.kind(), v.kind()) << toText(v);
    }
    EXPECT_TRUE(in.empty());
  }
  std::string_view truncated("\x01\x02", 2);
  Value out;
  EXPECT_FALSE(decodeKey(truncated, false, out));
}

}  // namespace
}  // namespace optic
