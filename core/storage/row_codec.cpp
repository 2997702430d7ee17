// Row codec (see row_codec.h). Encoding is a single pass with no intermediate allocations for
// the common kinds; decoding validates every length against the remaining input.
#include "core/storage/row_codec.h"

#include <cstring>

#include "core/common/bigint.h"
#include "core/common/error.h"
#include "core/common/json.h"
#include "core/storage/varint.h"

namespace optic {

namespace {

enum : uint8_t { kNull = 0, kInt = 1, kBig = 2, kReal = 3, kText = 4, kBlob = 5, kFalse = 6,
                 kTrue = 7, kJson = 8 };

void putBytes(uint8_t tag, std::string_view s, std::string& out) {
  out += static_cast<char>(tag);
  putLengthPrefixed(s, out);
}

[[noreturn]] void corrupt() { fail(ErrorCode::kInternal, "corrupt row record"); }

struct Reader {
  std::string_view in;

  uint8_t byte() {
    if (in.empty()) corrupt();
    uint8_t b = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    return b;
  }
  uint64_t varint() {
    std::optional<uint64_t> v = getVarint(in);
    if (!v) corrupt();
    return *v;
  }
  std::string_view bytes() {
    std::optional<std::string_view> s = getLengthPrefixed(in);
    if (!s) corrupt();
    return *s;
  }
};

void encodeValue(const Value& v, std::string& out) {
  switch (v.kind()) {
    case ValueKind::kNull: out += static_cast<char>(kNull); return;
    case ValueKind::kInteger: {
      uint64_t u = static_cast<uint64_t>(v.asInt());
      out += static_cast<char>(kInt);
      putVarint((u << 1) ^ (v.asInt() < 0 ? ~uint64_t{0} : 0), out);  // zigzag
      return;
    }
    case ValueKind::kBigInt: putBytes(kBig, v.asBigInt().toString(), out); return;
    case ValueKind::kReal: {
      uint64_t bits;
      double d = v.asReal();
      std::memcpy(&bits, &d, sizeof bits);
      char bytes[9] = {static_cast<char>(kReal)};
      for (int i = 0; i < 8; ++i) bytes[1 + i] = static_cast<char>((bits >> (8 * i)) & 0xFF);
      out.append(bytes, sizeof bytes);
      return;
    }
    case ValueKind::kText: putBytes(kText, v.asText(), out); return;
    case ValueKind::kBlob: {
      const Bytes& b = v.asBlob();
      putBytes(kBlob, std::string_view(reinterpret_cast<const char*>(b.data()), b.size()), out);
      return;
    }
    case ValueKind::kBoolean: out += static_cast<char>(v.asBool() ? kTrue : kFalse); return;
    case ValueKind::kJson: putBytes(kJson, serializeJson(v.asJson().doc), out); return;
  }
}

// Decodes one value into `out`, in place where it can (decodeRow's rows are reused).
void decodeValue(Reader& r, Value& out) {
  switch (r.byte()) {
    case kNull: out.setNull(); return;
    case kInt: {
      uint64_t z = r.varint();
      out.setInteger(static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1)));
      return;
    }
    case kBig: {
      auto b = BigInt::parse(r.bytes());
      if (!b) corrupt();
      out = Value::fromBigInt(*b);
      return;
    }
    case kReal: {
      if (r.in.size() < 8) corrupt();
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(static_cast<uint8_t>(r.in[i])) << (8 * i);
      r.in.remove_prefix(8);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      out.setReal(d);
      return;
    }
    case kText: out.setText(r.bytes()); return;
    case kBlob: {
      std::string_view s = r.bytes();
      out = Value::blob(Bytes(s.begin(), s.end()));
      return;
    }
    case kFalse: out.setBoolean(false); return;
    case kTrue: out.setBoolean(true); return;
    case kJson: {
      auto doc = parseJson(r.bytes());
      if (!doc) corrupt();
      out = Value::json(std::move(doc));
      return;
    }
    default: corrupt();
  }
}

// Moves past one value without building it (a column the reader does not want).
void skipValue(Reader& r) {
  switch (r.byte()) {
    case kNull: case kFalse: case kTrue: return;
    case kInt: r.varint(); return;
    case kReal:
      if (r.in.size() < 8) corrupt();
      r.in.remove_prefix(8);
      return;
    case kBig: case kText: case kBlob: case kJson: r.bytes(); return;
    default: corrupt();
  }
}

// Room for `v`'s encoding: exact for the fixed-size kinds, a guess for the variable ones.
size_t encodedSizeHint(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kText: return 6 + v.asText().size();
    case ValueKind::kBlob: return 6 + v.asBlob().size();
    default: return 11;  // a tag and a 10-byte varint, or a tag and 8 bytes
  }
}

}  // namespace

void encodeRow(std::span<const Value> row, std::string& out) {
  size_t hint = 10;
  for (const Value& v : row) hint += encodedSizeHint(v);
  out.reserve(out.size() + hint);  // one allocation for the record
  putVarint(row.size(), out);
  for (const Value& v : row) encodeValue(v, out);
}

std::string encodeRow(std::span<const Value> row) {
  std::string out;
  encodeRow(row, out);
  return out;
}

void decodeRow(std::string_view data, Row& out, const std::vector<bool>* columns) {
  Reader r{data};
  uint64_t n = r.varint();
  if (n > data.size()) corrupt();  // every value takes at least one byte
  // Assigned in place: a scan decodes every row into the same Row, whose values then keep
  // their kind (and a text its buffer) from row to row.
  out.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    if (columns && i < columns->size() && !(*columns)[i]) {
      skipValue(r);
      if (!out[i].isNull()) out[i].setNull();
    } else {
      decodeValue(r, out[i]);
    }
  }
  if (!r.in.empty()) corrupt();
}

Row decodeRow(std::string_view data) {
  Row out;
  decodeRow(data, out);
  return out;
}

}  // namespace optic
