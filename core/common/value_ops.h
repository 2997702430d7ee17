// Value operations shared by every layer: the one text rendering, the total order, hashing,
// truthiness and numeric parsing (sql-core.md §1.5–1.9).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/collation.h"
#include "core/common/value.h"

namespace optic {

// §1.6: integers exact, reals like JS String(x) (shortest round trip: 1.0 → "1", 1e21 → "1e+21",
// "Infinity", "NaN"), booleans "true"/"false", blobs lossy UTF-8, JSON serialized in its own key
// order. NULL renders as "" (callers test isNull first: SQL NULL stays NULL).
std::string toText(const Value& v);
std::string formatReal(double d);

// A numeric-looking text ("42", " -1.5e3 ", "0x" is not) as an integer or real; nullopt otherwise.
std::optional<Value> parseNumber(std::string_view text);

// Total order for untyped data: NULL < numbers and booleans (by value; integers, big integers and
// reals interleaved) < text (under the collation) < blob (bytewise, then length) < JSON
// (structural). Returns <0, 0, >0.
int compareValues(const Value& a, const Value& b, Collation c = Collation::kBinary);
// The numeric part of that order, exact across int64, BigInt and double; booleans are 0/1.
// Both operands must be numbers or booleans.
int compareNumeric(const Value& a, const Value& b);

// Consistent with compareValues: values that compare equal hash equal (2 and 2.0 included).
size_t hashValue(const Value& v, Collation c = Collation::kBinary);

// Truthiness for WHERE/NOT/AND/OR: nullopt for NULL; numbers non-zero; text converted
// numerically ('abc' and '0' are false); blobs false; JSON true unless false/0/null.
std::optional<bool> truthValue(const Value& v);

}  // namespace optic
