// Key codec (see key_codec.h). Numbers: the nearest double in sortable form, then the signed
// int64 residual (exact value − double), so reals and integers interleave by value while
// integers past 2^53 that share a double stay distinct and ordered. NaN is canonicalised to
// the positive quiet NaN, which sorts after +Infinity (compareValues puts NaN last too).
#include "core/common/key_codec.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/common/bigint.h"
#include "core/common/json.h"
#include "core/common/temporal.h"

namespace optic {

namespace {

// One append of eight bytes (keys are built on every row write: no per-byte push_back).
void appendBigEndian(uint64_t bits, std::string& out) {
  if constexpr (std::endian::native == std::endian::little) bits = __builtin_bswap64(bits);
  const size_t at = out.size();
  out.resize(at + sizeof bits);  // the key's bytes, most significant first, in one copy
  std::memcpy(out.data() + at, &bits, sizeof bits);
}

uint64_t readBigEndian(std::string_view s) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(s[i]);
  return v;
}

// Residual of an integer against its nearest double, clamped to int64 (only integers beyond
// ~2^117 can need more; they then share keys within one double's neighbourhood).
int64_t residualOf(const BigInt& v, double d) {
  if (!std::isfinite(d)) return v.sign() > 0 ? std::numeric_limits<int64_t>::max()
                                             : std::numeric_limits<int64_t>::min();
  BigInt r = v - *BigInt::fromDouble(d);
  if (r.fitsInt64()) return r.toInt64();
  return r.sign() > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

void invertFrom(std::string& out, size_t start) {
  for (size_t i = start; i < out.size(); ++i) out[i] = static_cast<char>(~out[i]);
}

// Reads an escaped, terminated body; false when the terminator is missing or an escape is bad.
bool readEscaped(std::string_view& in, bool desc, std::string& body) {
  unsigned char flip = desc ? 0xFF : 0x00;
  for (size_t i = 0; i < in.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(in[i]) ^ flip;
    if (c == 0x00) {
      in.remove_prefix(i + 1);
      return true;
    }
    if (c == 0x01) {
      if (++i >= in.size()) return false;
      unsigned char e = static_cast<unsigned char>(in[i]) ^ flip;
      if (e != 0x01 && e != 0x02) return false;
      body += static_cast<char>(e - 1);
    } else {
      body += static_cast<char>(c);
    }
  }
  return false;
}

}  // namespace

void appendSortableDouble(double d, std::string& out) {
  if (d == 0) d = 0;                                   // -0 → +0
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  bits = (bits & 0x8000000000000000ULL) ? ~bits : (bits | 0x8000000000000000ULL);
  appendBigEndian(bits, out);
}

void appendEscapedBytes(std::string_view s, std::string& out) {
  for (char c : s) {
    if (c == '\0' || c == '\1') {
      out += '\1';
      out += static_cast<char>(c + 1);
    } else {
      out += c;
    }
  }
  out += '\0';
}

void encodeKeyNumber(double nearest, int64_t residual, bool desc, std::string& out) {
  size_t start = out.size();
  out.reserve(start + 17);
  out += static_cast<char>(kKeyTagNumber);
  appendSortableDouble(nearest, out);
  appendBigEndian(static_cast<uint64_t>(residual) ^ 0x8000000000000000ULL, out);
  if (desc) invertFrom(out, start);
}

void encodeKey(const Value& v, Collation collation, bool desc, std::string& out) {
  size_t start = out.size();
  switch (v.kind()) {
    case ValueKind::kNull: out += static_cast<char>(kKeyTagNull); break;
    case ValueKind::kInteger: {
      int64_t i = v.asInt();
      double d = static_cast<double>(i);
      // d can be 2^63 (for i near INT64_MAX), so take the difference in 128 bits.
      __int128 r = static_cast<__int128>(i) - static_cast<__int128>(d);
      encodeKeyNumber(d, static_cast<int64_t>(r), desc, out);
      return;
    }
    case ValueKind::kBigInt: {
      double d = v.asBigInt().toDouble();
      encodeKeyNumber(d, residualOf(v.asBigInt(), d), desc, out);
      return;
    }
    case ValueKind::kReal: encodeKeyNumber(v.asReal(), 0, desc, out); return;
    case ValueKind::kBoolean: encodeKeyNumber(v.asBool() ? 1.0 : 0.0, 0, desc, out); return;
    case ValueKind::kText:
      out += static_cast<char>(kKeyTagText);
      if (collation == Collation::kBinary) appendEscapedBytes(v.asText(), out);
      else appendEscapedBytes(normalizeText(v.asText(), collation), out);
      break;
    case ValueKind::kBlob: {
      const Bytes& b = v.asBlob();
      out += static_cast<char>(kKeyTagBlob);
      appendEscapedBytes(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()), out);
      break;
    }
    case ValueKind::kJson: {
      std::string body;
      encodeJsonKey(v.asJson().doc, body);
      out += static_cast<char>(kKeyTagJson);
      appendEscapedBytes(body, out);
      break;
    }
  }
  if (desc) invertFrom(out, start);
}

