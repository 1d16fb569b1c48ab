// SPDX-License-Identifier: MIT
#include "tokenizer/pretokenizer.h"

#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {

const char* span_kind_name(SpanKind kind) {
  switch (kind) {
    case SpanKind::kLetter:
      return "letter";
    case SpanKind::kDigit:
      return "digit";
    case SpanKind::kSpace:
      return "space";
    case SpanKind::kApostrophe:
      return "apostrophe";
    case SpanKind::kOther:
      return "other";
    case SpanKind::kInvalid:
      return "invalid";
  }
  return "?";
}

namespace {

SpanKind classify_cp(char32_t cp, SpanKind previous, bool has_previous) {
  if (cp < 0x80) {
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return SpanKind::kLetter;
    if (cp >= '0' && cp <= '9') return SpanKind::kDigit;
    if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D)) return SpanKind::kSpace;
    if (cp == '\'') return SpanKind::kApostrophe;
    return SpanKind::kOther;
  }
  if (unicode::is_apostrophe(cp)) return SpanKind::kApostrophe;
  if (unicode::is_letter(cp)) return SpanKind::kLetter;
  if (unicode::is_mark(cp)) {
    return (has_previous && previous == SpanKind::kLetter) ? SpanKind::kLetter : SpanKind::kOther;
  }
  if (unicode::is_digit(cp)) return SpanKind::kDigit;
  if (unicode::is_space(cp)) return SpanKind::kSpace;
  return SpanKind::kOther;
}

// Whether a '.' or ',' at `pos` sits between two digits ("12.5", "1,168"): it then continues the
// digit span, so that a written number is one span.
bool joins_digits(std::string_view text, size_t pos, const Span& open, bool has_open) {
  if (!has_open || open.kind != SpanKind::kDigit) return false;
  if (text[pos] != '.' && text[pos] != ',') return false;
  if (pos + 1 >= text.size()) return false;
  const utf8::Decoded next = utf8::decode_one(text, pos + 1);
  return next.valid && classify_cp(next.code_point, SpanKind::kOther, false) == SpanKind::kDigit;
}

}  // namespace

void pretokenize_into(std::string_view text, std::vector<Span>& out) {
  size_t pos = 0;
  bool has_open = false;
  Span open{SpanKind::kOther, 0, 0};
  while (pos < text.size()) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    SpanKind kind = d.valid ? classify_cp(d.code_point, open.kind, has_open) : SpanKind::kInvalid;
    if (kind == SpanKind::kOther && joins_digits(text, pos, open, has_open))
      kind = SpanKind::kDigit;
    const bool single = kind == SpanKind::kApostrophe || kind == SpanKind::kInvalid;
    if (has_open && open.kind == kind && !single) {
      open.end = pos + d.length;
    } else {
      if (has_open) out.push_back(open);
      open = Span{kind, pos, pos + d.length};
      has_open = true;
    }
    pos += d.length;
  }
  if (has_open) out.push_back(open);
}

ApostropheRole apostrophe_role(const std::vector<Span>& spans, size_t k) {
  const auto kind = [&spans](size_t i) { return spans[i].kind; };
  if (k >= spans.size() || kind(k) != SpanKind::kLetter) return ApostropheRole::kNone;
  if (k >= 2 && kind(k - 1) == SpanKind::kApostrophe &&
      (kind(k - 2) == SpanKind::kLetter || kind(k - 2) == SpanKind::kDigit)) {
    return ApostropheRole::kSuffixChain;
  }
  if (k + 2 < spans.size() && kind(k + 1) == SpanKind::kApostrophe &&
      kind(k + 2) == SpanKind::kLetter) {
    return ApostropheRole::kProperName;
  }
  return ApostropheRole::kNone;
}

StatusOr<std::vector<Span>> pretokenize(std::string_view text, bool allow_invalid) {
  if (!allow_invalid) MORPHEUS_RETURN_IF_ERROR(utf8::validate(text));
  std::vector<Span> spans;
  pretokenize_into(text, spans);
  return spans;
}

}  // namespace morpheus::tokenizer
