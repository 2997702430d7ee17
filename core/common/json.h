// JSON documents: parse, serialize, compare, and convert to and from Value.
//
// A JsonDoc is immutable once built and shared between Values (Value::json). Its object key
// order is the order the document was written in, and serialization keeps it (like JS
// JSON.stringify); comparison and the canonical form ignore it. Numbers follow the JS model on
// output (one number type, printed like String(x)); integers parsed from the text stay exact
// while they fit int64/uint64.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/common/value.h"

namespace optic {

using Json = nlohmann::ordered_json;

struct JsonDoc {
  Json doc;
};

// nullptr when the text is not one valid JSON document (surrounding whitespace allowed).
std::shared_ptr<const JsonDoc> parseJson(std::string_view text);
std::shared_ptr<const JsonDoc> makeJson(Json j);

// Compact, in the document's own key order, numbers like JS String(x) (NaN/Infinity → null).
std::string serializeJson(const Json& j);
void serializeJson(const Json& j, std::string& out);
// Compact with object keys sorted recursively: equal documents have equal canonical text.
std::string canonicalJson(const Json& j);
// A JSON string literal for `s` (quotes and escapes as JSON.stringify writes them).
void appendJsonString(std::string_view s, std::string& out);

// Structural order: null < boolean < number < string < array < object; arrays element-wise then
// by length; objects by their (key, value) pairs in sorted key order, then by size.
int compareJson(const Json& a, const Json& b);
// Appends a byte string whose memcmp order equals compareJson order (for keys).
void encodeJsonKey(const Json& j, std::string& out);
size_t hashJson(const Json& j);

// JSON → SQL value: null → NULL, booleans, numbers, strings as themselves; arrays and objects
// as a JSON value sharing nothing with `j` (copied).
Value jsonToValue(const Json& j);
// SQL value → JSON: NULL → null, numbers (big integers as exact numbers where they fit, else
// their double), text → string, blob → string (lossy UTF-8), boolean, JSON as itself.
Json valueToJson(const Value& v);

}  // namespace optic
