// Varints: LEB128-style unsigned integers, 7 bits a byte, low group first, used by the binary
// records of the storage layer (row values, write batches, file-store log records).
//
// Readers never read past their input: a truncated or over-long varint reports failure and the
// caller decides what a malformed record means (row_codec throws, the file store drops a tail).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace optic {

inline void putVarint(uint64_t v, std::string& out) {
  char buf[10];  // one append, not a capacity check per byte: rows and batches encode many
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out.append(buf, n);
}

// Reads one varint from the front of `in` and removes it; nullopt (in unchanged) when malformed.
inline std::optional<uint64_t> getVarint(std::string_view& in) {
  uint64_t v = 0;
  for (size_t i = 0; i < in.size() && i < 10; ++i) {
    uint8_t b = static_cast<uint8_t>(in[i]);
    v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) {
      in.remove_prefix(i + 1);
      return v;
    }
  }
  return std::nullopt;
}

// A varint length followed by that many bytes, as a view into `in`; nullopt when truncated.
inline std::optional<std::string_view> getLengthPrefixed(std::string_view& in) {
  std::string_view rest = in;
  std::optional<uint64_t> n = getVarint(rest);
  if (!n || *n > rest.size()) return std::nullopt;
  std::string_view s = rest.substr(0, *n);
  in = rest.substr(*n);
  return s;
}

inline void putLengthPrefixed(std::string_view s, std::string& out) {
  putVarint(s.size(), out);
  out.append(s);
}

}  // namespace optic
