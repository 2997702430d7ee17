// Arithmetic and concatenation over runtime values (sql-core.md §1.5).
//
// NULL in, NULL out. Operands coerce first: booleans are 0/1; a numeric-looking text converts
// (' 10 ' → 10); other text counts as 0 for binary operators and makes unary operators NULL;
// blobs and JSON count as 0 like non-numeric text. Integer results are exact (int64 fast path,
// BigInt on overflow) and normalised (an integer that fits int64 is never a BigInt). Division is
// true division; x / 0 and x % 0 are NULL. Temporal arithmetic is the evaluator's business
// (the planner knows the logical types); these functions see plain values.
#pragma once

#include "core/common/value.h"

namespace optic {

Value add(const Value& a, const Value& b);
Value subtract(const Value& a, const Value& b);
Value multiply(const Value& a, const Value& b);
Value divide(const Value& a, const Value& b);     // 7/2 = 3.5, 6/2 = 3, x/0 = NULL
Value remainder(const Value& a, const Value& b);  // JS %: sign of the dividend, 10 % 3.5 = 3
Value negate(const Value& v);
Value plus(const Value& v);                       // unary +: the numeric value, NULL for 'abc'
Value bitNot(const Value& v);                     // ~x = -x - 1 (reals truncate first)
Value concat(const Value& a, const Value& b);     // canonical text of both

// The number a value stands for in arithmetic (integer, BigInt or real), or NULL for NULL.
// Non-numeric text, blobs and JSON become integer 0.
Value toArithmeticOperand(const Value& v);

}  // namespace optic
