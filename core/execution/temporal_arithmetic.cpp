// Temporal arithmetic (temporal_arithmetic.h). Durations follow Temporal.Duration, which the
// reference engine uses: calendar units (years, months, weeks) have no fixed length, so sums,
// ratios and time scaling of such durations are NULL; a scaled time duration is spelled in
// seconds ('PT1H' * 2 = 'PT7200S'); a sum is balanced up to the larger operand's largest unit
// ('PT1H' + 'PT30M' = 'PT1H30M').
#include "core/execution/temporal_arithmetic.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/common/error.h"
#include "core/common/temporal.h"

namespace optic {
namespace {

enum class Kind : uint8_t { kNone, kDate, kTime, kDateTime, kSpan, kNumber };

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int64_t kSecondsPerDay = 86400;
constexpr int64_t kMaxSafe = 9007199254740991;  // 2^53 − 1: larger integers are bigints in Q

[[noreturn]] void unsupported() { throw Error(ErrorCode::kUnsupported, "Unsupported temporal operation"); }

Kind kindOfType(LogicalType t) {
  switch (t) {
    case LogicalType::kDate: return Kind::kDate;
    case LogicalType::kTime: return Kind::kTime;
    case LogicalType::kDateTime: return Kind::kDateTime;
    case LogicalType::kTimespan: return Kind::kSpan;
    case LogicalType::kInteger:
    case LogicalType::kReal:
    case LogicalType::kNumeric: return Kind::kNumber;
    default: return Kind::kNone;
  }
}

bool digitsAt(const std::string& s, size_t pos, size_t n) {
  if (s.size() < pos + n) return false;
  for (size_t i = pos; i < pos + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool startsWithDate(const std::string& s) {
  return digitsAt(s, 0, 4) && s.size() >= 10 && s[4] == '-' && digitsAt(s, 5, 2) && s[7] == '-' && digitsAt(s, 8, 2);
}

// The shape of a runtime value (canonical temporal text, or a plain number).
Kind kindOfValue(const Value& v) {
  if (v.kind() == ValueKind::kReal) return Kind::kNumber;
  if (v.kind() == ValueKind::kInteger) {
    return v.asInt() <= kMaxSafe && v.asInt() >= -kMaxSafe ? Kind::kNumber : Kind::kNone;
  }
  if (!v.isText()) return Kind::kNone;
  const std::string& s = v.asText();
  if (s.size() == 10 && startsWithDate(s)) return Kind::kDate;
  if (startsWithDate(s) && s.size() > 10 && s[10] == 'T') return Kind::kDateTime;
  if (digitsAt(s, 0, 2) && s.size() >= 8 && s[2] == ':' && digitsAt(s, 3, 2) && s[5] == ':' && digitsAt(s, 6, 2))
    return Kind::kTime;
  if (!s.empty() && (s[0] == 'P' || (s.size() > 1 && s[0] == '-' && s[1] == 'P'))) return Kind::kSpan;
  return Kind::kNone;
}

// A value that fails to parse as its shape makes the whole result NULL, so the appliers return
// nullopt for it and an empty Value for any other NULL result.
using Result = std::optional<Value>;

bool hasCalendarUnits(const Timespan& t) { return t.years != 0 || t.months != 0 || t.weeks != 0; }

// The signed length of a duration without calendar units, in nanoseconds.
__int128 spanNanos(const Timespan& t) {
  __int128 s = static_cast<__int128>(t.days) * kSecondsPerDay + t.hours * 3600 + t.minutes * 60 + t.seconds;
  __int128 n = s * kNanosPerSecond + t.nanos;
  return t.negative ? -n : n;
}

// 0 = seconds, 1 = minutes, 2 = hours, 3 = days: the largest unit a duration spells.
int largestUnit(const Timespan& t) {
  if (t.days != 0) return 3;
  if (t.hours != 0) return 2;
  if (t.minutes != 0) return 1;
  return 0;
}

// A duration of `nanos`, balanced into `unit` and the units below it.
Timespan balance(__int128 nanos, int unit) {
  Timespan t;
  t.negative = nanos < 0;
  __int128 a = nanos < 0 ? -nanos : nanos;
  t.nanos = static_cast<int64_t>(a % kNanosPerSecond);
  __int128 secs = a / kNanosPerSecond;
  if (unit >= 3) {
    t.days = static_cast<int64_t>(secs / kSecondsPerDay);
    secs %= kSecondsPerDay;
  }
  if (unit >= 2) {
    t.hours = static_cast<int64_t>(secs / 3600);
    secs %= 3600;
  }
  if (unit >= 1) {
    t.minutes = static_cast<int64_t>(secs / 60);
    secs %= 60;
  }
  t.seconds = static_cast<int64_t>(secs);
  return t;
}

Value spanValue(const Timespan& t) { return Value::text(formatTimespan(t)); }

// Seconds as Temporal.Duration.from({seconds}) takes them: integral, or the result is NULL.
Result spanOfSeconds(double seconds) {
  if (!std::isfinite(seconds) || std::trunc(seconds) != seconds || std::fabs(seconds) > 9.2e18) return Value();
  return spanValue(balance(static_cast<__int128>(seconds) * kNanosPerSecond, 0));
}

double numberOf(const Value& v) { return v.toDouble(); }

Result dateDifference(const Value& a, const Value& b) {
  std::optional<CivilTime> x = parseCivilTime(a.asText()), y = parseCivilTime(b.asText());
  if (!x || !y) return std::nullopt;
  // Both sides collapse to their dates (the reference engine drops the time of day).
  int64_t days = daysFromCivil(x->year, x->month, x->day) - daysFromCivil(y->year, y->month, y->day);
  return spanValue(balance(static_cast<__int128>(days) * kSecondsPerDay * kNanosPerSecond, 3));
}

__int128 nanosOfDay(const CivilTime& t) {
  return (static_cast<__int128>(t.hour) * 3600 + t.minute * 60 + t.second) * kNanosPerSecond + t.nanos;
}

Result timeDifference(const Value& a, const Value& b) {
  std::optional<CivilTime> x = parseCivilTime(a.asText()), y = parseCivilTime(b.asText());
  if (!x || !y) return std::nullopt;
  return spanValue(balance(nanosOfDay(*x) - nanosOfDay(*y), 2));
}

Result shiftDate(const Value& date, const Value& span, int sign) {
  std::optional<CivilTime> d = parseCivilTime(date.asText());
  std::optional<Timespan> s = parseTimespan(span.asText());
  if (!d || !s) return std::nullopt;
  // A date moves by whole days only: the time part counts as the days it adds up to.
  Timespan whole = *s;
  whole.days += (s->hours * 3600 + s->minutes * 60 + s->seconds) / kSecondsPerDay;
  whole.hours = whole.minutes = whole.seconds = whole.nanos = 0;
  return Value::text(formatCanonicalDate(addTimespan(*d, whole, sign)));
}

Result shiftDateTime(const Value& dt, const Value& span, int sign) {
  std::optional<CivilTime> d = parseCivilTime(dt.asText());
  std::optional<Timespan> s = parseTimespan(span.asText());
  if (!d || !s) return std::nullopt;
  return Value::text(formatCanonicalDateTime(addTimespan(*d, *s, sign)));
}

Result shiftTime(const Value& time, const Value& span, int sign) {
  std::optional<CivilTime> t = parseCivilTime(time.asText());
  std::optional<Timespan> s = parseTimespan(span.asText());
  if (!t || !s) return std::nullopt;
  // A time of day wraps around midnight; calendar units do not move it.
  Timespan timePart = *s;
  timePart.years = timePart.months = timePart.weeks = 0;
  const __int128 day = static_cast<__int128>(kSecondsPerDay) * kNanosPerSecond;
  __int128 n = (nanosOfDay(*t) + sign * spanNanos(timePart)) % day;
  if (n < 0) n += day;
  CivilTime out;
  out.nanos = static_cast<int64_t>(n % kNanosPerSecond);
  int64_t secs = static_cast<int64_t>(n / kNanosPerSecond);
  out.hour = static_cast<int>(secs / 3600);
  out.minute = static_cast<int>(secs / 60 % 60);
  out.second = static_cast<int>(secs % 60);
  return Value::text(formatCanonicalTime(out));
}

Result combineSpans(const Value& a, const Value& b, int sign) {
  std::optional<Timespan> x = parseTimespan(a.asText()), y = parseTimespan(b.asText());
  if (!x || !y) return std::nullopt;
  if (hasCalendarUnits(*x) || hasCalendarUnits(*y)) return Value();  // needs a reference date
  return spanValue(balance(spanNanos(*x) + sign * spanNanos(*y), std::max(largestUnit(*x), largestUnit(*y))));
}

// Each field of a calendar duration scaled by `factor`; NULL when a field stops being integral.
Result scaleFields(const Timespan& t, double factor) {
  Timespan out;
  double sign = (t.negative ? -1.0 : 1.0) * (factor < 0 ? -1.0 : 1.0);
  double f = std::fabs(factor);
  int64_t* fields[] = {&out.years, &out.months, &out.weeks, &out.days, &out.hours, &out.minutes, &out.seconds};
  const int64_t in[] = {t.years, t.months, t.weeks, t.days, t.hours, t.minutes, t.seconds};
  for (size_t i = 0; i < 7; ++i) {
    double v = static_cast<double>(in[i]) * f;
    if (std::trunc(v) != v) return Value();
    *fields[i] = static_cast<int64_t>(v);
  }
  double nanos = static_cast<double>(t.nanos) * f;
  if (std::trunc(nanos) != nanos || nanos >= kNanosPerSecond) return Value();
  out.nanos = static_cast<int64_t>(nanos);
  out.negative = sign < 0;
  return spanValue(out);
}

double spanSeconds(const Timespan& t) { return static_cast<double>(spanNanos(t)) / kNanosPerSecond; }

Result scaleSpan(const Value& span, const Value& n) {
  std::optional<Timespan> t = parseTimespan(span.asText());
  if (!t) return std::nullopt;
  if (hasCalendarUnits(*t)) return scaleFields(*t, numberOf(n));
  return spanOfSeconds(spanSeconds(*t) * numberOf(n));
}

// Temporal's cascade: each field's remainder moves to the next smaller unit, except that a
// month has no fixed length, so months divide on their own and their remainder is dropped.
Result divideFields(const Timespan& t, double divisor) {
  double s = t.negative ? -1.0 : 1.0;
  double years = s * t.years, months = s * t.months, weeks = s * t.weeks, days = s * t.days, hours = s * t.hours,
         minutes = s * t.minutes, seconds = s * t.seconds + s * static_cast<double>(t.nanos) / 1e9;
  auto cascade = [divisor](double& field, double& next, double factor) {
    double q = std::trunc(field / divisor);
    next += (field - q * divisor) * factor;
    field = q;
  };
  cascade(years, months, 12);
  cascade(weeks, days, 7);
  cascade(days, hours, 24);
  cascade(hours, minutes, 60);
  cascade(minutes, seconds, 60);
  seconds = std::trunc(seconds * 1e9 / divisor) / 1e9;
  months = std::trunc(months / divisor);
  bool negative = years < 0 || months < 0 || weeks < 0 || days < 0 || hours < 0 || minutes < 0 || seconds < 0;
  Timespan out;
  out.negative = negative;
  out.years = static_cast<int64_t>(std::fabs(years));
  out.months = static_cast<int64_t>(std::fabs(months));
  out.weeks = static_cast<int64_t>(std::fabs(weeks));
  out.days = static_cast<int64_t>(std::fabs(days));
  out.hours = static_cast<int64_t>(std::fabs(hours));
  out.minutes = static_cast<int64_t>(std::fabs(minutes));
  double whole = std::trunc(std::fabs(seconds));
  out.seconds = static_cast<int64_t>(whole);
  out.nanos = static_cast<int64_t>(std::llround((std::fabs(seconds) - whole) * 1e9));
  return spanValue(out);
}

Result divideSpan(const Value& span, const Value& n) {
  std::optional<Timespan> t = parseTimespan(span.asText());
  if (!t) return std::nullopt;
  double d = numberOf(n);
  if (d == 0) return Value();
  if (hasCalendarUnits(*t)) return divideFields(*t, d);
  return spanOfSeconds(spanSeconds(*t) / d);
}

Result spanRatio(const Value& a, const Value& b) {
  std::optional<Timespan> x = parseTimespan(a.asText()), y = parseTimespan(b.asText());
  if (!x || !y) return std::nullopt;
  if (hasCalendarUnits(*x) || hasCalendarUnits(*y)) return Value();
  double den = spanSeconds(*y);
  if (den == 0) return Value();
  return Value::real(spanSeconds(*x) / den);
}

struct Case {
  TemporalOp op;
  Kind left, right;
  LogicalType result;
  Result (*apply)(const Value&, const Value&);
};

// The one table of supported pairings; anything absent is "Unsupported temporal operation".
const Case kCases[] = {
    {TemporalOp::kSub, Kind::kDate, Kind::kDate, LogicalType::kTimespan, dateDifference},
    {TemporalOp::kSub, Kind::kDate, Kind::kDateTime, LogicalType::kTimespan, dateDifference},
    {TemporalOp::kSub, Kind::kDateTime, Kind::kDate, LogicalType::kTimespan, dateDifference},
    {TemporalOp::kSub, Kind::kDateTime, Kind::kDateTime, LogicalType::kTimespan, dateDifference},
    {TemporalOp::kSub, Kind::kTime, Kind::kTime, LogicalType::kTimespan, timeDifference},
    {TemporalOp::kAdd, Kind::kDate, Kind::kSpan, LogicalType::kDate,
     [](const Value& a, const Value& b) { return shiftDate(a, b, 1); }},
    {TemporalOp::kAdd, Kind::kSpan, Kind::kDate, LogicalType::kDate,
     [](const Value& a, const Value& b) { return shiftDate(b, a, 1); }},
    {TemporalOp::kSub, Kind::kDate, Kind::kSpan, LogicalType::kDate,
     [](const Value& a, const Value& b) { return shiftDate(a, b, -1); }},
    {TemporalOp::kAdd, Kind::kDateTime, Kind::kSpan, LogicalType::kDateTime,
     [](const Value& a, const Value& b) { return shiftDateTime(a, b, 1); }},
    {TemporalOp::kAdd, Kind::kSpan, Kind::kDateTime, LogicalType::kDateTime,
     [](const Value& a, const Value& b) { return shiftDateTime(b, a, 1); }},
    {TemporalOp::kSub, Kind::kDateTime, Kind::kSpan, LogicalType::kDateTime,
     [](const Value& a, const Value& b) { return shiftDateTime(a, b, -1); }},
    {TemporalOp::kAdd, Kind::kTime, Kind::kSpan, LogicalType::kTime,
     [](const Value& a, const Value& b) { return shiftTime(a, b, 1); }},
    {TemporalOp::kAdd, Kind::kSpan, Kind::kTime, LogicalType::kTime,
     [](const Value& a, const Value& b) { return shiftTime(b, a, 1); }},
    {TemporalOp::kSub, Kind::kTime, Kind::kSpan, LogicalType::kTime,
     [](const Value& a, const Value& b) { return shiftTime(a, b, -1); }},
    {TemporalOp::kAdd, Kind::kSpan, Kind::kSpan, LogicalType::kTimespan,
     [](const Value& a, const Value& b) { return combineSpans(a, b, 1); }},
    {TemporalOp::kSub, Kind::kSpan, Kind::kSpan, LogicalType::kTimespan,
     [](const Value& a, const Value& b) { return combineSpans(a, b, -1); }},
    {TemporalOp::kDiv, Kind::kSpan, Kind::kSpan, LogicalType::kReal, spanRatio},
    {TemporalOp::kMul, Kind::kSpan, Kind::kNumber, LogicalType::kTimespan, scaleSpan},
    {TemporalOp::kMul, Kind::kNumber, Kind::kSpan, LogicalType::kTimespan,
     [](const Value& a, const Value& b) { return scaleSpan(b, a); }},
    {TemporalOp::kDiv, Kind::kSpan, Kind::kNumber, LogicalType::kTimespan, divideSpan},
};

const Case* findCase(TemporalOp op, Kind l, Kind r) {
  for (const Case& c : kCases)
    if (c.op == op && c.left == l && c.right == r) return &c;
  return nullptr;
}

}  // namespace

LogicalType temporalResultType(TemporalOp op, LogicalType l, LogicalType r) {
  Kind lk = kindOfType(l), rk = kindOfType(r);
  if (lk == Kind::kNone || rk == Kind::kNone) return LogicalType::kAny;
  const Case* c = findCase(op, lk, rk);
  return c ? c->result : LogicalType::kAny;
}

std::optional<Value> evalTemporal(TemporalOp op, const Value& l, const Value& r) {
  if (l.isNull() || r.isNull()) return Value();
  Kind lk = kindOfValue(l), rk = kindOfValue(r);
  auto temporal = [](Kind k) { return k != Kind::kNone && k != Kind::kNumber; };
  if (!temporal(lk) && !temporal(rk)) return std::nullopt;
  const Case* c = findCase(op, lk, rk);
  if (!c) unsupported();
  Result out = c->apply(l, r);
  return out ? std::move(*out) : Value();  // a malformed operand gives NULL
}

}  // namespace optic
