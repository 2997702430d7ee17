// Temporal text: parsing every accepted DATE/TIME/DATETIME/TIMESPAN spelling, the canonical
// spellings, and the calendar arithmetic the date/time functions share (temporal.h).
//
// Dates are proleptic Gregorian, times UTC. A value with a UTC offset or `Z` (optionally followed
// by a bracketed zone annotation such as `[UTC]`) is shifted to UTC. Canonical text follows
// Temporal's toString: fraction digits appear only when non-zero, trailing zeros dropped
// ('12:00:00.5'). TIMESPAN text keeps its components as written ('PT60M' stays 'PT60M'); only
// timespanSeconds() gives durations a common scale, measured from 2024-01-01 like the reference
// engine so that months and years have calendar lengths.
#include "core/common/temporal.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/common/names.h"

namespace optic {

namespace {

constexpr int64_t kSecondsPerDay = 86400;

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
// a % b moved to b's sign: never overflows, where a - floorDiv(a, b) * b does near INT64_MIN.
int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

bool isLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

std::string_view trimSpaces(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A forward-only reader over the text being parsed.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool eatAny(const char* set) {
    for (const char* p = set; *p; ++p) {
      if (eat(*p)) return true;
    }
    return false;
  }
  // Exactly n digits.
  bool fixed(int n, int64_t& out) {
    if (i_ + n > s_.size()) return false;
    out = 0;
    for (int k = 0; k < n; ++k) {
      char c = s_[i_ + k];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    i_ += n;
    return true;
  }
  // One or more digits (at most 15, so the value fits); returns the count read.
  int digits(int64_t& out) {
    out = 0;
    int n = 0;
    while (!done() && std::isdigit(static_cast<unsigned char>(peek())) && n < 15) {
      out = out * 10 + (s_[i_++] - '0');
      ++n;
    }
    return n;
  }
  // Fraction digits after '.' or ',' as nanoseconds (1–9 digits).
  bool fraction(int64_t& nanos) {
    int n = 0;
    nanos = 0;
    while (!done() && std::isdigit(static_cast<unsigned char>(peek()))) {
      if (n++ >= 9) return false;
      nanos = nanos * 10 + (s_[i_++] - '0');
    }
    if (n == 0) return false;
    for (int k = n; k < 9; ++k) nanos *= 10;
    return true;
  }
  size_t pos() const { return i_; }
  void reset(size_t p) { i_ = p; }
  std::string_view rest() const { return s_.substr(i_); }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

struct ParsedCivil {
  CivilTime t;
  bool hasDate = false;
  bool hasTime = false;
};

bool parseDate(Cursor& c, CivilTime& t) {
  int64_t y, m, d;
  size_t start = c.pos();
  int sign = 1;
  if (c.peek() == '+' || c.peek() == '-') {  // extended years: ±YYYYYY
    sign = c.eat('-') ? -1 : (c.eat('+'), 1);
    if (!c.fixed(6, y)) return false;
  } else if (!c.fixed(4, y)) {
    return false;
  }
  bool extended = c.eat('-');
  if (!c.fixed(2, m)) return false;
  if (extended && !c.eat('-')) return false;
  if (!c.fixed(2, d)) return false;
  (void)start;
  y *= sign;
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, static_cast<int>(m))) return false;
  t.year = y;
  t.month = static_cast<int>(m);
  t.day = static_cast<int>(d);
  return true;
}

bool parseTime(Cursor& c, CivilTime& t) {
  int64_t h, mi, s = 0, nanos = 0;
  if (!c.fixed(2, h) || !c.eat(':') || !c.fixed(2, mi)) return false;
  if (c.eat(':')) {
    if (!c.fixed(2, s)) return false;
    if (c.eatAny(".,") && !c.fraction(nanos)) return false;
  }
  if (h > 23 || mi > 59 || s > 60) return false;
  if (s == 60) s = 59;  // Temporal constrains a leap second to :59
  t.hour = static_cast<int>(h);
  t.minute = static_cast<int>(mi);
  t.second = static_cast<int>(s);
  t.nanos = nanos;
  return true;
}

// 'Z', '±HH', '±HHMM' or '±HH:MM' → offset seconds east of UTC. False when malformed.
bool parseOffset(Cursor& c, bool& present, int64_t& offsetSeconds) {
  present = false;
  offsetSeconds = 0;
  if (c.eatAny("Zz")) {
    present = true;
    return true;
  }
  if (c.peek() != '+' && c.peek() != '-') return true;
  int sign = c.eat('-') ? -1 : (c.eat('+'), 1);
  int64_t h, m = 0;
  if (!c.fixed(2, h)) return false;
  if (c.eat(':')) {
    if (!c.fixed(2, m)) return false;
  } else if (!c.done() && c.peek() != '[') {
    if (!c.fixed(2, m)) return false;
  }
  if (h > 23 || m > 59) return false;
  present = true;
  offsetSeconds = sign * (h * 3600 + m * 60);
  return true;
}

// '[UTC]'-style annotation. Without an explicit offset only UTC zones can be resolved.
bool parseAnnotation(Cursor& c, bool offsetPresent) {
  if (!c.eat('[')) return true;
  std::string_view rest = c.rest();
  size_t close = rest.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view zone = rest.substr(0, close);
  c.reset(c.pos() + close + 1);
  if (!zone.empty() && zone[0] == '!') zone.remove_prefix(1);
  return offsetPresent || zone == "UTC" || zone == "Etc/UTC" || zone == "Z";
}

CivilTime shiftSeconds(const CivilTime& t, int64_t deltaSeconds) {
  int64_t total = daysFromCivil(t.year, t.month, t.day) * kSecondsPerDay + t.hour * 3600 +
                  t.minute * 60 + t.second + deltaSeconds;
  CivilTime out = civilFromEpochMs(total * 1000);
  out.nanos = t.nanos;
  return out;
}

std::optional<ParsedCivil> parseCivil(std::string_view text) {
  text = trimSpaces(text);
  if (text.empty()) return std::nullopt;
  ParsedCivil p;
  Cursor c(text);
  size_t start = c.pos();
  if (parseDate(c, p.t)) {
    p.hasDate = true;
    if (c.eatAny("Tt ")) {
      if (!parseTime(c, p.t)) return std::nullopt;
      p.hasTime = true;
    }
  } else {
    c.reset(start);
    if (!parseTime(c, p.t)) return std::nullopt;
    p.hasTime = true;
  }
  bool offsetPresent;
  int64_t offset;
  if (!parseOffset(c, offsetPresent, offset)) return std::nullopt;
  if (offsetPresent && !p.hasTime) return std::nullopt;
  if (!parseAnnotation(c, offsetPresent) || !c.done()) return std::nullopt;
  if (offset != 0) p.t = shiftSeconds(p.t, -offset);
  return p;
}

std::string pad(int64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(v));
  return buf;
}

std::string yearText(int64_t y) {
  if (y >= 0 && y <= 9999) return pad(y, 4);
  return (y < 0 ? "-" : "+") + pad(y < 0 ? -y : y, 6);
}

// '.5', '.123', '' for zero: nine digits with trailing zeros dropped.
std::string fractionText(int64_t nanos) {
  if (nanos == 0) return "";
  std::string f = pad(nanos, 9);
  while (!f.empty() && f.back() == '0') f.pop_back();
  return "." + f;
}

// ---- TIMESPAN ----------------------------------------------------------------------------

std::optional<Timespan> parseIsoTimespan(std::string_view text) {
  Cursor c(text);
  Timespan t;
  if (c.eat('-')) t.negative = true;
  else c.eat('+');
  if (!c.eatAny("Pp")) return std::nullopt;
  bool any = false, inTime = false;
  // Designators must come in order; `order` is the index of the last one seen.
  const char* dateUnits = "YMWD";
  const char* timeUnits = "HMS";
  int order = -1;
  while (!c.done()) {
    if (!inTime && c.eatAny("Tt")) {
      inTime = true;
      order = -1;
      if (c.done()) return std::nullopt;
      continue;
    }
    int64_t n;
    if (c.digits(n) == 0) return std::nullopt;
    int64_t nanos = 0;
    bool frac = false;
    if (c.eatAny(".,")) {
      if (!c.fraction(nanos)) return std::nullopt;
      frac = true;
    }
    char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c.peek())));
    const char* units = inTime ? timeUnits : dateUnits;
    const char* hit = nullptr;
    for (const char* p = units; *p; ++p) {
      if (*p == u) hit = p;
    }
    if (hit == nullptr || hit - units <= order) return std::nullopt;
    if (frac && !(inTime && u == 'S')) return std::nullopt;
    order = static_cast<int>(hit - units);
    c.reset(c.pos() + 1);
    any = true;
    if (!inTime) {
      (u == 'Y' ? t.years : u == 'M' ? t.months : u == 'W' ? t.weeks : t.days) = n;
    } else {
      (u == 'H' ? t.hours : u == 'M' ? t.minutes : t.seconds) = n;
      if (u == 'S') t.nanos = nanos;
    }
  }
  if (!any) return std::nullopt;
  return t;
}

