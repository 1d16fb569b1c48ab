// SPDX-License-Identifier: MIT
// RoPE (rotate-half convention, as in the reference's cos/sin caches of width Dh).
#include "model/rope.h"

#include <torch/torch.h>

namespace morpheus::model {

RopeImpl::RopeImpl(const RopeOptions& options_) : options(options_) { reset(); }

void RopeImpl::reset() {
  TORCH_CHECK(options.head_dim() > 0 && options.head_dim() % 2 == 0,
              "RoPE head_dim must be positive and even, got ", options.head_dim());
  const int64_t half = options.head_dim() / 2;
  torch::Tensor freq = torch::pow(
      options.base(), -torch::arange(0, half, torch::kDouble) * 2.0 / options.head_dim());
  torch::Tensor pos = torch::arange(options.max_len(), torch::kDouble);
  torch::Tensor angles = torch::outer(pos, freq);               // [max_len, Dh/2]
  torch::Tensor emb = torch::cat({angles, angles}, /*dim=*/1);  // [max_len, Dh]
  inv_freq = register_buffer("inv_freq", freq.to(torch::kFloat));
  cos_cache = register_buffer("cos_cache", emb.cos().to(torch::kFloat));
  sin_cache = register_buffer("sin_cache", emb.sin().to(torch::kFloat));
}

torch::Tensor RopeImpl::forward(const torch::Tensor& x) const {
  TORCH_CHECK(x.dim() == 4 && x.size(3) == options.head_dim(), "RoPE input must be [B,H,T,",
              options.head_dim(), "], got ", x.sizes());
  const int64_t t = x.size(2);
  TORCH_CHECK(t <= options.max_len(), "RoPE input has ", t, " positions, cache holds ",
              options.max_len());
  const int64_t half = options.head_dim() / 2;
  torch::Tensor cos = cos_cache.slice(0, 0, t).to(x.dtype());
  torch::Tensor sin = sin_cache.slice(0, 0, t).to(x.dtype());
  torch::Tensor rotated = torch::cat({-x.slice(3, half), x.slice(3, 0, half)}, 3);
  return x * cos + rotated * sin;
}

}  // namespace morpheus::model
