// SPDX-License-Identifier: MIT
// Fuzz target: the pretokenizer tiles any byte string exactly; UTF-8 validation agrees with the
// pretokenizer's invalid spans; Turkish case folding restores restorable text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/check.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "tests/fuzz/fuzz_target.h"
#include "tokenizer/pretokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<morpheus::tokenizer::Span> spans;
  morpheus::tokenizer::pretokenize_into(text, spans);
  std::string joined;
  bool any_invalid = false;
  for (const auto& s : spans) {
    joined += s.text(text);
    any_invalid = any_invalid || s.kind == morpheus::tokenizer::SpanKind::kInvalid;
  }
  MORPHEUS_CHECK(joined == text, "pretokenizer lost bytes");
  MORPHEUS_CHECK(any_invalid == !morpheus::utf8::is_valid(text), "validity disagreement");
  if (!any_invalid) {
    auto cps = morpheus::utf8::decode(text);
    MORPHEUS_CHECK(cps.ok(), "decode failed on valid text");
    MORPHEUS_CHECK(morpheus::utf8::encode(*cps) == text, "encode(decode(s)) != s");
    const auto folded = morpheus::unicode::fold_case(*cps);
    if (folded.restorable) {
      MORPHEUS_CHECK(morpheus::unicode::restore_case(folded.lower, folded.upper) == *cps,
                     "case side channel lost information");
    }
  }
  return 0;
}
