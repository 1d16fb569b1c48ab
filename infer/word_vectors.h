// SPDX-License-Identifier: MIT
// Word vectors of a Morpheus tokenizer: the embeddings `morpheus embed` writes (and
// morpheus.Embedder returns), and the exact cosine ranking of `morpheus neighbors`.
#pragma once

#include <torch/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "embed/ann_index.h"  // Neighbor
#include "infer/neural_segmenter.h"

namespace morpheus::infer {

// Embeddings [N,D] float32 (contiguous, CPU) of `words`, `block` words per model call.
torch::Tensor embed_words(const infer::NeuralSegmenter& seg, const std::vector<std::string>& words,
                          size_t block = 16384);

// For each row q of `queries` [Q,D], the k rows of `candidates` [V,D] with the highest cosine,
// best first (ties: lower row first), leaving out the rows in exclude[q] (may be empty). One
// matrix product per block of `block` queries; the selection runs on the intra-op threads.
std::vector<std::vector<embed::Neighbor>> cosine_neighbors(
    const torch::Tensor& candidates, const torch::Tensor& queries,
    const std::vector<std::vector<int64_t>>& exclude, size_t k, int64_t block = 256);

}  // namespace morpheus::infer
