// The wire format between C++ and JS: values packed into a byte buffer in wasm memory, so a
// batch of rows (or a statement's parameters) crosses the boundary in one call instead of one
// Embind call per value. js/src/wire.ts is the other half; the two must agree byte for byte.
//
// A value is one tag byte and its payload (little-endian, unaligned):
//   kNull, kFalse, kTrue      no payload
//   kNumber                   f64: an integer within ±(2^53−1), or a REAL
//   kBigInt                   u32 length + decimal ASCII: an integer beyond ±(2^53−1)
//   kText, kJson              u32 length + UTF-8 (JSON as its serialized text)
//   kBlob                     u32 length + bytes
// A row batch is the row-major sequence of its values (the column count is known to both
// sides). A parameter block is u32 count, then per parameter an i32 1-based position and a value.
// (Byte lists of the persistence path are not values: they cross in the commit-batch format,
// see wasm/bindings.cpp.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/api/value_text.h"

namespace optic::wasm {

enum WireTag : uint8_t {
  kWireNull = 0,
  kWireNumber = 1,
  kWireBigInt = 2,
  kWireText = 3,
  kWireBlob = 4,
  kWireFalse = 5,
  kWireTrue = 6,
  kWireJson = 7,
};

// Appends v to out.
void encodeValue(const Value& v, std::string& out);

// Reads one parameter block; calls bind(position, value) for each entry. Throws optic::Error
// (kMisuse) on a malformed block, before binding anything past the malformed entry.
template <class Bind>
void decodeParams(std::string_view block, Bind&& bind);

// ---- implementation details ----------------------------------------------------------------
class WireReader {
 public:
  explicit WireReader(std::string_view in) : in_(in) {}
  uint32_t u32();
  int32_t i32() { return static_cast<int32_t>(u32()); }
  Value value();

 private:
  std::string_view take(size_t n);
  std::string_view in_;
  size_t pos_ = 0;
};

template <class Bind>
void decodeParams(std::string_view block, Bind&& bind) {
  WireReader r(block);
  uint32_t n = r.u32();
  for (uint32_t i = 0; i < n; ++i) {
    int32_t position = r.i32();
    bind(position, r.value());
  }
}

}  // namespace optic::wasm
