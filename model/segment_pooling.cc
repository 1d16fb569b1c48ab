// SPDX-License-Identifier: MIT
// Segment attention pooling and the word embedding.
#include "model/segment_pooling.h"

#include <torch/torch.h>

#include "config/model_config.h"

namespace morpheus::model {

SegmentPoolingOptions make_pooling_options(const ModelConfig& c) {
  return SegmentPoolingOptions()
      .dim(c.char_dim)
      .ffn_mult(c.ffn_mult)
      .dropout(c.dropout)
      .min_seg_mass(c.min_seg_mass);
}

SegmentPoolingImpl::SegmentPoolingImpl(const SegmentPoolingOptions& options_) : options(options_) {
  reset();
}

void SegmentPoolingImpl::reset() {
  const int64_t d = options.dim();
  char_scorer = register_module("char_scorer", Linear(torch::nn::LinearOptions(d, 1).bias(false)));
  fusion_ffn = register_module(
      "fusion_ffn", torch::nn::Sequential(Linear(d, options.ffn_mult() * d), torch::nn::GELU(),
                                          torch::nn::Dropout(options.dropout()),
                                          Linear(options.ffn_mult() * d, d)));
  norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
}

PoolingOutput SegmentPoolingImpl::forward(const torch::Tensor& hidden,
                                          const torch::Tensor& membership,
                                          const torch::Tensor& mask) {
  TORCH_CHECK(hidden.dim() == 3 && hidden.size(2) == options.dim(), "hidden must be [N,T,",
              options.dim(), "], got ", hidden.sizes());
  TORCH_CHECK(membership.dim() == 3 && membership.size(0) == hidden.size(0) &&
                  membership.size(1) == hidden.size(1),
              "membership must be [N,T,S] matching hidden ", hidden.sizes(), ", got ",
              membership.sizes());
  TORCH_CHECK(mask.dtype() == torch::kBool && mask.dim() == 2 && mask.size(0) == hidden.size(0) &&
                  mask.size(1) == hidden.size(1),
              "mask must be bool [N,T], got ", mask.sizes(), " ", mask.dtype());
  const auto dtype = hidden.dtype();
  torch::Tensor maskf = mask.to(dtype);               // [N,T]
  torch::Tensor a = char_scorer(hidden).squeeze(-1);  // [N,T]
  a = a.masked_fill(mask.logical_not(), -1e30);
  torch::Tensor a_max = std::get<0>(a.max(1, /*keepdim=*/true)).detach();  // per-word shift
  torch::Tensor w = torch::exp(a - a_max) * maskf;                         // [N,T]
  torch::Tensor m = membership * maskf.unsqueeze(-1);                      // [N,T,S]
  torch::Tensor weights = m * w.unsqueeze(-1);                             // [N,T,S]
  torch::Tensor denom = weights.sum(1);                                    // [N,S]
  torch::Tensor seg = torch::bmm(weights.transpose(1, 2), hidden);         // [N,S,D]
  seg = seg / denom.clamp_min(1e-12).unsqueeze(-1);
  torch::Tensor mass = m.sum(1);  // [N,S]
  torch::Tensor seg_mask = mass > options.min_seg_mass();
  torch::Tensor seg_maskf = seg_mask.to(dtype);
  seg = seg * seg_maskf.unsqueeze(-1);
  torch::Tensor mean = seg.sum(1) / seg_maskf.sum(1, true).clamp_min(1.0);  // [N,D]
  PoolingOutput out;
  out.word_embeddings = fuse(mean);
  out.segment_embeddings = seg;
  out.segment_mask = seg_mask;
  return out;
}

torch::Tensor SegmentPoolingImpl::fuse(const torch::Tensor& x) {
  return norm(x + fusion_ffn->forward(x));
}

torch::Tensor root_inflection_inputs(const torch::Tensor& hidden, const torch::Tensor& membership,
                                     const torch::Tensor& mask, const torch::Tensor& segments,
                                     const torch::Tensor& segment_mask) {
  TORCH_CHECK(hidden.dim() == 3 && membership.dim() == 3 &&
                  membership.sizes().slice(0, 2) == hidden.sizes().slice(0, 2) &&
                  segments.dim() == 3 && segment_mask.sizes() == segments.sizes().slice(0, 2),
              "need hidden [N,T,D], membership [N,T,S], segments [N,S,D], segment_mask [N,S]; got ",
              hidden.sizes(), membership.sizes(), segments.sizes(), segment_mask.sizes());
  const auto dtype = hidden.dtype();
  const int64_t s = membership.size(2), t = membership.size(1);
  torch::Tensor m = membership * mask.to(dtype).unsqueeze(-1);  // [N,T,S]
  torch::Tensor rest = m.narrow(2, 1, s - 1).sum(-1);           // [N,T]
  torch::Tensor valid = segment_mask.to(torch::kLong).sum(1);   // [N] = K+1
  torch::Tensor last_index = (valid - 1).clamp_min(0).view({-1, 1, 1}).expand({-1, t, 1});
  torch::Tensor last =
      m.gather(2, last_index).squeeze(-1) * valid.gt(1).to(dtype).unsqueeze(-1);  // [N,T]
  const auto mean_of = [&](const torch::Tensor& w) {                              // [N,D]
    return (w.unsqueeze(-1) * hidden).sum(1) / w.sum(1, true).clamp_min(1e-12);
  };
  return torch::stack({segments.select(1, 0), mean_of(rest), mean_of(last)}, 1);  // [N,3,D]
}

}  // namespace morpheus::model
