// SPDX-License-Identifier: MIT
// Differentiable Poisson–binomial segmentation (paper eq. 2): soft membership
//   M[n,j,k] = P(k boundaries among gaps 0..j−1 of word n), k = S−1 absorbing the overflow,
// with p_g the probability of gap g (between positions g and g+1) and row 0 (BOS) = one-hot(0).
//   soft_membership(probs [N,T-1] float/double in [0,1], mask [N,T] bool true=valid, S)
//     -> [N,T,S], rows of valid positions sum to 1, padded rows are 0.
// One autograd function with the analytic backward of the reference implementation, as
// tensor ops over [N,S] (any device) or as a fused CPU kernel (parallel over words on the
// intra-op threads: each output element written once; only probs and mask are saved, the
// backward recomputes each word's DP table in cache; the DP of a word stops at its last valid
// position; S = 12 keeps a DP row in 16-byte vector registers, other S use scalar loops).
// Upstream gradients of masked positions are ignored (never multiplied by 0: they may be inf).
#pragma once

#include <torch/types.h>

namespace morpheus::model {

enum class SegmentationKernel {
  kAuto,       // fused on CPU, tensor ops elsewhere
  kTensorOps,  // device-agnostic tensor ops, O(T) kernel launches of [N,S] each
  kFused,      // fused CPU kernel (parallel over words); CPU tensors only
};

// Soft membership with the analytic backward (gradient flows to `probs` only).
torch::Tensor soft_membership(const torch::Tensor& probs, const torch::Tensor& mask,
                              int64_t num_segments,
                              SegmentationKernel kernel = SegmentationKernel::kAuto);

// The same quantity built from plain autograd ops, one step per position (the reference's
// Python loop). Slow; for tests and the benchmark baseline.
torch::Tensor soft_membership_naive(const torch::Tensor& probs, const torch::Tensor& mask,
                                    int64_t num_segments);

}  // namespace morpheus::model
