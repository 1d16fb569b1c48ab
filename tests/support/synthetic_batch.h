// SPDX-License-Identifier: MIT
// Synthetic training batches (model/losses.h: MorpheusBatch) of random words in sentence rows, for
// the model tests and the benches (library morpheus_synthetic_batch, LibTorch).
#pragma once

#include <cstdint>

#include "config/model_config.h"
#include "model/losses.h"

namespace morpheus::testing {

// `sentences` rows of `words_per_sentence` (≤ config.max_sent_len) random lower-case words
// (3..max_chars letters, T = max_chars + 2 positions), random interior teacher boundaries,
// confidence 1, word ids in [1, word_vocab), one spelling per word id, root ids shared by
// families of words, a quarter of the words capitalised. Deterministic for a given seed.
model::MorpheusBatch synthetic_batch(const model::ModelConfig& config, int64_t sentences,
                                     int64_t words_per_sentence, int64_t max_chars, uint64_t seed);

}  // namespace morpheus::testing
