// Collations and UTF-8 helpers: character counting and slicing, case mapping, and the
// collation invariant that compareText agrees with memcmp of the normalised forms.
#include <gtest/gtest.h>

#include "core/common/collation.h"
#include "core/common/utf8.h"

namespace optic {
namespace {

int sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

TEST(Utf8, LengthAndSubstr) {
  EXPECT_EQ(utf8Length("h\xc3\xa9llo"), 5u);  // length('héllo') = 5
  EXPECT_EQ(utf8Length(""), 0u);
  EXPECT_EQ(utf8Length("\xf0\x9f\x98\x80!"), 2u);
  EXPECT_EQ(utf8Length("\xff\xfe"), 2u);  // invalid bytes count one each
  EXPECT_EQ(utf8Substr("h\xc3\xa9llo", 1, 2), "\xc3\xa9l");
  EXPECT_EQ(utf8Substr("abc", 2, 10), "c");
  EXPECT_EQ(utf8Substr("abc", 5, 1), "");
  EXPECT_EQ(utf8Offset("\xc3\xa9x", 1), 2u);
}

TEST(Utf8, Validation) {
  EXPECT_TRUE(isValidUtf8("plain"));
  EXPECT_TRUE(isValidUtf8("\xe2\x82\xac"));
  EXPECT_FALSE(isValidUtf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(isValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(isValidUtf8("\xe2\x82"));          // truncated
  EXPECT_EQ(utf8Sanitize("a\xff" "b"), "a\xef\xbf\xbd" "b");
}

TEST(Utf8, CaseMapping) {
  EXPECT_EQ(utf8Upper("hello World"), "HELLO WORLD");
  EXPECT_EQ(utf8Lower("HeLLo"), "hello");
  EXPECT_EQ(utf8Upper("h\xc3\xa9llo"), "H\xc3\x89LLO");           // é → É
  EXPECT_EQ(utf8Lower("\xc3\x89" "COLE"), "\xc3\xa9" "cole");
  EXPECT_EQ(utf8Upper("\xce\xb1\xce\xb2"), "\xce\x91\xce\x92");   // αβ → ΑΒ
  EXPECT_EQ(utf8Lower("\xd0\x9f\xd0\xa0"), "\xd0\xbf\xd1\x80");   // ПР → пр
  EXPECT_EQ(utf8Upper("\xc5\x82"), "\xc5\x81");                   // ł → Ł
  EXPECT_EQ(utf8Upper("\xc3\x9f"), "\xc3\x9f");                   // ß has no simple upper
  EXPECT_EQ(utf8Upper("a\xff"), "A\xff");                         // invalid bytes kept
}

TEST(Collation, Names) {
  EXPECT_EQ(collationFromName("NoCase"), Collation::kNoCase);
  EXPECT_EQ(collationFromName("binary"), Collation::kBinary);
  EXPECT_EQ(collationFromName("RTRIM"), Collation::kRTrim);
  EXPECT_FALSE(collationFromName("klingon"));
  EXPECT_EQ(collationName(Collation::kNoCase), "NOCASE");
}

TEST(Collation, Compare) {
  EXPECT_LT(compareText("ABC", "abc", Collation::kBinary), 0);
  EXPECT_EQ(compareText("ABC", "abc", Collation::kNoCase), 0);
  EXPECT_LT(compareText("abc", "ABD", Collation::kNoCase), 0);
  EXPECT_EQ(compareText("\xc3\x89", "\xc3\xa9", Collation::kNoCase), 0);
  EXPECT_EQ(compareText("abc  ", "abc", Collation::kRTrim), 0);
  EXPECT_NE(compareText("abc  ", "abc", Collation::kBinary), 0);
  EXPECT_LT(compareText("ab", "abc", Collation::kBinary), 0);
  EXPECT_LT(compareText("", "a", Collation::kNoCase), 0);
}

TEST(Collation, CompareAgreesWithNormalizedMemcmp) {
  const char* samples[] = {"", "a", "A", "ab", "aB", "b", "B ", "b", "a ", "a  b", "\xc3\xa9", "\xc3\x89",
                           "z", "Z\xc3\x89", "z\xc3\xa9", "_", "[", "\x01", "\xff"};
  for (Collation c : {Collation::kBinary, Collation::kNoCase, Collation::kRTrim})
    for (const char* a : samples)
      for (const char* b : samples)
        EXPECT_EQ(sign(compareText(a, b, c)), sign(normalizeText(a, c).compare(normalizeText(b, c))))
            << a << " vs " << b << " " << collationName(c);
}

}  // namespace
}  // namespace optic
