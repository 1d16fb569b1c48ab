// SPDX-License-Identifier: MIT
#include "core/unicode.h"

#include <algorithm>

#include "core/check.h"
#include "core/utf8.h"

namespace morpheus::unicode {
namespace {

struct Range {
  char32_t lo;
  char32_t hi;
};

// Sorted, non-overlapping.
constexpr Range kLetterRanges[] = {
    {0x0041, 0x005A}, {0x0061, 0x007A}, {0x00AA, 0x00AA}, {0x00B5, 0x00B5}, {0x00BA, 0x00BA},
    {0x00C0, 0x00D6}, {0x00D8, 0x00F6}, {0x00F8, 0x02C1}, {0x02C6, 0x02D1}, {0x02E0, 0x02E4},
    {0x0370, 0x0374}, {0x0376, 0x037D}, {0x037F, 0x037F}, {0x0386, 0x0386}, {0x0388, 0x03FF},
    {0x0400, 0x0481}, {0x048A, 0x052F}, {0x0531, 0x0556}, {0x0560, 0x0588}, {0x05D0, 0x05EA},
    {0x05EF, 0x05F2}, {0x0620, 0x064A}, {0x066E, 0x066F}, {0x0671, 0x06D3}, {0x06D5, 0x06D5},
    {0x06FA, 0x06FC}, {0x0904, 0x0939}, {0x093D, 0x093D}, {0x0950, 0x0950}, {0x0958, 0x0961},
    {0x0971, 0x0980}, {0x0E01, 0x0E30}, {0x0E32, 0x0E33}, {0x0E40, 0x0E46}, {0x10A0, 0x10FF},
    {0x1100, 0x11FF}, {0x1C80, 0x1C88}, {0x1C90, 0x1CBF}, {0x1D00, 0x1DBF}, {0x1E00, 0x1FBC},
    {0x1FBE, 0x1FBE}, {0x1FC2, 0x1FCC}, {0x1FD0, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FFC},
    {0x2C00, 0x2CE4}, {0x2D00, 0x2D2D}, {0x3041, 0x3096}, {0x309D, 0x309F}, {0x30A1, 0x30FA},
    {0x30FC, 0x30FF}, {0x3105, 0x312F}, {0x3131, 0x318E}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
    {0xA640, 0xA66E}, {0xA680, 0xA69D}, {0xA722, 0xA788}, {0xA78B, 0xA7CA}, {0xAC00, 0xD7A3},
    {0xF900, 0xFAFF}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0xFF66, 0xFFBE}, {0x20000, 0x2FFFF},
};

constexpr Range kMarkRanges[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x05BF, 0x05BF}, {0x05C1, 0x05C2},
    {0x05C4, 0x05C5}, {0x05C7, 0x05C7}, {0x0610, 0x061A}, {0x064B, 0x065F}, {0x0670, 0x0670},
    {0x06D6, 0x06DC}, {0x06DF, 0x06E4}, {0x0900, 0x0903}, {0x093A, 0x093C}, {0x093E, 0x094F},
    {0x0951, 0x0957}, {0x0962, 0x0963}, {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E},
    {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x20D0, 0x20FF}, {0x302A, 0x302F}, {0x3099, 0x309A},
    {0xFE20, 0xFE2F},
};

constexpr Range kDigitRanges[] = {
    {0x0030, 0x0039}, {0x0660, 0x0669}, {0x06F0, 0x06F9},
    {0x0966, 0x096F}, {0x0E50, 0x0E59}, {0xFF10, 0xFF19},
};

template <size_t N>
bool in_ranges(const Range (&ranges)[N], char32_t cp) {
  const Range* end = ranges + N;
  const Range* it =
      std::upper_bound(ranges, end, cp, [](char32_t c, const Range& r) { return c < r.lo; });
  if (it == ranges) return false;
  --it;
  return cp <= it->hi;
}