// The unit word at text[i], as the reference's pattern alternates them (years?|months?|weeks?|
// days?|hours?|minutes?|seconds?|mins?|secs?, first alternative that matches, plural 's'
// taken when present): the component it fills and the word's length; nullptr when none does.
int64_t* unitAt(Timespan& t, std::string_view text, size_t i, size_t& length) {
  struct Unit { const char* word; int64_t Timespan::*slot; };
  static const Unit kUnits[] = {
      {"year", &Timespan::years},  {"month", &Timespan::months},   {"week", &Timespan::weeks},
      {"day", &Timespan::days},    {"hour", &Timespan::hours},     {"minute", &Timespan::minutes},
      {"second", &Timespan::seconds}, {"min", &Timespan::minutes}, {"sec", &Timespan::seconds},
  };
  for (const Unit& u : kUnits) {
    std::string_view w = u.word;
    if (text.substr(i, w.size()) != w) continue;
    length = w.size() + (i + w.size() < text.size() && text[i + w.size()] == 's' ? 1 : 0);
    return &(t.*u.slot);
  }
  return nullptr;
}

// The reference's human-readable durations ('2 days 3 hours', '5 mins', '-2 hours'): the
// lower-cased text is scanned for "<number> <unit>" anywhere (whatever lies between is ignored;
// repeated units add up); a leading '-' negates the whole duration. No such pair, or an amount
// that is not a whole number ('1.5 hours'), is no duration.
std::optional<Timespan> parseHumanTimespan(std::string_view input) {
  std::string text = lowerName(trimSpaces(input));
  Timespan t;
  size_t i = 0;
  if (!text.empty() && text[0] == '-') {
    t.negative = true;
    i = 1;
  }
  bool any = false;
  auto digit = [&text](size_t k) { return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); };
  while (i < text.size()) {
    if (!digit(i)) {
      ++i;
      continue;
    }
    size_t j = i;
    int64_t n = 0;
    bool tooBig = false;
    for (; digit(j); ++j) {
      tooBig = tooBig || n > 99999999999999;
      n = tooBig ? n : n * 10 + (text[j] - '0');
    }
    bool fractional = false;
    if (j + 1 < text.size() && text[j] == '.' && digit(j + 1)) {
      for (++j; digit(j); ++j) fractional = fractional || text[j] != '0';
    }
    size_t u = j;
    while (u < text.size() && std::isspace(static_cast<unsigned char>(text[u]))) ++u;
    size_t length = 0;
    int64_t* slot = unitAt(t, text, u, length);
    if (slot == nullptr) {
      ++i;
      continue;
    }
    if (fractional || tooBig) return std::nullopt;  // Temporal.Duration takes whole amounts only
    *slot += n;
    any = true;
    i = u + length;
  }
  if (!any) return std::nullopt;
  return t;
}

