// SPDX-License-Identifier: MIT
// Helpers of the torch-free engine tests: small configurations, weight files of random models
// written with the engine's own writer, a character vocabulary, and Turkish-like words.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/model.h"
#include "tokenizer/char_vocab.h"

namespace morpheus::testing {

// D = 16, 2 heads, 1 encoder + 2 detector layers, kernels {2,3,4,5} × 4 channels, T = 12 (chunks
// of 10 characters), S = 6, vocab of engine_chars().
model::ModelConfig small_engine_config();

// The file image of a random model with `config`: weights uniform in ±scale/√fan_in, biases and
// LayerNorm shifts small, LayerNorm scales near 1, RoPE tables exact (base 10000). Deterministic
// for a seed.
std::string random_weight_bytes(const model::ModelConfig& config, uint64_t seed,
                                double scale = 3.0);
// That image written to <dir>/model.weights; returns the path.
std::string write_random_weights(const std::string& dir, const model::ModelConfig& config,
                                 uint64_t seed, double scale = 3.0);
std::shared_ptr<const engine::Model> random_model(const model::ModelConfig& config, uint64_t seed,
                                                  double scale = 3.0);

// The Turkish lower-case alphabet and q w x â î û, ids by that order.
tokenizer::CharVocab engine_chars();

// `n` distinct lower-case words of 1..max_chars letters of engine_chars (stems and suffixes
// mixed with random letters). Deterministic for a seed.
std::vector<std::string> turkish_like_words(size_t n, size_t max_chars, uint64_t seed);

// Recomputes both checksums of a weight-file image in place (after a test edits its header).
void reseal_weight_bytes(std::string* bytes);

}  // namespace morpheus::testing
