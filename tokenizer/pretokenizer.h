// SPDX-License-Identifier: MIT
// Lossless pretokenizer: cuts text into spans whose concatenation is the input, byte for byte.
//   "Ankara'da 2,5 kişi!" -> [Ankara][']['da][ ][2,5][ ][kişi][!]  (letter, apos, letter, ...)
// Span kinds:
//   kLetter      a run of letters; combining marks continue it (core/unicode.h)
//   kDigit       a run of decimal digits; a '.' or ',' between two digits continues it, so a
//                written number (12.5, 1,168, 24.11.2026) is one span
//   kSpace       a run of white space (spaces, tabs, newlines, NBSP, ...)
//   kApostrophe  one apostrophe character (' ’ ‘ ʼ ′), always a span of its own, so that
//                "Türkiye’nin" gives the letter runs "Türkiye" and "nin"
//   kOther       a run of anything else (punctuation, symbols, emoji, marks not after a letter)
//   kInvalid     one byte that is not valid UTF-8 (only with allow_invalid)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::tokenizer {

enum class SpanKind : uint8_t { kLetter, kDigit, kSpace, kApostrophe, kOther, kInvalid };

const char* span_kind_name(SpanKind kind);  // "letter", "digit", ...

struct Span {
  SpanKind kind;
  size_t begin;  // byte offset into the input
  size_t end;    // one past the last byte
  size_t size() const { return end - begin; }
  std::string_view text(std::string_view input) const { return input.substr(begin, end - begin); }
};

// Spans of `text`. Invalid UTF-8 is INVALID_ARGUMENT with the byte offset, unless allow_invalid,
// which turns each bad byte into a kInvalid span.
StatusOr<std::vector<Span>> pretokenize(std::string_view text, bool allow_invalid = false);

// Appends spans to `out` for valid or invalid input (invalid bytes become kInvalid spans).
void pretokenize_into(std::string_view text, std::vector<Span>& out);

// Role of the letter span spans[k] under the Turkish apostrophe convention ("Ankara'da",
// "1990'larda"): kProperName when an apostrophe and a letter run follow it, kSuffixChain when it
// follows an apostrophe that follows a letter or digit run, else kNone.
enum class ApostropheRole : uint8_t { kNone, kProperName, kSuffixChain };
ApostropheRole apostrophe_role(const std::vector<Span>& spans, size_t k);

}  // namespace morpheus::tokenizer