// Upper → lower for the non-Turkish simple mappings. Returns cp when it has no lower case.
char32_t lower_generic(char32_t cp) {
  if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;
  if (cp == 0x178) return 0xFF;
  if (cp >= 0x100 && cp <= 0x17F) {
    if (cp == 0x130) return 'i';  // İ: the generic simple mapping is i as well
    if ((cp >= 0x100 && cp <= 0x137) || (cp >= 0x14A && cp <= 0x177)) {
      return (cp % 2 == 0) ? cp + 1 : cp;
    }
    if ((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E)) {
      return (cp % 2 == 1) ? cp + 1 : cp;
    }
    return cp;
  }
  if ((cp >= 0x1CD && cp <= 0x1DC)) return (cp % 2 == 1) ? cp + 1 : cp;
  if ((cp >= 0x1DE && cp <= 0x1EF) || (cp >= 0x1F8 && cp <= 0x21F) ||
      (cp >= 0x222 && cp <= 0x233) || (cp >= 0x246 && cp <= 0x24F)) {
    return (cp % 2 == 0) ? cp + 1 : cp;
  }
  if (cp == 0x1C4 || cp == 0x1C7 || cp == 0x1CA || cp == 0x1F1) return cp + 2;
  if (cp == 0x1C5 || cp == 0x1C8 || cp == 0x1CB || cp == 0x1F2) return cp + 1;  // titlecase
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 32;
  if (cp == 0x386) return 0x3AC;
  if (cp >= 0x388 && cp <= 0x38A) return cp + 37;
  if (cp == 0x38C) return 0x3CC;
  if (cp == 0x38E || cp == 0x38F) return cp + 63;
  if (cp >= 0x3D8 && cp <= 0x3EF) return (cp % 2 == 0) ? cp + 1 : cp;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
  if ((cp >= 0x460 && cp <= 0x481) || (cp >= 0x48A && cp <= 0x4BF) ||
      (cp >= 0x4D0 && cp <= 0x52F)) {
    return (cp % 2 == 0) ? cp + 1 : cp;
  }
  if (cp == 0x4C0) return 0x4CF;
  if (cp >= 0x4C1 && cp <= 0x4CE) return (cp % 2 == 1) ? cp + 1 : cp;
  if (cp >= 0x531 && cp <= 0x556) return cp + 48;
  if (cp >= 0x1E00 && cp <= 0x1E95) return (cp % 2 == 0) ? cp + 1 : cp;
  if (cp == 0x1E9E) return 0xDF;
  if (cp >= 0x1EA0 && cp <= 0x1EFF) return (cp % 2 == 0) ? cp + 1 : cp;
  if (cp >= 0xFF21 && cp <= 0xFF3A) return cp + 32;
  return cp;
}

// Lower → upper. Returns cp when it has no (single code point) upper case.
char32_t upper_generic(char32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') ? cp - 32 : cp;
  if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 32;
  if (cp == 0xFF) return 0x178;
  if (cp == 0xB5) return 0x39C;
  if (cp >= 0x100 && cp <= 0x17F) {
    if (cp == 0x131) return 'I';
    if ((cp >= 0x100 && cp <= 0x137) || (cp >= 0x14A && cp <= 0x177)) {
      return (cp % 2 == 1) ? cp - 1 : cp;
    }
    if ((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E)) {
      return (cp % 2 == 0) ? cp - 1 : cp;
    }
    return cp;
  }
  if (cp >= 0x1CD && cp <= 0x1DC) return (cp % 2 == 0) ? cp - 1 : cp;
  if ((cp >= 0x1DE && cp <= 0x1EF) || (cp >= 0x1F8 && cp <= 0x21F) ||
      (cp >= 0x222 && cp <= 0x233) || (cp >= 0x246 && cp <= 0x24F)) {
    return (cp % 2 == 1) ? cp - 1 : cp;
  }
  if (cp == 0x1C6 || cp == 0x1C9 || cp == 0x1CC || cp == 0x1F3) return cp - 2;
  if (cp >= 0x3B1 && cp <= 0x3C9) return cp == 0x3C2 ? 0x3A3 : cp - 32;
  if (cp == 0x3AC) return 0x386;
  if (cp >= 0x3AD && cp <= 0x3AF) return cp - 37;
  if (cp == 0x3CC) return 0x38C;
  if (cp == 0x3CD || cp == 0x3CE) return cp - 63;
  if (cp >= 0x3D8 && cp <= 0x3EF) return (cp % 2 == 1) ? cp - 1 : cp;
  if (cp >= 0x430 && cp <= 0x44F) return cp - 32;
  if (cp >= 0x450 && cp <= 0x45F) return cp - 80;
  if ((cp >= 0x460 && cp <= 0x481) || (cp >= 0x48A && cp <= 0x4BF) ||
      (cp >= 0x4D0 && cp <= 0x52F)) {
    return (cp % 2 == 1) ? cp - 1 : cp;
  }
  if (cp == 0x4CF) return 0x4C0;
  if (cp >= 0x4C1 && cp <= 0x4CE) return (cp % 2 == 0) ? cp - 1 : cp;
  if (cp >= 0x561 && cp <= 0x586) return cp - 48;
  if (cp >= 0x1E00 && cp <= 0x1E95) return (cp % 2 == 1) ? cp - 1 : cp;
  if (cp >= 0x1EA0 && cp <= 0x1EFF) return (cp % 2 == 1) ? cp - 1 : cp;
  if (cp >= 0xFF41 && cp <= 0xFF5A) return cp - 32;
  return cp;
}

}  // namespace

