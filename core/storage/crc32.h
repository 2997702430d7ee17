// CRC-32 (IEEE 802.3, the zlib/PNG polynomial 0xEDB88320): the checksum of a file-store log
// record, so a torn or corrupted record is detected on open instead of half-applied.
#pragma once

#include <cstdint>
#include <string_view>

namespace optic {

// `crc` continues a previous result (0 to start).
uint32_t crc32(std::string_view data, uint32_t crc = 0);

}  // namespace optic
