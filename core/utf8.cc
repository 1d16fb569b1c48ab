// SPDX-License-Identifier: MIT
#include "core/utf8.h"

#include <cstdio>

namespace morpheus::utf8 {

Decoded decode_one(std::string_view s, size_t pos) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + pos;
  const size_t avail = s.size() - pos;
  const unsigned char b0 = p[0];
  if (b0 < 0x80) return {b0, 1, true};
  Decoded bad{kReplacementChar, 1, false};
  size_t n = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2;
    cp = b0 & 0x1F;
    min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3;
    cp = b0 & 0x0F;
    min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4;
    cp = b0 & 0x07;
    min = 0x10000;
  } else {
    return bad;  // continuation byte or 0xF8..0xFF
  }
  if (avail < n) return bad;
  for (size_t i = 1; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return bad;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return bad;
  return {cp, n, true};
}

void append(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string encode(char32_t cp) {
  std::string out;
  append(cp, out);
  return out;
}

std::string encode(const std::u32string& cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t cp : cps) append(cp, out);
  return out;
}

size_t find_invalid(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    // Fast path over ASCII.
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const Decoded d = decode_one(s, pos);
    if (!d.valid) return pos;
    pos += d.length;
  }
  return std::string_view::npos;
}

bool is_valid(std::string_view s) { return find_invalid(s) == std::string_view::npos; }

std::string describe_bytes(std::string_view s, size_t pos, size_t max_bytes) {
  std::string out;
  for (size_t i = pos; i < s.size() && i < pos + max_bytes; ++i) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "%s0x%02X", out.empty() ? "" : " ",
                  static_cast<unsigned>(static_cast<unsigned char>(s[i])));
    out += buf;
  }
  return out;
}

Status validate(std::string_view s) {
  const size_t bad = find_invalid(s);
  if (bad == std::string_view::npos) return ok_status();
  return invalid_argument(
      "invalid UTF-8 at byte " + std::to_string(bad) + " (" + describe_bytes(s, bad) + ")",
      "convert the input to UTF-8 (e.g. iconv -f ISO-8859-9 -t UTF-8)");
}

StatusOr<std::u32string> decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  size_t pos = 0;
  while (pos < s.size()) {
    const Decoded d = decode_one(s, pos);
    if (!d.valid) return validate(s);
    out.push_back(d.code_point);
    pos += d.length;
  }
  return out;
}

size_t length(std::string_view s) {
  size_t n = 0;
  for (size_t pos = 0; pos < s.size(); ++n) pos += decode_one(s, pos).length;
  return n;
}

}  // namespace morpheus::utf8