bool is_letter(char32_t cp) { return in_ranges(kLetterRanges, cp); }
bool is_mark(char32_t cp) { return in_ranges(kMarkRanges, cp); }
bool is_digit(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return in_ranges(kDigitRanges, cp);
}

bool is_space(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

bool is_apostrophe(char32_t cp) {
  return cp == 0x27 || cp == 0x2019 || cp == 0x2018 || cp == 0x2BC || cp == 0x2032;
}

char32_t to_lower(char32_t cp, bool turkish) {
  if (turkish) {
    if (cp == 'I') return 0x131;  // I → ı
    if (cp == 0x130) return 'i';  // İ → i
  }
  return lower_generic(cp);
}

char32_t to_upper(char32_t cp, bool turkish) {
  if (turkish) {
    if (cp == 'i') return 0x130;  // i → İ
    if (cp == 0x131) return 'I';  // ı → I
  }
  return upper_generic(cp);
}

bool is_upper(char32_t cp, bool turkish) { return to_lower(cp, turkish) != cp; }
bool is_lower(char32_t cp, bool turkish) { return to_upper(cp, turkish) != cp; }

std::string to_lower(std::string_view text, bool turkish) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    if (!d.valid) {
      out.push_back(text[pos]);
      pos += 1;
      continue;
    }
    const char32_t lower = to_lower(d.code_point, turkish);
    utf8::append(lower, out);
    pos += d.length;
    // "i̇" (i + U+0307) → "i" in Turkish.
    if (turkish && lower == 'i' && pos + 1 < text.size() &&
        static_cast<unsigned char>(text[pos]) == 0xCC &&
        static_cast<unsigned char>(text[pos + 1]) == 0x87) {
      pos += 2;
    }
  }
  return out;
}

std::string to_upper(std::string_view text, bool turkish) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    if (!d.valid) {
      out.push_back(text[pos]);
      pos += 1;
      continue;
    }
    utf8::append(to_upper(d.code_point, turkish), out);
    pos += d.length;
  }
  return out;
}

CaseFolded fold_case(const std::u32string& text, bool turkish) {
  CaseFolded out;
  out.lower.resize(text.size());
  out.upper.resize(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t cp = text[i];
    const char32_t lower = to_lower(cp, turkish);
    out.lower[i] = lower;
    if (lower != cp) {
      out.upper[i] = true;
      if (to_upper(lower, turkish) != cp) out.restorable = false;
    }
  }
  return out;
}

std::u32string restore_case(const std::u32string& lower, const std::vector<bool>& upper,
                            bool turkish) {
  MORPHEUS_CHECK(lower.size() == upper.size(), "case flags: ", upper.size(), " for ", lower.size(),
                 " characters");
  std::u32string out(lower);
  for (size_t i = 0; i < out.size(); ++i) {
    if (upper[i]) out[i] = to_upper(out[i], turkish);
  }
  return out;
}

}  // namespace morpheus::unicode
