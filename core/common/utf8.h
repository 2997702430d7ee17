// UTF-8 helpers. Text values are UTF-8; SQL lengths and substr() count characters (code points).
//
// Every function tolerates invalid input: a byte that does not start a well-formed sequence
// counts as one character and is copied through unchanged, so no helper ever throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace optic {

bool isValidUtf8(std::string_view s);
// Bytes of the character starting at s[i] (1 for an invalid lead or a truncated sequence).
size_t utf8CharLength(std::string_view s, size_t i);
// Number of characters.
size_t utf8Length(std::string_view s);
// Byte offset of character number `index` (0-based); s.size() when past the end.
size_t utf8Offset(std::string_view s, size_t index);
// `count` characters starting at character `start` (0-based), clipped to the string.
std::string_view utf8Substr(std::string_view s, size_t start, size_t count);
// Decode the code point at s[i] (U+FFFD for invalid bytes); advances i.
uint32_t utf8Decode(std::string_view s, size_t& i);
void utf8Append(std::string& out, uint32_t cp);
// Replace every invalid sequence with U+FFFD (the blob → text rendering).
std::string utf8Sanitize(std::string_view bytes);
// Simple (one-to-one) case mapping: ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic.
std::string utf8Upper(std::string_view s);
std::string utf8Lower(std::string_view s);
uint32_t toLowerCp(uint32_t cp);
uint32_t toUpperCp(uint32_t cp);

}  // namespace optic
