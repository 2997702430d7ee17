#include "wasm/wire.h"

#include <cstring>

#include "core/api/error_report.h"

namespace optic::wasm {
namespace {

constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;

void putU32(uint32_t n, std::string& out) {
  char b[4];
  std::memcpy(b, &n, 4);  // wasm32 is little-endian, like the JS DataView reads
  out.append(b, 4);
}

void putF64(double d, std::string& out) {
  out.push_back(static_cast<char>(kWireNumber));
  char b[8];
  std::memcpy(b, &d, 8);
  out.append(b, 8);
}

void putBytes(WireTag tag, std::string_view bytes, std::string& out) {
  out.push_back(static_cast<char>(tag));
  putU32(static_cast<uint32_t>(bytes.size()), out);
  out.append(bytes);
}

}  // namespace

void encodeValue(const Value& v, std::string& out) {
  switch (v.kind()) {
    case ValueKind::kNull: out.push_back(static_cast<char>(kWireNull)); return;
    case ValueKind::kInteger: {
      int64_t i = v.asInt();
      if (i >= -kMaxSafe && i <= kMaxSafe) return putF64(static_cast<double>(i), out);
      return putBytes(kWireBigInt, integerText(v), out);
    }
    case ValueKind::kBigInt: return putBytes(kWireBigInt, integerText(v), out);
    case ValueKind::kReal: return putF64(v.asReal(), out);
    case ValueKind::kText: return putBytes(kWireText, v.asText(), out);
    case ValueKind::kBlob: {
      const Bytes& b = v.asBlob();
      return putBytes(kWireBlob, std::string_view(reinterpret_cast<const char*>(b.data()), b.size()), out);
    }
    case ValueKind::kBoolean: out.push_back(static_cast<char>(v.asBool() ? kWireTrue : kWireFalse)); return;
    case ValueKind::kJson: return putBytes(kWireJson, jsonValueText(v), out);
  }
}

std::string_view WireReader::take(size_t n) {
  if (in_.size() - pos_ < n) throw Error(ErrorCode::kMisuse, "malformed wire block");
  std::string_view s = in_.substr(pos_, n);
  pos_ += n;
  return s;
}

uint32_t WireReader::u32() {
  uint32_t n;
  std::memcpy(&n, take(4).data(), 4);
  return n;
}

Value WireReader::value() {
  auto tag = static_cast<WireTag>(static_cast<uint8_t>(take(1)[0]));
  switch (tag) {
    case kWireNull: return Value::null();
    case kWireFalse: return Value::boolean(false);
    case kWireTrue: return Value::boolean(true);
    case kWireNumber: {
      double d;
      std::memcpy(&d, take(8).data(), 8);
      // JS numbers that are integers bind as INTEGER (a JS caller cannot tell 1 from 1.0).
      if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d)))
        return Value::integer(static_cast<int64_t>(d));
      return Value::real(d);
    }
    case kWireBigInt: {
      std::optional<Value> b = integerFromText(take(u32()));
      if (!b) throw Error(ErrorCode::kMisuse, "malformed bigint parameter");
      return std::move(*b);
    }
    case kWireText: return Value::text(std::string(take(u32())));
    case kWireBlob: {
      std::string_view s = take(u32());
      const auto* p = reinterpret_cast<const Bytes::value_type*>(s.data());
      return Value::blob(Bytes(p, p + s.size()));
    }
    case kWireJson: return jsonValueFromText(take(u32()));
  }
  throw Error(ErrorCode::kMisuse, "malformed parameter block");
}

}  // namespace optic::wasm
