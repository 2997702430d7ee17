// Date/time built-ins.
//
//  - date(x), time(x), datetime(x), timespan(x): strict conversions to the temporal types
//    (canonical text, "Cannot convert to DATE: …" on failure); 'now' reads the statement clock.
//  - date/time/datetime/julianday(x, modifier…), strftime(fmt, x, modifier…): SQLite-style,
//    lenient: x is ISO text, 'now', a julian day, or epoch seconds/milliseconds (by magnitude);
//    an unparsable x gives NULL. Modifiers: ±N day|hour|minute|second|month|year[s],
//    start of day|month|year, weekday N, unixepoch, utc, localtime (UTC here), subsec.
//    datetime() with modifiers spells 'YYYY-MM-DD HH:MM:SS', as SQLite does.
//  - epoch_s/epoch_ms/epoch_s_frac/unixepoch(x, modifier…): strict ISO text or 'now' only.
//  - IsISODate(x) / IsISODateTime(x): strict ISO shape checks, false (never NULL) otherwise.
//  - timespan_years … timespan_seconds: components; timespan_total_*: the whole duration in
//    one unit, calendar units measured from 2024-01-01.
// All clock readers are deterministic but nowSensitive (see function_registry.h): only a 'now'
// argument makes them depend on the statement clock.
#include <cmath>
#include <cstdio>
#include <map>

#include "core/common/names.h"
#include "core/common/temporal.h"
#include "core/execution/functions/function_util.h"

