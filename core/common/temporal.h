// Temporal values: DATE, TIME, DATETIME and TIMESPAN are text at run time, in one canonical
// ISO-8601 spelling each. These functions parse any accepted input spelling and return the
// canonical text, or nullopt when the input is not a valid value of that type. Inputs with a
// UTC offset or `Z` are converted to UTC and stored bare (sql-core.md §1.3).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace optic {

std::optional<std::string> normalizeDate(std::string_view text);      // 'YYYY-MM-DD'
std::optional<std::string> normalizeTime(std::string_view text);      // 'HH:MM:SS[.fff]'
std::optional<std::string> normalizeDateTime(std::string_view text);  // 'YYYY-MM-DDTHH:MM:SS[.fff]'
std::optional<std::string> normalizeTimespan(std::string_view text);  // ISO-8601 duration 'P…'

// TIMESPAN as elapsed seconds, for comparison and key encoding ('PT1H' == 'PT60M').
std::optional<double> timespanSeconds(std::string_view canonical);

}  // namespace optic
