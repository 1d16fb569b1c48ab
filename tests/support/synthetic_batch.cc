// SPDX-License-Identifier: MIT
#include "tests/support/synthetic_batch.h"

#include <torch/torch.h>

#include <random>

#include "model/morpheus.h"

namespace morpheus::testing {

model::MorpheusBatch synthetic_batch(const model::ModelConfig& config, int64_t sentences,
                                     int64_t words_per_sentence, int64_t max_chars, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t n = sentences * words_per_sentence, t = max_chars + 2;
  model::MorpheusBatch b;
  b.char_ids = torch::zeros({n, t}, torch::kLong);
  b.case_flags = torch::zeros({n, t}, torch::kLong);
  b.boundary_labels = torch::zeros({n, t - 1});
  b.confidence = torch::ones({n});
  b.word_ids = torch::zeros({n}, torch::kLong);
  b.root_ids = torch::zeros({n}, torch::kLong);
  b.suffix_ids = torch::zeros({n}, torch::kLong);
  b.word_index = torch::full({sentences, config.max_sent_len}, int64_t{-1}, torch::kLong);
  for (int64_t w = 0; w < n; ++w) {
    const int64_t len = uniform(3, max_chars);
    b.char_ids[w][0] = model::kBosId;
    const int64_t word_id = uniform(1, config.word_vocab_size - 1);
    std::mt19937_64 word_rng(static_cast<uint64_t>(word_id));  // same id -> same spelling
    for (int64_t i = 1; i <= len; ++i) {
      b.char_ids[w][i] = std::uniform_int_distribution<int64_t>(4, 32)(word_rng);
    }
    b.char_ids[w][len + 1] = model::kEosId;
    if (uniform(0, 3) == 0) b.case_flags[w][1] = 1;
    for (int64_t g = 2; g < len; ++g) {
      if (uniform(0, 3) == 0) b.boundary_labels[w][g] = 1.0;
    }
    b.word_ids[w] = word_id;
    b.root_ids[w] = 1 + word_id % (config.root_vocab_size - 1);
    b.word_index[w / words_per_sentence][w % words_per_sentence] = w;
  }
  return b;
}

}  // namespace morpheus::testing
