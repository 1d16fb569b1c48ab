// SPDX-License-Identifier: MIT
// The tied output head and its loss without a [N,V] logits tensor.
//   tied_head_cross_entropy(h [N,D] float, w [V,D] float, targets [N] int64 in [0, V))
//     -> scalar mean of −log softmax(h·wᵀ)[target] (training).
//   tied_head_nll(h, w, targets) -> Σ −ln p(target) as a double (evaluation, no gradient).
//   tied_head_token_nll(h, w, targets) -> −ln p(target) of each row, [N] float (no gradient).
// Rows go through in chunks of about kHeadChunkElements logits: chunk logits = h_c·wᵀ,
// log-softmax, the loss; and, because the loss is the last node of the graph, its gradient is
// formed in the same pass: g_c = (softmax − one-hot)/N, dh_c = g_c·w, dw += g_cᵀ·h_c. Backward
// then only scales dh and dw by the incoming gradient. The matrix products are those of
// logits → cross-entropy → backward (no recomputation); the [N,V] logits, log-softmax,
// one-hot and gradient tensors of the unfused path (4 × 67 MB at N = 2,048, V = 8,193) become
// chunks that stay in the CPU caches and in the allocator's reuse.
#pragma once

#include <torch/types.h>

#include <cstdint>

namespace morpheus::lm {

// Rows per chunk: about 2^21 logits (8 MiB) on the CPU, 2^26 on CUDA, but at least 4·D rows:
// each chunk reads all of w three times (logits, dh, dw), which costs 3·D/rows of one pass over
// the chunk's logits, so a large vocabulary gets fewer, longer chunks.
int64_t head_chunk_rows(int64_t vocab, int64_t width, const torch::Device& device);

// chunk_rows 0: head_chunk_rows(V, D, device).
torch::Tensor tied_head_cross_entropy(const torch::Tensor& h, const torch::Tensor& w,
                                      const torch::Tensor& targets, int64_t chunk_rows = 0);

double tied_head_nll(const torch::Tensor& h, const torch::Tensor& w, const torch::Tensor& targets,
                     int64_t chunk_rows = 0);

torch::Tensor tied_head_token_nll(const torch::Tensor& h, const torch::Tensor& w,
                                  const torch::Tensor& targets, int64_t chunk_rows = 0);

}  // namespace morpheus::lm
