// SPDX-License-Identifier: MIT
// Character classes and case mapping, table-driven, no ICU.
//   Letters: Latin (incl. Extended-A/B, Additional, IPA), Greek, Cyrillic, Armenian, Georgian,
//   Hebrew, Arabic, Devanagari, Thai, Hangul, Kana, CJK ideographs, fullwidth Latin.
//   Marks: the combining blocks (U+0300–036F, …); a mark continues a letter run.
//   Case: Turkish rules for dotted/dotless i (I↔ı, İ↔i) on top of simple one-to-one mappings for
//   Latin, Greek, Cyrillic, Armenian and fullwidth Latin. Mapping is always one code point to one
//   code point, so a per-character case side channel can restore the original.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace morpheus::unicode {

bool is_letter(char32_t cp);
bool is_mark(char32_t cp);   // combining mark (Mn/Mc/Me in the blocks above)
bool is_digit(char32_t cp);  // decimal digits: ASCII, Arabic-Indic, Devanagari, fullwidth
bool is_space(char32_t cp);  // Unicode White_Space
// ' ’ ‘ ʼ ′ — the characters Turkish writes between a proper noun and its suffixes.
bool is_apostrophe(char32_t cp);

// Simple case mapping. `turkish` selects I→ı, İ→i (lower) and i→İ, ı→I (upper).
char32_t to_lower(char32_t cp, bool turkish = true);
char32_t to_upper(char32_t cp, bool turkish = true);
bool is_upper(char32_t cp, bool turkish = true);  // to_lower(cp) != cp
bool is_lower(char32_t cp, bool turkish = true);  // to_upper(cp) != cp

// Lower-cases UTF-8 text code point by code point (invalid bytes copied through unchanged).
// With `turkish`, the sequence "i" + U+0307 COMBINING DOT ABOVE (a non-Turkish lower-casing of
// İ) becomes plain "i" — this is the only case where the length in code points changes.
std::string to_lower(std::string_view text, bool turkish = true);
std::string to_upper(std::string_view text, bool turkish = true);

// Lower-cased code points plus one flag per code point: true where the original was upper case.
// `restorable` is false when some character cannot be restored from (lower, flag), e.g. a
// titlecase digraph ǅ; callers then need a fallback.
struct CaseFolded {
  std::u32string lower;
  std::vector<bool> upper;  // same length as lower
  bool restorable = true;
};
CaseFolded fold_case(const std::u32string& text, bool turkish = true);
// Inverse of fold_case for restorable input.
std::u32string restore_case(const std::u32string& lower, const std::vector<bool>& upper,
                            bool turkish = true);

}  // namespace morpheus::unicode
