// Order-preserving key encoding (store.md §3): memcmp of two encoded keys orders them exactly as
// compareValues does under the same collation, so the ordered KV store can serve index seeks
// and ordered scans directly.
//
// Component = tag byte + body; composite keys are components appended in order; a DESC component
// has every byte XOR 0xFF. Tags: 00 NULL, 01 number/boolean (17 bytes total), 03 text
// (collation-normalised), 04 blob, 05 JSON (structural encoding). Text, blob and JSON bodies
// escape 00 → 01 01 and 01 → 01 02 and end with 00, so a prefix sorts before its extensions.
#pragma once

#include <string>
#include <string_view>

#include "core/common/collation.h"
#include "core/common/logical_type.h"
#include "core/common/value.h"

namespace optic {

enum : uint8_t { kKeyTagNull = 0x00, kKeyTagNumber = 0x01, kKeyTagText = 0x03, kKeyTagBlob = 0x04,
                 kKeyTagJson = 0x05 };

// Appends the key component for v. Text is normalised with `collation`; other kinds ignore it.
void encodeKey(const Value& v, Collation collation, bool desc, std::string& out);
// The per-column transform of store.md §3, then encodeKey: a TIMESPAN column's text is keyed by
// its total seconds (number path, so 'PT1H' and 'PT60M' collide); other types encode as is.
void encodeColumnKey(const Value& v, LogicalType type, Collation collation, bool desc, std::string& out);
// Convenience: one ascending component.
std::string encodeKey(const Value& v, Collation collation = Collation::kBinary);
// A number given as nearest double + exact residual (used for TIMESPAN seconds, etc.).
void encodeKeyNumber(double nearest, int64_t residual, bool desc, std::string& out);

// Decodes one component from the front of `in` (advancing it). Lossy where the encoding is:
// text comes back collation-normalised, an integral number comes back as an integer (3.0 → 3),
// booleans come back as 0/1, JSON is not decodable (returns false). False on malformed input.
bool decodeKey(std::string_view& in, bool desc, Value& out);
// The bytes every key component of a text starting with `prefix` starts with (under the
// collation's normalisation, when that keeps prefixes: BINARY and NOCASE): the tag and the escaped
// prefix, without the terminator. A LIKE 'prefix%' range is the keys that start with it.
void encodeTextPrefixKey(std::string_view prefix, Collation collation, bool desc, std::string& out);
// Advances `in` past one component without decoding it (any tag, JSON included): how an index
// entry's primary-key suffix is found behind its index columns. False on malformed input.
bool skipKeyComponent(std::string_view& in, bool desc);

// Building blocks shared with the JSON structural encoder.
void appendSortableDouble(double d, std::string& out);   // 8 bytes, big-endian, -0 → +0
void appendEscapedBytes(std::string_view s, std::string& out);  // escaped + 00 terminator

}  // namespace optic
