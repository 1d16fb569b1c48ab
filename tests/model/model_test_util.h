// SPDX-License-Identifier: MIT
// Helpers for the model tests: a finite-difference gradient check in double and a synthetic
// MorpheusBatch of packed words with sentence rows.
#pragma once

#include <torch/torch.h>

#include <functional>

#include "model/config.h"
#include "model/losses.h"

namespace morpheus::testing {

// Max |analytic − numeric| over the elements of x for L(x) = Σ f(x)·w with a fixed random w
// (central differences, step eps). x must be double; f must be deterministic.
double max_gradient_error(const std::function<torch::Tensor(const torch::Tensor&)>& f,
                          const torch::Tensor& x, double eps = 1e-6);

// A small ModelConfig for tests: D=16, 2 heads, 1 encoder + 2 detector layers, dropout 0.
model::ModelConfig tiny_test_config();

// `sentences` rows of `words_per_sentence` random lower-case words (3..max_chars letters,
// T = max_chars + 2 positions), random interior teacher boundaries, confidence 1, word ids in
// [1, word_vocab), root ids shared by families of words. Deterministic for a given seed.
model::MorpheusBatch synthetic_batch(const model::ModelConfig& config, int64_t sentences,
                                     int64_t words_per_sentence, int64_t max_chars, uint64_t seed);

}  // namespace morpheus::testing
