// Row codec: the compact binary form of a row stored as a KV value.
//
// Layout: varint column count, then per value a tag byte and its body:
//   0 NULL | 1 integer: zigzag varint | 2 big integer: varint length + decimal digits |
//   3 real: 8 bytes little-endian IEEE-754 | 4 text, 5 blob: varint length + bytes |
//   6 false | 7 true | 8 JSON: varint length + compact JSON text.
// Decoding reproduces every value exactly (kind included). Not order-preserving: keys use
// core/common/key_codec.h.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/value.h"

namespace optic {

std::string encodeRow(std::span<const Value> row);
void encodeRow(std::span<const Value> row, std::string& out);  // appends
// Throws Error(kInternal) on malformed input.
Row decodeRow(std::string_view data);
// Replaces out's contents, reusing its capacity. With `columns`, a column i it marks false is
// skipped unread and left NULL (the reader reads no such column); columns past its end decode.
void decodeRow(std::string_view data, Row& out, const std::vector<bool>* columns = nullptr);

}  // namespace optic
