// The reference runner's single-column "bare value" heuristic and row-object construction.
// Each rule is the JS expression of logic.spec.ts transcribed; see sqllogic_rows.h.
#include "tests/conformance/sqllogic_rows.h"

#include <array>

#include "tests/conformance/sqllogic_format.h"

namespace optic::sqllogic {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool hasBooleanConnective(std::string_view n) {
  return contains(n, " xor ") || contains(n, " and ") || contains(n, " or ");
}

// JS `.` (no `s` flag) matches anything but a line terminator: \n, \r, U+2028, U+2029.
bool hasLineTerminator(std::string_view s) {
  return contains(s, "\n") || contains(s, "\r") || contains(s, "\xE2\x80\xA8") || contains(s, "\xE2\x80\xA9");
}

// /^(json_extract|…|epoch_s_frac)\(.+\)$/ on the lower-cased name.
bool isSimpleFunctionCall(std::string_view n) {
  static constexpr std::array<std::string_view, 16> kFunctions = {
      "json_extract", "json_array_length", "json_array", "json_object", "json_insert", "json_replace",
      "json_set",     "json_remove",       "strftime",   "julianday",   "date",        "time",
      "datetime",     "epoch_s",           "epoch_ms",   "epoch_s_frac"};
  for (std::string_view f : kFunctions) {
    if (n.size() < f.size() + 3 || n.substr(0, f.size()) != f || n[f.size()] != '(' || n.back() != ')') continue;
    std::string_view between = n.substr(f.size() + 1, n.size() - f.size() - 2);
    if (!between.empty() && !hasLineTerminator(between)) return true;
  }
  return false;
}

}  // namespace

bool isBareValueColumn(std::string_view columnName) {
  std::string n = asciiLower(columnName);
  bool isNullTest = (endsWith(n, " is not null") || endsWith(n, " is null")) && !hasBooleanConnective(n);
  bool isSubtraction = contains(n, " - ") && !hasBooleanConnective(n);
  return isNullTest || isSubtraction || isSimpleFunctionCall(n);
}

JsValue makeRow(const std::vector<std::string>& names, std::vector<JsValue> values) {
  if (names.size() == 1 && values.size() == 1 && isBareValueColumn(names[0])) return std::move(values[0]);
  JsValue row = JsValue::object();
  for (size_t i = 0; i < values.size(); ++i) {
    std::string key = i < names.size() && !names[i].empty() ? names[i] : "col_" + std::to_string(i);
    row.set(std::move(key), std::move(values[i]));
  }
  return row;
}

}  // namespace optic::sqllogic
