// SPDX-License-Identifier: MIT
// Fuzz target: the hybrid decoder (baselines/hybrid/hybrid_tokenizer.h) on arbitrary id
// sequences, in both modes: it returns text or a Status, never crashes or reads out of bounds.
// Ids are two input bytes each, spread over the lexicon, byte, form and out-of-range ids.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_hybrid_lexicon.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using morpheus::tokenizer::hybrid::HybridMode;
  const auto& lossless = morpheus::fuzz::hybrid_tokenizer(HybridMode::kLossless);
  const int32_t n = lossless.lexicon().num_ids();
  // Interesting ids: the low roots, allomorphic roots, suffixes, BPE, and the lossless extras.
  const int32_t bases[8] = {0, 100, 2080, 20000, 20024, 30000, n, n + 256};
  std::vector<int32_t> ids;
  for (size_t i = 0; i + 1 < size; i += 2) {
    const uint8_t sel = data[i];
    const int32_t offset = static_cast<int32_t>(data[i + 1]);
    if (sel == 0xFF) {
      ids.push_back(-1 - offset);
    } else if (sel == 0xFE) {
      ids.push_back(n + 272 + offset);
    } else {
      ids.push_back(bases[sel % 8] + (sel >= 128 ? offset : offset % 16));
    }
  }
  for (HybridMode mode : {HybridMode::kReference, HybridMode::kLossless}) {
    auto text = morpheus::fuzz::hybrid_tokenizer(mode).decode(ids);
    if (text.ok()) (void)text->size();
  }
  return 0;
}
