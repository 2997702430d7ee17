// Temporal values: DATE, TIME, DATETIME and TIMESPAN are text at run time, in one canonical
// ISO-8601 spelling each. These functions parse any accepted input spelling and return the
// canonical text, or nullopt when the input is not a valid value of that type. Inputs with a
// UTC offset or `Z` are converted to UTC and stored bare (sql-core.md §1.3).
#pragma once

#include <cstdint>
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

// ---- Added for the date/time functions and temporal arithmetic ----

// A broken-down UTC date and time (proleptic Gregorian). Invariant when produced here: fields in
// range (month 1–12, day valid for the month, hour 0–23, minute/second 0–59, nanos < 1e9).
struct CivilTime {
  int64_t year = 2000;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  int64_t nanos = 0;
};

// Any accepted spelling of a DATE, TIME or DATETIME ('2024-01-15', '2024-01-15 10:30',
// '2024-01-15T10:30:00.5+02:00', '…Z[UTC]', '10:30:00'), shifted to UTC. A bare time is
// anchored at 2000-01-01. nullopt when not valid.
std::optional<CivilTime> parseCivilTime(std::string_view text);
int64_t daysFromCivil(int64_t year, int month, int day);  // days since 1970-01-01
CivilTime civilFromEpochMs(int64_t ms);
int64_t epochMsFromCivil(const CivilTime& t);             // nanos truncated to milliseconds
int daysInMonth(int64_t year, int month);
// The canonical spellings (fraction digits only when non-zero, trailing zeros dropped).
std::string formatCanonicalDate(const CivilTime& t);      // 'YYYY-MM-DD'
std::string formatCanonicalTime(const CivilTime& t);      // 'HH:MM:SS[.f]'
std::string formatCanonicalDateTime(const CivilTime& t);  // 'YYYY-MM-DDTHH:MM:SS[.f]'

// A TIMESPAN broken into its ISO-8601 components (all non-negative; `negative` is the sign of
// the whole duration, as ISO-8601 and Temporal.Duration allow only one sign).
struct Timespan {
  bool negative = false;
  int64_t years = 0, months = 0, weeks = 0, days = 0, hours = 0, minutes = 0, seconds = 0;
  int64_t nanos = 0;  // fraction of a second, < 1e9
};
// ISO-8601 ('P1Y2M', '-PT1.5S', lower-case designators too) or human-readable ('2 days 3 hours',
// '5 mins', '-2 hours'). nullopt when neither.
std::optional<Timespan> parseTimespan(std::string_view text);
std::string formatTimespan(const Timespan& t);  // canonical ISO text; zero is 'PT0S'
Timespan timespanFromSeconds(double seconds);    // timespan(3600) = 'PT3600S'
// Adds the duration to t the way Temporal does: years and months first (the day clamped to the
// month's length), then weeks and days, then the time part. `sign` = -1 subtracts.
CivilTime addTimespan(const CivilTime& t, const Timespan& d, int sign = 1);

}  // namespace optic
