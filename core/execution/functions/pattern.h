// LIKE and GLOB matching, shared by the like()/glob() functions and the executor's infix LIKE.
//
// Both match whole strings by Unicode code point (so `_` and `?` consume one character, not one
// byte) and are case-sensitive: the reference dialect has no case-insensitive LIKE.
//  - LIKE: `%` any run (possibly empty), `_` exactly one character; `escape`, when given, makes
//    the next pattern character literal.
//  - GLOB: `*` any run, `?` one character, `[abc]`, `[a-z]`, `[^…]`/`[!…]` classes (a `]` right
//    after `[` or `[^` is literal).
// Implemented in string_functions.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace optic {

bool likeMatch(std::string_view pattern, std::string_view text,
               std::optional<uint32_t> escape = std::nullopt);
bool globMatch(std::string_view pattern, std::string_view text);

}  // namespace optic