namespace optic {

namespace {

constexpr int64_t kMsPerDay = 86400000;
constexpr double kJulianDayUnixEpoch = 2440587.5;
constexpr double kMinEpochSeconds = -2208988800.0;  // ~1900
constexpr double kMaxEpochSeconds = 32503680000.0;  // ~3000
// The range of dates, JavaScript's (±100,000,000 days around 1970): a value or a shift outside it
// is NULL, and the arithmetic in milliseconds cannot overflow inside it.
constexpr double kDateRangeDays = 1e8;
constexpr double kDateRangeSeconds = kDateRangeDays * 86400;

std::string lowerTrim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return lowerName(s);
}

bool isNow(const Value& v) { return v.isText() && lowerTrim(v.asText()) == "now"; }

CivilTime nowCivil(const FunctionContext& ctx) { return civilFromEpochMs(ctx.statementTime()); }

bool inOpenRange(double v, double lo, double hi) { return v > lo && v < hi; }

// A number as an instant: julian day, epoch seconds or epoch milliseconds, by magnitude (or
// always seconds after the 'unixepoch' modifier).
std::optional<CivilTime> civilFromNumber(double v, bool unixEpoch) {
  if (!std::isfinite(v)) return std::nullopt;
  double ms;
  if (unixEpoch) {
    ms = v * 1000;
  } else if (inOpenRange(v, 1000000, 4000000)) {
    ms = (v - kJulianDayUnixEpoch) * kMsPerDay;
  } else if (inOpenRange(v, kMinEpochSeconds, kMaxEpochSeconds)) {
    ms = v * 1000;
  } else if (inOpenRange(v, kMinEpochSeconds * 1000, kMaxEpochSeconds * 1000)) {
    ms = v;
  } else {
    return std::nullopt;
  }
  if (!(std::fabs(ms) <= kDateRangeSeconds * 1000)) return std::nullopt;
  return civilFromEpochMs(static_cast<int64_t>(std::llround(ms)));
}

std::optional<CivilTime> parseTimeValue(const Value& v, bool unixEpoch, const FunctionContext& ctx) {
  if (v.isNull()) return std::nullopt;
  if (v.isNumeric()) return civilFromNumber(v.toDouble(), unixEpoch);
  if (!v.isText()) return std::nullopt;
  if (isNow(v)) return nowCivil(ctx);
  return parseCivilTime(v.asText());
}

int64_t dayNumber(const CivilTime& t) { return daysFromCivil(t.year, t.month, t.day); }
bool inDateRange(const CivilTime& t) { return std::abs(dayNumber(t)) <= kDateRangeDays; }
int isoWeekday(const CivilTime& t) {  // Monday = 1 … Sunday = 7; 1970-01-01 was a Thursday
  int64_t d = dayNumber(t) + 3;
  return static_cast<int>(((d % 7) + 7) % 7) + 1;
}

CivilTime addDays(const CivilTime& t, int64_t days) {
  Timespan d;
  d.negative = days < 0;
  d.days = days < 0 ? -days : days;
  return addTimespan(t, d);
}

// '+3 days', '-1.5 seconds', '2 months'. False (result NULL) when the amount is not allowed for
// the unit, as Temporal refuses fractional hours and minutes.
std::optional<bool> applyRelative(CivilTime& t, const std::string& m) {
  size_t i = 0;
  bool negative = false;
  if (i < m.size() && (m[i] == '+' || m[i] == '-')) negative = m[i++] == '-';
  while (i < m.size() && m[i] == ' ') ++i;
  size_t n0 = i;
  while (i < m.size() && (std::isdigit(static_cast<unsigned char>(m[i])) || m[i] == '.')) ++i;
  if (i == n0 || i >= m.size() || m[i] != ' ') return std::nullopt;  // not a relative modifier
  double amount = std::atof(m.substr(n0, i - n0).c_str());
  while (i < m.size() && m[i] == ' ') ++i;
  std::string unit = m.substr(i);
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  Timespan d;
  d.negative = negative;
  double whole = std::trunc(amount);
  // A shift past the range of dates is NULL (and its arithmetic in milliseconds would overflow).
  static const std::map<std::string, double> kSecondsPer = {
      {"year", 31556952}, {"month", 2629746}, {"day", 86400}, {"hour", 3600}, {"minute", 60}, {"second", 1}};
  auto per = kSecondsPer.find(unit);
  if (per != kSecondsPer.end() && !(std::fabs(whole) * per->second <= kDateRangeSeconds)) return false;
  int64_t n = static_cast<int64_t>(whole);
  if (unit == "year") d.years = n;
  else if (unit == "month") d.months = n;
  else if (unit == "day") d.days = n;
  else if (unit == "hour" || unit == "minute") {
    if (amount != whole) return false;
    (unit == "hour" ? d.hours : d.minutes) = n;
  } else if (unit == "second") {
    d.seconds = n;
    d.nanos = static_cast<int64_t>(std::llround((amount - whole) * 1e9));
  } else {
    return std::nullopt;
  }
  t = addTimespan(t, d);
  return inDateRange(t);
}

// Applies one arithmetic modifier; false means the whole call yields NULL. Unknown modifiers are
// ignored, as the reference ignores them.
bool applyModifier(CivilTime& t, const std::string& raw) {
  std::string m = lowerTrim(raw);
  if (std::optional<bool> rel = applyRelative(t, m)) return *rel;
  if (m == "start of day" || m == "start of month" || m == "start of year") {
    t.hour = t.minute = t.second = 0;
    t.nanos = 0;
    if (m != "start of day") t.day = 1;
    if (m == "start of year") t.month = 1;
    return true;
  }
  if (m.size() == 9 && m.compare(0, 8, "weekday ") == 0 && m[8] >= '0' && m[8] <= '6') {
    int target = m[8] == '0' ? 7 : m[8] - '0';
    t = addDays(t, (target - isoWeekday(t) + 7) % 7);
  }
  return true;
}

struct Processed {
  std::optional<CivilTime> t;
  bool subsec = false;
};

// Shared argument processing of the SQLite-style functions: the time value, then control
// modifiers (unixepoch, utc, localtime, subsec) and arithmetic modifiers in order.
Processed processArgs(Args args, FunctionContext& ctx) {
  Processed p;
  if (args.empty()) {
    p.t = nowCivil(ctx);
    return p;
  }
  bool unixEpoch = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].isText() && lowerTrim(args[i].asText()) == "unixepoch") unixEpoch = true;
  }
  p.t = parseTimeValue(args[0], unixEpoch && args[0].isNumeric(), ctx);
  if (!p.t) return p;
  for (size_t i = 1; i < args.size(); ++i) {
    if (!args[i].isText()) continue;
    std::string m = lowerTrim(args[i].asText());
    if (m == "unixepoch" || m == "utc" || m == "localtime") continue;
    if (m == "subsec") {
      p.subsec = true;
      continue;
    }
    if (!applyModifier(*p.t, args[i].asText())) {
      p.t.reset();
      return p;
    }
  }
  return p;
}