bool isZero(const Timespan& t) {
  return t.years == 0 && t.months == 0 && t.weeks == 0 && t.days == 0 && t.hours == 0 &&
         t.minutes == 0 && t.seconds == 0 && t.nanos == 0;
}

}  // namespace

// ---- civil calendar ------------------------------------------------------------------------

int daysInMonth(int64_t year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && isLeap(year) ? 29 : kDays[month - 1];
}

// Howard Hinnant's days_from_civil.
int64_t daysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = floorDiv(y, 400);
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilTime civilFromEpochMs(int64_t ms) {
  int64_t days = floorDiv(ms, kSecondsPerDay * 1000);
  int64_t msOfDay = floorMod(ms, kSecondsPerDay * 1000);
  int64_t z = days + 719468;
  int64_t era = floorDiv(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  CivilTime t;
  t.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  t.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  t.year = yoe + era * 400 + (t.month <= 2);
  t.hour = static_cast<int>(msOfDay / 3600000);
  t.minute = static_cast<int>(msOfDay / 60000 % 60);
  t.second = static_cast<int>(msOfDay / 1000 % 60);
  t.nanos = msOfDay % 1000 * 1000000;
  return t;
}

int64_t epochMsFromCivil(const CivilTime& t) {
  return (daysFromCivil(t.year, t.month, t.day) * kSecondsPerDay + t.hour * 3600 + t.minute * 60 +
          t.second) * 1000 + t.nanos / 1000000;
}

std::optional<CivilTime> parseCivilTime(std::string_view text) {
  std::optional<ParsedCivil> p = parseCivil(text);
  if (!p) return std::nullopt;
  if (!p->hasDate) {  // a bare time is anchored at the reference's default date
    p->t.year = 2000;
    p->t.month = 1;
    p->t.day = 1;
  }
  return p->t;
}

std::string formatCanonicalDate(const CivilTime& t) {
  return yearText(t.year) + "-" + pad(t.month, 2) + "-" + pad(t.day, 2);
}

std::string formatCanonicalTime(const CivilTime& t) {
  return pad(t.hour, 2) + ":" + pad(t.minute, 2) + ":" + pad(t.second, 2) + fractionText(t.nanos);
}

std::string formatCanonicalDateTime(const CivilTime& t) {
  return formatCanonicalDate(t) + "T" + formatCanonicalTime(t);
}

std::optional<std::string> normalizeDate(std::string_view text) {
  std::optional<ParsedCivil> p = parseCivil(text);
  if (!p || !p->hasDate) return std::nullopt;
  return formatCanonicalDate(p->t);
}

std::optional<std::string> normalizeTime(std::string_view text) {
  // A bare date carries an implicit 00:00:00 (it converts like the datetime it starts);
  // text that is neither a date nor a time is no TIME.
  std::optional<ParsedCivil> p = parseCivil(text);
  if (!p || !(p->hasTime || p->hasDate)) return std::nullopt;
  return formatCanonicalTime(p->t);
}

std::optional<std::string> normalizeDateTime(std::string_view text) {
  std::optional<ParsedCivil> p = parseCivil(text);
  if (!p || !p->hasDate) return std::nullopt;
  return formatCanonicalDateTime(p->t);
}

// ---- TIMESPAN ------------------------------------------------------------------------------

std::optional<Timespan> parseTimespan(std::string_view text) {
  text = trimSpaces(text);
  if (text.empty()) return std::nullopt;
  if (std::optional<Timespan> t = parseIsoTimespan(text)) return t;
  return parseHumanTimespan(text);
}

std::string formatTimespan(const Timespan& t) {
  if (isZero(t)) return "PT0S";
  std::string out = t.negative ? "-P" : "P";
  auto part = [&out](int64_t v, char unit) {
    if (v != 0) out += std::to_string(v) + unit;
  };
  part(t.years, 'Y');
  part(t.months, 'M');
  part(t.weeks, 'W');
  part(t.days, 'D');
  if (t.hours != 0 || t.minutes != 0 || t.seconds != 0 || t.nanos != 0) {
    out += 'T';
    part(t.hours, 'H');
    part(t.minutes, 'M');
    if (t.seconds != 0 || t.nanos != 0) out += std::to_string(t.seconds) + fractionText(t.nanos) + "S";
  }
  return out;
}

std::optional<std::string> normalizeTimespan(std::string_view text) {
  std::optional<Timespan> t = parseTimespan(text);
  if (!t) return std::nullopt;
  return formatTimespan(*t);
}

Timespan timespanFromSeconds(double seconds) {
  Timespan t;
  t.negative = seconds < 0;
  double a = std::fabs(seconds);
  double whole = std::floor(a);
  t.seconds = static_cast<int64_t>(whole);
  t.nanos = static_cast<int64_t>(std::llround((a - whole) * 1e9));
  if (t.nanos >= 1000000000) {
    t.seconds += 1;
    t.nanos -= 1000000000;
  }
  return t;
}

CivilTime addTimespan(const CivilTime& t, const Timespan& d, int sign) {
  int s = d.negative ? -sign : sign;
  int64_t monthIndex = t.year * 12 + (t.month - 1) + s * (d.years * 12 + d.months);
  CivilTime out = t;
  out.year = floorDiv(monthIndex, 12);
  out.month = static_cast<int>(floorMod(monthIndex, 12)) + 1;
  out.day = std::min(t.day, daysInMonth(out.year, out.month));
  int64_t nanos = out.nanos + s * d.nanos;
  int64_t carry = floorDiv(nanos, 1000000000);
  int64_t delta = s * ((d.weeks * 7 + d.days) * kSecondsPerDay + d.hours * 3600 + d.minutes * 60 + d.seconds);
  CivilTime shifted = shiftSeconds(out, delta + carry);
  shifted.nanos = floorMod(nanos, 1000000000);
  return shifted;
}

std::optional<double> timespanSeconds(std::string_view canonical) {
  std::optional<Timespan> d = parseTimespan(canonical);
  if (!d) return std::nullopt;
  CivilTime start;
  start.year = 2024;
  CivilTime end = addTimespan(start, *d);
  double days = static_cast<double>(daysFromCivil(end.year, end.month, end.day) - daysFromCivil(2024, 1, 1));
  return days * kSecondsPerDay + end.hour * 3600.0 + end.minute * 60.0 + end.second +
         static_cast<double>(end.nanos) / 1e9;
}

}  // namespace optic