void encodeColumnKey(const Value& v, LogicalType type, Collation collation, bool desc, std::string& out) {
  if (type == LogicalType::kTimespan && v.isText()) {
    if (auto seconds = timespanSeconds(v.asText())) {
      encodeKeyNumber(*seconds, 0, desc, out);
      return;
    }
  }
  encodeKey(v, collation, desc, out);
}

std::string encodeKey(const Value& v, Collation collation) {
  std::string out;
  encodeKey(v, collation, false, out);
  return out;
}

bool decodeKey(std::string_view& in, bool desc, Value& out) {
  if (in.empty()) return false;
  unsigned char flip = desc ? 0xFF : 0x00;
  unsigned char tag = static_cast<unsigned char>(in[0]) ^ flip;
  in.remove_prefix(1);
  switch (tag) {
    case kKeyTagNull: out = Value::null(); return true;
    case kKeyTagNumber: {
      if (in.size() < 16) return false;
      uint64_t hi = readBigEndian(in), lo = readBigEndian(in.substr(8));
      if (desc) hi = ~hi, lo = ~lo;
      in.remove_prefix(16);
      uint64_t bits = (hi & 0x8000000000000000ULL) ? (hi & ~0x8000000000000000ULL) : ~hi;
      double d;
      std::memcpy(&d, &bits, sizeof d);
      int64_t residual = static_cast<int64_t>(lo ^ 0x8000000000000000ULL);
      if (!std::isfinite(d) || std::trunc(d) != d) {
        out.setReal(d);
      } else if (residual == 0 && std::fabs(d) < 9223372036854775808.0) {
        out.setInteger(static_cast<int64_t>(d));  // the common case: no BigInt built
      } else {
        out = Value::fromBigInt(*BigInt::fromDouble(d) + BigInt(residual));
      }
      return true;
    }
    case kKeyTagText: {
      std::string body;
      if (!readEscaped(in, desc, body)) return false;
      out = Value::text(std::move(body));
      return true;
    }
    case kKeyTagBlob: {
      std::string body;
      if (!readEscaped(in, desc, body)) return false;
      out = Value::blob(Bytes(body.begin(), body.end()));
      return true;
    }
    default: return false;
  }
}

void encodeTextPrefixKey(std::string_view prefix, Collation collation, bool desc, std::string& out) {
  size_t start = out.size();
  out += static_cast<char>(kKeyTagText);
  appendEscapedBytes(collation == Collation::kBinary ? std::string(prefix) : normalizeText(prefix, collation), out);
  out.pop_back();  // open-ended: the text may go on
  if (desc) invertFrom(out, start);
}

bool skipKeyComponent(std::string_view& in, bool desc) {
  if (in.empty()) return false;
  unsigned char flip = desc ? 0xFF : 0x00;
  unsigned char tag = static_cast<unsigned char>(in[0]) ^ flip;
  in.remove_prefix(1);
  if (tag == kKeyTagNull) return true;
  if (tag == kKeyTagNumber) {
    if (in.size() < 16) return false;
    in.remove_prefix(16);
    return true;
  }
  // Escaped bodies: 01 escapes the next byte, 00 ends the body (each XOR 0xFF when DESC).
  for (size_t i = 0; i < in.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(in[i]) ^ flip;
    if (c == 0x00) {
      in.remove_prefix(i + 1);
      return true;
    }
    if (c == 0x01) ++i;
  }
  return false;
}

}  // namespace optic
