// SPDX-License-Identifier: MIT
// UTF-8 decoding, encoding and validation (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
// All offsets are byte offsets into the input.
//   decode_one("ğa", 0) -> {U+011F, 2};  validate_utf8("a\xff") -> INVALID_ARGUMENT at byte 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace morpheus::utf8 {

inline constexpr char32_t kReplacementChar = 0xFFFD;

struct Decoded {
  char32_t code_point = 0;  // kReplacementChar when invalid
  size_t length = 0;        // bytes consumed: 1..4 when valid, 1 when invalid (skip one byte)
  bool valid = false;
};

// Decodes the code point starting at byte `pos` (pos < s.size()).
Decoded decode_one(std::string_view s, size_t pos);

// Appends the UTF-8 encoding of `cp` (must be a Unicode scalar value) to `out`.
void append(char32_t cp, std::string& out);
std::string encode(char32_t cp);
std::string encode(const std::u32string& cps);

// Byte offset of the first invalid sequence, or npos when `s` is valid UTF-8.
size_t find_invalid(std::string_view s);
bool is_valid(std::string_view s);

// OK, or INVALID_ARGUMENT naming the byte offset and the offending bytes.
Status validate(std::string_view s);

// Code points of `s`, or INVALID_ARGUMENT at the first invalid byte.
StatusOr<std::u32string> decode(std::string_view s);

// Number of code points (invalid bytes count one each).
size_t length(std::string_view s);

// Describes the bytes at `pos` as hex: "0xC3 0x28".
std::string describe_bytes(std::string_view s, size_t pos, size_t max_bytes = 4);

}  // namespace morpheus::utf8
