// Row conversion (test-corpus.md §2): how the reference runner turns one result row into the JS
// value it compares, given the statement's column names and the row's cells already converted
// to JsValue (bigints → nearest double, blobs → index-keyed objects; see sqllogic_exec.h).
//
// Pure functions of names and values, so every rule is unit-testable without an engine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tests/conformance/sqllogic_json.h"

namespace optic::sqllogic {

// True when a single-column row with this column name is reported as the bare value rather
// than as an object: rules (a) `… is [not] null`, (b) `… - …`, (c) `f(…)` for the listed JSON and
// date/time functions.
bool isBareValueColumn(std::string_view columnName);

// One row as the reference builds it: the bare value for a qualifying single column, else an
// object keyed by the column names (an empty name becomes `col_<i>`; a repeated name keeps the
// last value, as JS property assignment does).
JsValue makeRow(const std::vector<std::string>& names, std::vector<JsValue> values);

}  // namespace optic::sqllogic
