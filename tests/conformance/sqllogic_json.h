// JsValue: the JavaScript value model the reference runner compares in (test-corpus.md §2).
//
// The reference runner turns rows into JS values and compares them with chai `deep.equal`
// against `JSON.parse(expected)`. To reproduce that byte for byte we model exactly the values
// that can occur there: null, boolean, number (always a double: JS has one number type),
// string, array, and plain object (a key *set*: order kept for display only).
//
// Invariants:
//  - an object never holds two members with the same key (set() replaces, like JS assignment
//    and like JSON.parse on duplicate keys: last value wins, first position kept);
//  - keys and items are parallel for objects; arrays use items only.
//
// We parse JSON ourselves rather than through nlohmann because JSON.parse semantics matter
// at the edges: `-0` must stay negative zero (chai: -0 ≠ 0) and every number, however large,
// must become the nearest double.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace optic::sqllogic {

class JsValue {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  JsValue() = default;  // null
  static JsValue null() { return JsValue(); }
  static JsValue boolean(bool b);
  static JsValue number(double d);
  static JsValue string(std::string s);
  static JsValue array(std::vector<JsValue> items = {});
  static JsValue object();

  Kind kind() const { return kind_; }
  bool asBool() const { return bool_; }
  double asNumber() const { return number_; }
  const std::string& asString() const { return string_; }
  const std::vector<JsValue>& items() const { return items_; }  // array items / object values
  const std::vector<std::string>& keys() const { return keys_; }  // object keys

  void push(JsValue v) { items_.push_back(std::move(v)); }  // arrays
  void set(std::string key, JsValue v);                      // objects: replaces an existing key
  const JsValue* find(std::string_view key) const;           // objects: nullptr when absent

 private:
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<std::string> keys_;
  std::vector<JsValue> items_;
};

// JSON.parse: strict RFC 8259 text (JSON whitespace only, no trailing commas, no NaN). Returns
// nullopt and sets *error (when given) on malformed input.
std::optional<JsValue> parseJson(std::string_view text, std::string* error = nullptr);

// chai deep.equal: same kind; numbers by value except -0 ≠ 0 (and NaN equals NaN, as deep-eql
// does); arrays ordered; objects by key set and per-key value.
bool deepEqual(const JsValue& a, const JsValue& b);

// Compact JSON-like rendering for failure messages (not used for comparison). Numbers render
// in shortest round-trip form; NaN/Infinity, which JSON lacks, render as JS would name them.
std::string toDisplay(const JsValue& v);

// `text` cut to at most `max` bytes (on a UTF-8 boundary) with "…" appended when cut.
std::string truncateForDisplay(std::string text, size_t max);

}  // namespace optic::sqllogic
