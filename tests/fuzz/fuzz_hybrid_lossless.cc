// SPDX-License-Identifier: MIT
// Fuzz target: the lossless hybrid mode (baselines/hybrid/hybrid_tokenizer.h) returns every byte
// string exactly: decode(encode(s)) == s, ids < vocab_size(); segment() pieces concatenate to the
// word; reference-mode encoding of the same bytes does not crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/check.h"
#include "tests/fuzz/fuzz_hybrid_lexicon.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using morpheus::tokenizer::hybrid::HybridMode;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& lossless = morpheus::fuzz::hybrid_tokenizer(HybridMode::kLossless);
  const std::vector<int32_t> ids = lossless.encode(text);
  for (int32_t id : ids) {
    MORPHEUS_CHECK(id >= 0 && id < lossless.vocab_size(), "id out of range: ", id);
  }
  auto back = lossless.decode(ids);
  MORPHEUS_CHECK(back.ok(), "lossless decode failed: ", back.status().to_string());
  MORPHEUS_CHECK(*back == text, "lossless decode(encode(s)) != s");
  std::string joined;
  for (const std::string& piece : lossless.cut(text)) joined += piece;
  MORPHEUS_CHECK(joined == text, "segment() pieces do not concatenate to the word");
  const auto& reference = morpheus::fuzz::hybrid_tokenizer(HybridMode::kReference);
  const std::vector<int32_t> ref_ids = reference.encode(text);
  (void)reference.decode(ref_ids);
  return 0;
}
