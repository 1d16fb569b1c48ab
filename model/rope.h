// SPDX-License-Identifier: MIT
// Rotary position embedding (RoPE) over each attention head's subspace.
//   forward(x [B,H,T,Dh]) -> [B,H,T,Dh]: pairs (i, i+Dh/2) rotated by angle pos·base^(−2i/Dh).
//   Buffers (persistent, not parameters): inv_freq [Dh/2], cos_cache/sin_cache [max_len, Dh].
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

namespace morpheus::model {

struct RopeOptions {
  RopeOptions(int64_t head_dim, int64_t max_len) : head_dim_(head_dim), max_len_(max_len) {}
  TORCH_ARG(int64_t, head_dim);     // Dh, even
  TORCH_ARG(int64_t, max_len);      // cached positions; longer inputs are a contract error
  TORCH_ARG(double, base) = 10000;  // frequency base
};

class RopeImpl : public torch::nn::Cloneable<RopeImpl> {
 public:
  explicit RopeImpl(const RopeOptions& options);
  void reset() override;
  // x [B,H,T,Dh] with T <= max_len; returns the rotated tensor (same shape and dtype).
  torch::Tensor forward(const torch::Tensor& x) const;

  RopeOptions options;
  torch::Tensor inv_freq, cos_cache, sin_cache;
};
TORCH_MODULE(Rope);

}  // namespace morpheus::model
