#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace post {

// The offset of the first byte of `text` that does not start or continue a valid UTF-8
// sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF); nullopt
// when all of `text` is valid UTF-8.
std::optional<std::size_t> invalidUtf8Offset(std::string_view text);

// `text` with every byte that is not part of valid UTF-8 written as \xNN, so that it can be
// shown in a message, a JSON document or a Qt string.
std::string escapeInvalidUtf8(std::string_view text);

// "" when `text` is valid UTF-8; else what is wrong, for messages about the field `what`:
// "op name 'ab\xFF' is not valid UTF-8 (byte 0xFF at offset 2)".
std::string utf8Problem(std::string_view text, std::string_view what);

} // namespace post