std::string two(int64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%02lld", static_cast<long long>(v));
  return buf;
}
std::string padded(int64_t v, int width, char fill) {
  std::string s = std::to_string(v);
  return s.size() >= static_cast<size_t>(width) ? s : std::string(width - s.size(), fill) + s;
}

// 'HH:MM:SS', with '.SSS' milliseconds under the subsec modifier.
std::string sqliteTime(const CivilTime& t, bool subsec) {
  std::string out = two(t.hour) + ":" + two(t.minute) + ":" + two(t.second);
  if (subsec) out += "." + padded(t.nanos / 1000000, 3, '0');
  return out;
}

int64_t epochSeconds(const CivilTime& t) {
  int64_t ms = epochMsFromCivil(t);
  return ms / 1000 - (ms % 1000 < 0 ? 1 : 0);
}
double julianDay(const CivilTime& t) {
  return static_cast<double>(epochMsFromCivil(t)) / kMsPerDay + kJulianDayUnixEpoch;
}

int dayOfYear(const CivilTime& t) {
  return static_cast<int>(dayNumber(t) - daysFromCivil(t.year, 1, 1)) + 1;
}

// ISO-8601 week number and week-numbering year.
std::pair<int64_t, int> isoWeek(const CivilTime& t) {
  CivilTime thursday = addDays(t, 4 - isoWeekday(t));
  return {thursday.year, (dayOfYear(thursday) - 1) / 7 + 1};
}

int hour12(int h) { return h % 12 == 0 ? 12 : h % 12; }

std::string lastTwo(int64_t year) {
  std::string s = std::to_string(year);
  return s.size() > 2 ? s.substr(s.size() - 2) : s;
}

std::string strftimeSpec(char c, const CivilTime& t) {
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  switch (c) {
    case 'Y': return padded(t.year, 4, '0');
    case 'm': return two(t.month);
    case 'd': return two(t.day);
    case 'j': return padded(dayOfYear(t), 3, '0');
    case 'F': return padded(t.year, 4, '0') + "-" + two(t.month) + "-" + two(t.day);
    case 'D': return two(t.month) + "/" + two(t.day) + "/" + lastTwo(t.year);
    case 'C': return two(t.year / 100);
    case 'y': return lastTwo(t.year);
    case 'h':
    case 'b': return kMonths[t.month - 1];
    case 'e': return padded(t.day, 2, ' ');
    case 'H': return two(t.hour);
    case 'M': return two(t.minute);
    case 'S': return two(t.second);
    case 'f': return "." + padded(t.nanos / 1000000, 3, '0');
    case 's':
    case 'E': return std::to_string(epochSeconds(t));
    case 'Q': return std::to_string(epochMsFromCivil(t));
    case 'I': return two(hour12(t.hour));
    case 'k': return padded(t.hour, 2, ' ');
    case 'l': return padded(hour12(t.hour), 2, ' ');
    case 'p': return t.hour < 12 ? "AM" : "PM";
    case 'P': return t.hour < 12 ? "am" : "pm";
    case 'T': return two(t.hour) + ":" + two(t.minute) + ":" + two(t.second);
    case 'R': return two(t.hour) + ":" + two(t.minute);
    case 'r': return two(hour12(t.hour)) + ":" + two(t.minute) + ":" + two(t.second) + (t.hour < 12 ? " AM" : " PM");
    case 'w': return std::to_string(isoWeekday(t) % 7);
    case 'u': return std::to_string(isoWeekday(t));
    case 'W':
    case 'V': return two(isoWeek(t).second);
    case 'g': return lastTwo(isoWeek(t).first);
    case 'G': return padded(isoWeek(t).first, 4, '0');
    case 'J': return formatReal(julianDay(t));
    case 'z': return "+0000";
    case '%': return "%";
    default: return std::string("%") + c;
  }
}

