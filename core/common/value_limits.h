// The size limit of one text or blob value.
//
// A value is built in memory whole, so a function asked for an absurd size (lpad('x', 1e11), a
// replace that multiplies its input, a recursive CTE doubling a string) would exhaust memory
// and take the process (or the wasm instance) down with it. Every operation whose output can
// outgrow its inputs checks the size it is about to build here first and fails the statement
// with SQLite's message instead; the limit is SQLite's default SQLITE_MAX_LENGTH order of
// magnitude (1 GiB), far above what an app stores in one value.
#pragma once

#include <cstddef>

#include "core/common/error.h"

namespace optic {

inline constexpr size_t kMaxValueBytes = size_t{1} << 30;

// Throws Error(kError, "string or blob too big") when a value of `bytes` bytes is over the limit.
// A double, so a caller can pass a product (a count times a width) that would overflow size_t.
inline void requireValueFits(double bytes) {
  if (!(bytes <= static_cast<double>(kMaxValueBytes))) fail("string or blob too big");
}

}  // namespace optic
