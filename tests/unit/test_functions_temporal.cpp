// Date/time and TIMESPAN built-ins and temporal.h: expectations from the corpus (17, 98, 107,
// 44) and sql-core.md §1.3.
#include "tests/unit/test_functions_util.h"

#include "core/common/logical_type.h"
#include "core/common/temporal.h"

namespace optic::testing_fn {
namespace {

TEST(Temporal, Normalize) {
  EXPECT_EQ(normalizeDate("2024-01-15T10:30:00Z").value(), "2024-01-15");
  EXPECT_EQ(normalizeDate("2024-01-15T01:30:00+02:00").value(), "2024-01-14");
  EXPECT_EQ(normalizeDate("2024-01-15T23:30:00-05:00").value(), "2024-01-16");
  EXPECT_EQ(normalizeDate("2024-01-15T10:30:00+00:00[UTC]").value(), "2024-01-15");
  EXPECT_FALSE(normalizeDate("2023-02-29"));
  EXPECT_FALSE(normalizeDate(""));
  EXPECT_FALSE(normalizeDate("not-a-date"));
  EXPECT_EQ(normalizeTime("2024-01-15T10:30:00+02:00").value(), "08:30:00");
  EXPECT_EQ(normalizeTime("12:30:45.123").value(), "12:30:45.123");
  EXPECT_EQ(normalizeTime("2024-06-05").value(), "00:00:00");  // a bare date is at midnight
  EXPECT_FALSE(normalizeTime("not-a-time"));
  EXPECT_FALSE(normalizeDate("14:30:00"));  // a bare time holds no date
  EXPECT_EQ(normalizeDateTime("2024-01-01T12:00:00.500").value(), "2024-01-01T12:00:00.5");
  EXPECT_EQ(normalizeDateTime("2017-07-14T04:40:00+02:00").value(), "2017-07-14T02:40:00");
  EXPECT_EQ(normalizeDateTime("2024-07-22 10:30").value(), "2024-07-22T10:30:00");
}

TEST(Temporal, Timespans) {
  EXPECT_EQ(normalizeTimespan("P1Y2M3DT4H5M6S").value(), "P1Y2M3DT4H5M6S");
  EXPECT_EQ(normalizeTimespan("PT60M").value(), "PT60M");
  EXPECT_EQ(normalizeTimespan("2 days 3 hours").value(), "P2DT3H");
  EXPECT_EQ(normalizeTimespan("1 year 6 months").value(), "P1Y6M");
  EXPECT_EQ(normalizeTimespan("5 mins").value(), "PT5M");
  EXPECT_EQ(normalizeTimespan("-2 hours").value(), "-PT2H");
  EXPECT_FALSE(normalizeTimespan("not-a-duration"));
  EXPECT_FALSE(normalizeTimespan("P"));
  EXPECT_EQ(timespanSeconds("PT1H").value(), timespanSeconds("PT60M").value());
  EXPECT_LT(timespanSeconds("PT90M").value(), timespanSeconds("PT2H").value());
  EXPECT_EQ(timespanSeconds("P1D").value(), 86400);
  EXPECT_EQ(timespanSeconds("-PT1H").value(), -3600);
  CivilTime t = *parseCivilTime("2024-01-31");
  EXPECT_EQ(formatCanonicalDate(addTimespan(t, *parseTimespan("P1M"))), "2024-02-29");
  EXPECT_EQ(formatCanonicalDate(addTimespan(*parseCivilTime("2024-03-31"), *parseTimespan("P1M"), -1)),
            "2024-02-29");
}

// The reference's human-readable durations: "<number> <unit>" pairs found anywhere in the text
// (case-insensitive, the space optional, other text ignored, repeats adding up), the units
// year|month|week|day|hour|minute|second[s] and min[s]|sec[s] only, whole amounts only.
TEST(Temporal, HumanReadableTimespans) {
  EXPECT_EQ(normalizeTimespan("1 hour 30 minutes").value(), "PT1H30M");
  EXPECT_EQ(normalizeTimespan("1 hour and 30 minutes").value(), "PT1H30M");
  EXPECT_EQ(normalizeTimespan("1 Hour, 2 SECS").value(), "PT1H2S");
  EXPECT_EQ(normalizeTimespan("1hour").value(), "PT1H");
  EXPECT_EQ(normalizeTimespan("10 secs").value(), "PT10S");
  EXPECT_EQ(normalizeTimespan("about 5 days").value(), "P5D");
  EXPECT_EQ(normalizeTimespan("3 hours 2 hours").value(), "PT5H");
  EXPECT_EQ(normalizeTimespan("2 weeks 1 month").value(), "P1M2W");
  EXPECT_EQ(normalizeTimespan("1 hour 30").value(), "PT1H");  // a number without a unit is ignored
  EXPECT_EQ(normalizeTimespan(" - 2 days 1 minute").value(), "-P2DT1M");
  EXPECT_EQ(normalizeTimespan("90 minutes").value(), "PT90M");
  // Not units of the reference's pattern, or not whole amounts: no duration.
  for (const char* bad : {"5 h", "5 hrs", "2 ms", "3 m", "1 mo", "1.5 hours", "30.5 seconds", "hours", ""})
    EXPECT_FALSE(normalizeTimespan(bad)) << bad;
  EXPECT_EQ(normalizeTimespan("1.0 hours").value(), "PT1H");  // parseFloat('1.0') is whole
}

// Shifts and epoch numbers past JavaScript's range of dates are NULL, not an integer overflow.
TEST(TemporalFunctions, PastTheRangeOfDatesIsNull) {
  EXPECT_EQ(str(call("date", {T("2020-01-01"), T("+3 days")})), "2020-01-04");
  EXPECT_TRUE(call("date", {T("2020-01-01"), T("+99999999999 days")}).isNull());
  EXPECT_TRUE(call("date", {T("2020-01-01"), T("+200000 years"), T("+200000 years")}).isNull());
  EXPECT_TRUE(call("datetime", {I(INT64_MAX), T("unixepoch")}).isNull());
  EXPECT_EQ(str(call("datetime", {R(-1e10), T("unixepoch")})), "1653-02-10 06:13:20");
}

TEST(TemporalFunctions, Conversions) {
  EXPECT_EQ(str(call("date", {T("2024-03-15")})), "2024-03-15");
  EXPECT_EQ(str(call("datetime", {T("2024-03-15T14:30:00")})), "2024-03-15T14:30:00");
  EXPECT_EQ(str(call("time", {T("00:00:00")})), "00:00:00");
  EXPECT_TRUE(call("date", {N()}).isNull());
  for (const char* bad : {"", "not-a-date", "2023-02-29"}) {
    try {
      call("date", {T(bad)});
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("Cannot convert to DATE"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(call("time", {T("not-a-time")}), Error);
  EXPECT_THROW(call("datetime", {T("")}), Error);
  EXPECT_EQ(str(call("timespan", {I(3600)})), "PT3600S");
  EXPECT_EQ(str(call("timespan", {I(0)})), "PT0S");
  EXPECT_EQ(str(call("timespan", {T("30 minutes")})), "PT30M");
  EXPECT_THROW(call("timespan", {T("not-a-duration")}), Error);
  FunctionContext ctx;
  ctx.statementTimeMs = 1705320600000;  // 2024-01-15T12:10:00Z
  EXPECT_EQ(str(call("date", {T("now")}, ctx)), "2024-01-15");
  EXPECT_EQ(str(call("time", {T("now")}, ctx)), "12:10:00");
  EXPECT_EQ(str(call("epoch_ms", {T("now")}, ctx)), "1705320600000");
  EXPECT_TRUE(builtins().findScalar("date", 1)->nowSensitive);
}

// A number converts to TIME as seconds after midnight (the reference's TIME parse of a number):
// kept to the millisecond, wrapped at 24 hours; negative or non-finite numbers are refused.
TEST(TemporalFunctions, NumberToTimeIsSecondsOfTheDay) {
  EXPECT_EQ(str(call("time", {I(3661)})), "01:01:01");
  EXPECT_EQ(str(call("time", {R(1.5)})), "00:00:01.5");
  EXPECT_EQ(str(call("time", {R(0.0004)})), "00:00:00");
  EXPECT_EQ(str(call("time", {R(59.9996)})), "00:01:00");
  EXPECT_EQ(str(call("time", {I(90000)})), "01:00:00");
  EXPECT_EQ(str(call("time", {I(0)})), "00:00:00");
  EXPECT_EQ(str(convertStrict(I(45296), LogicalType::kTime)), "12:34:56");  // the write path too
  EXPECT_EQ(str(castTo(I(45296), LogicalType::kTime)), "12:34:56");
  try {
    call("time", {I(-5)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Cannot convert to TIME: Cannot convert '-5' to TIME: value must be a non-negative finite number of seconds");
  }
  // DATE and DATETIME still read a number as epoch milliseconds.
  EXPECT_EQ(str(call("date", {I(86400000)})), "1970-01-02");
  EXPECT_EQ(str(call("datetime", {I(3661000)})), "1970-01-01T01:01:01");
}

TEST(TemporalFunctions, Modifiers) {
  EXPECT_EQ(str(call("date", {T("2024-07-22"), T("weekday 1")})), "2024-07-22");
  EXPECT_EQ(str(call("date", {T("2024-07-22"), T("weekday 0")})), "2024-07-28");
  EXPECT_EQ(str(call("date", {T("2024-07-28"), T("weekday 6")})), "2024-08-03");
  EXPECT_EQ(str(call("datetime", {T("2024-07-22 10:30:00"), T("weekday 3")})), "2024-07-24 10:30:00");
  EXPECT_EQ(str(call("datetime", {T("2024-07-22 10:30:00"), T("weekday 3"), T("start of day")})),
            "2024-07-24 00:00:00");
  EXPECT_EQ(str(call("date", {T("2024-01-31"), T("+1 month")})), "2024-02-29");
  EXPECT_EQ(str(call("datetime", {T("2024-01-01 00:00:00"), T("-1 second")})), "2023-12-31 23:59:59");
  EXPECT_EQ(str(call("date", {T("2024-05-17"), T("start of year")})), "2024-01-01");
  EXPECT_TRUE(call("date", {T("garbage"), T("+1 day")}).isNull());
  EXPECT_EQ(str(call("julianday", {T("2000-01-01 12:00:00")})), "2451545");
  EXPECT_EQ(str(call("datetime", {I(1500000000), T("unixepoch")})), "2017-07-14 02:40:00");
}

TEST(TemporalFunctions, StrftimeAndEpoch) {
  EXPECT_EQ(str(call("strftime", {T("%Y"), T("2024-03-04")})), "2024");
  EXPECT_EQ(str(call("strftime", {T("%Y-%m-%d %H:%M:%S %j %w %u"), T("2024-03-04T05:06:07")})),
            "2024-03-04 05:06:07 064 1 1");
  EXPECT_EQ(str(call("strftime", {T("%V %G"), T("2021-01-03")})), "53 2020");
  EXPECT_EQ(str(call("strftime", {T("%s"), T("1970-01-02")})), "86400");
  EXPECT_EQ(str(call("epoch_s", {T("2017-07-14T02:40:00Z")})), "1500000000");
  EXPECT_EQ(str(call("epoch_s_frac", {T("1970-01-01T00:00:01.5")})), "1.5");
  EXPECT_TRUE(call("epoch_s", {I(1500000000)}).isNull());
  EXPECT_TRUE(call("epoch_s", {T("12:00:00")}).isNull());
}

TEST(TemporalFunctions, TimespanParts) {
  EXPECT_EQ(str(call("timespan_years", {T("P2Y3M")})), "2");
  EXPECT_EQ(str(call("timespan_months", {T("P2Y3M")})), "3");
  EXPECT_EQ(str(call("timespan_weeks", {T("P2W")})), "2");
  EXPECT_EQ(str(call("timespan_seconds", {T("PT1.5S")})), "1.5");
  EXPECT_TRUE(call("timespan_years", {I(42)}).isNull());
  EXPECT_TRUE(call("timespan_hours", {T("not-a-duration")}).isNull());
  EXPECT_EQ(str(call("timespan_total_seconds", {T("PT1H30M")})), "5400");
  EXPECT_EQ(str(call("timespan_total_minutes", {T("PT2H30M")})), "150");
  EXPECT_EQ(str(call("timespan_total_hours", {T("P1DT12H")})), "36");
  EXPECT_EQ(str(call("timespan_total_days", {T("P1W")})), "7");
  EXPECT_TRUE(call("timespan_total_days", {T("not-valid")}).isNull());
}

}  // namespace
}  // namespace optic::testing_fn