Value strftimeValue(Args a, FunctionContext& ctx) {
  if (!a[0].isText()) return Value();
  Processed p = processArgs(a.subspan(1), ctx);
  if (!p.t) return Value();
  const std::string& fmt = a[0].asText();
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] == '%' && i + 1 < fmt.size()) {
      out += strftimeSpec(fmt[++i], *p.t);
    } else {
      out += fmt[i];
    }
  }
  return Value::text(std::move(out));
}

// The SQLite-style formatters, one per output shape.
enum class Shape { kDate, kTime, kDateTime, kJulian };

ScalarImpl sqliteStyle(Shape shape) {
  return [shape](Args a, FunctionContext& ctx) -> Value {
    Processed p = processArgs(a, ctx);
    if (!p.t) return Value();
    switch (shape) {
      case Shape::kDate: return Value::text(formatCanonicalDate(*p.t));
      case Shape::kTime: return Value::text(sqliteTime(*p.t, p.subsec));
      case Shape::kDateTime: return Value::text(formatCanonicalDate(*p.t) + " " + sqliteTime(*p.t, p.subsec));
      case Shape::kJulian: return Value::real(julianDay(*p.t));
    }
    return Value();
  };
}

// Strict conversion to a temporal type; 'now' reads the clock and numbers are epoch ms.
ScalarImpl temporalConversion(LogicalType type) {
  return [type](Args a, FunctionContext& ctx) -> Value {
    const Value& v = a[0];
    if (v.isNull()) return v;
    std::optional<CivilTime> t;
    if (isNow(v)) t = nowCivil(ctx);
    // A number is an instant in epoch milliseconds for DATE and DATETIME; TIME reads it as
    // seconds after midnight (the strict conversion).
    else if (v.isNumeric() && type != LogicalType::kTime) t = civilFromEpochMs(static_cast<int64_t>(std::llround(v.toDouble())));
    if (!t) return fn::convertOrThrow(v, type);
    if (type == LogicalType::kDate) return Value::text(formatCanonicalDate(*t));
    if (type == LogicalType::kTime) {
      t->nanos = 0;
      return Value::text(formatCanonicalTime(*t));
    }
    return Value::text(formatCanonicalDateTime(*t));
  };
}

Value timespanValue(Args a, FunctionContext&) {
  const Value& v = a[0];
  if (v.isNull()) return v;
  if (v.isNumeric()) return Value::text(formatTimespan(timespanFromSeconds(v.toDouble())));
  return fn::convertOrThrow(v, LogicalType::kTimespan);
}

// IsISODate / IsISODateTime: whether text is strictly an ISO calendar date ('YYYY-MM-DD') or
// date-time ('YYYY-MM-DDTHH:MM[:SS[.f…]][Z|±HH:MM]', at most nine fraction digits) naming a
// real day and time, after trimming whitespace. Anything else, NULL included, is false.
class IsoScanner {
 public:
  explicit IsoScanner(std::string_view s) : s_(s) {}
  bool done() const { return i_ == s_.size(); }
  bool literal(char c) {
    if (i_ >= s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool atAnyOf(std::string_view chars) const { return i_ < s_.size() && chars.find(s_[i_]) != std::string_view::npos; }
  // Exactly n digits as a number; nullopt when they are not there.
  std::optional<int> digits(size_t n) {
    if (i_ + n > s_.size()) return std::nullopt;
    int v = 0;
    for (size_t k = 0; k < n; ++k) {
      char c = s_[i_ + k];
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    i_ += n;
    return v;
  }
  // One to nine fraction digits.
  bool fraction() {
    size_t n = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_, ++n;
    return n >= 1 && n <= 9;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

std::string_view trimWhitespace(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

bool scanIsoDate(IsoScanner& in) {
  auto y = in.digits(4);
  if (!y || !in.literal('-')) return false;
  auto m = in.digits(2);
  if (!m || !in.literal('-')) return false;
  auto d = in.digits(2);
  return d && *m >= 1 && *m <= 12 && *d >= 1 && *d <= daysInMonth(*y, *m);
}

// HH:MM with the given bounds on each part (a leap second 60 is accepted, as the reference's
// Temporal parser constrains it).
bool scanClockPair(IsoScanner& in, int maxFirst) {
  auto h = in.digits(2);
  if (!h || !in.literal(':')) return false;
  auto m = in.digits(2);
  return m && *h <= maxFirst && *m <= 59;
}

Value isIsoDate(Args a, FunctionContext&) {
  if (!a[0].isText()) return Value::boolean(false);
  IsoScanner in(trimWhitespace(a[0].asText()));
  return Value::boolean(scanIsoDate(in) && in.done());
}

Value isIsoDateTime(Args a, FunctionContext&) {
  if (!a[0].isText()) return Value::boolean(false);
  IsoScanner in(trimWhitespace(a[0].asText()));
  if (!scanIsoDate(in) || !in.literal('T') || !scanClockPair(in, 23)) return Value::boolean(false);
  if (in.literal(':')) {
    auto sec = in.digits(2);
    if (!sec || *sec > 60) return Value::boolean(false);
    if (in.literal('.') && !in.fraction()) return Value::boolean(false);
  }
  if (!in.literal('Z') && in.atAnyOf("+-")) {
    if (!in.literal('+')) in.literal('-');
    if (!scanClockPair(in, 23)) return Value::boolean(false);
  }
  return Value::boolean(in.done());
}

// epoch_*: only ISO text with a date part (no bracket zones) or 'now'; numbers are ambiguous
// and give NULL.
std::optional<CivilTime> strictInstant(Args a, FunctionContext& ctx) {
  if (a.empty() || !a[0].isText()) return std::nullopt;
  std::optional<CivilTime> t;
  if (isNow(a[0])) {
    t = nowCivil(ctx);
  } else {
    const std::string& s = a[0].asText();
    bool shaped = s.size() >= 10 && s[4] == '-' && s[7] == '-' && s.find('[') == std::string::npos;
    if (!shaped) return std::nullopt;
    t = parseCivilTime(s);
  }
  for (size_t i = 1; t && i < a.size(); ++i) {
    if (!a[i].isText()) continue;
    std::string m = lowerTrim(a[i].asText());
    if (m == "utc" || m == "localtime") continue;
    if (!applyModifier(*t, a[i].asText())) t.reset();
  }
  return t;
}

enum class EpochUnit { kSeconds, kMillis, kFractional };

ScalarImpl epochFunction(EpochUnit unit) {
  return [unit](Args a, FunctionContext& ctx) -> Value {
    std::optional<CivilTime> t = strictInstant(a, ctx);
    if (!t) return Value();
    int64_t ms = epochMsFromCivil(*t);
    switch (unit) {
      case EpochUnit::kSeconds: return Value::integer(epochSeconds(*t));
      case EpochUnit::kMillis: return Value::integer(ms);
      case EpochUnit::kFractional: return Value::real(static_cast<double>(ms) / 1000.0);
    }
    return Value();
  };
}

std::optional<Timespan> timespanArg(const Value& v) {
  if (!v.isText()) return std::nullopt;
  return parseTimespan(v.asText());
}

// timespan_years … timespan_minutes: one signed component.
ScalarImpl component(int64_t Timespan::*field) {
  return [field](Args a, FunctionContext&) -> Value {
    std::optional<Timespan> t = timespanArg(a[0]);
    if (!t) return Value();
    int64_t v = (*t).*field;
    return Value::integer(t->negative ? -v : v);
  };
}

Value secondsComponent(Args a, FunctionContext&) {
  std::optional<Timespan> t = timespanArg(a[0]);
  if (!t) return Value();
  double s = static_cast<double>(t->seconds) + static_cast<double>(t->nanos) / 1e9;
  return fn::numberResult(t->negative ? -s : s);
}

ScalarImpl total(double secondsPerUnit) {
  return [secondsPerUnit](Args a, FunctionContext&) -> Value {
    if (!a[0].isText()) return Value();
    std::optional<double> s = timespanSeconds(a[0].asText());
    if (!s) return Value();
    return fn::numberResult(*s / secondsPerUnit);
  };
}

void addClockReader(FunctionRegistry& r, std::string name, int minArgs, int maxArgs, LogicalType type,
                    ScalarImpl impl) {
  ScalarFunction f;
  f.name = std::move(name);
  f.minArgs = minArgs;
  f.maxArgs = maxArgs;
  f.returnType = type;
  f.nowSensitive = true;
  f.impl = std::move(impl);
  r.addScalar(std::move(f));
}

}  // namespace

void registerTemporalFunctions(FunctionRegistry& r) {
  addClockReader(r, "date", 1, 1, LogicalType::kDate, temporalConversion(LogicalType::kDate));
  addClockReader(r, "time", 1, 1, LogicalType::kTime, temporalConversion(LogicalType::kTime));
  addClockReader(r, "datetime", 1, 1, LogicalType::kDateTime, temporalConversion(LogicalType::kDateTime));
  addClockReader(r, "date", 0, -1, LogicalType::kDate, sqliteStyle(Shape::kDate));
  addClockReader(r, "time", 0, -1, LogicalType::kTime, sqliteStyle(Shape::kTime));
  addClockReader(r, "datetime", 0, -1, LogicalType::kText, sqliteStyle(Shape::kDateTime));
  addClockReader(r, "julianday", 0, -1, LogicalType::kReal, sqliteStyle(Shape::kJulian));
  addClockReader(r, "strftime", 1, -1, LogicalType::kText, strftimeValue);
  addClockReader(r, "epoch_s", 1, -1, LogicalType::kInteger, epochFunction(EpochUnit::kSeconds));
  addClockReader(r, "unixepoch", 1, -1, LogicalType::kInteger, epochFunction(EpochUnit::kSeconds));
  addClockReader(r, "epoch_ms", 1, -1, LogicalType::kInteger, epochFunction(EpochUnit::kMillis));
  addClockReader(r, "epoch_s_frac", 1, -1, LogicalType::kReal, epochFunction(EpochUnit::kFractional));

  fn::addScalar(r, "IsISODate", 1, 1, LogicalType::kBoolean, isIsoDate);
  fn::addScalar(r, "IsISODateTime", 1, 1, LogicalType::kBoolean, isIsoDateTime);
  fn::addScalar(r, "timespan", 1, 1, LogicalType::kTimespan, timespanValue);
  const LogicalType integer = LogicalType::kInteger;
  fn::addScalar(r, "timespan_years", 1, 1, integer, component(&Timespan::years));
  fn::addScalar(r, "timespan_months", 1, 1, integer, component(&Timespan::months));
  fn::addScalar(r, "timespan_weeks", 1, 1, integer, component(&Timespan::weeks));
  fn::addScalar(r, "timespan_days", 1, 1, integer, component(&Timespan::days));
  fn::addScalar(r, "timespan_hours", 1, 1, integer, component(&Timespan::hours));
  fn::addScalar(r, "timespan_minutes", 1, 1, integer, component(&Timespan::minutes));
  fn::addScalar(r, "timespan_seconds", 1, 1, LogicalType::kReal, secondsComponent);
  fn::addScalar(r, "timespan_total_seconds", 1, 1, LogicalType::kReal, total(1));
  fn::addScalar(r, "timespan_total_minutes", 1, 1, LogicalType::kReal, total(60));
  fn::addScalar(r, "timespan_total_hours", 1, 1, LogicalType::kReal, total(3600));
  fn::addScalar(r, "timespan_total_days", 1, 1, LogicalType::kReal, total(86400));
}

}  // namespace optic
