// SPDX-License-Identifier: MIT
// SegmentPooling (the reference's SegmentEncoder): membership-weighted attention pooling of the
// character vectors into segments, s_k = Σ_j α_jk h_j with α_jk ∝ M[j,k]·exp(a(h_j)) over valid j,
// then the word embedding e = LayerNorm(m + FFN(m)), m = mean of the valid segments (mass > min).
//   forward(hidden [N,T,D], membership [N,T,S], mask [N,T] bool true=valid) -> PoolingOutput.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include "model/linear.h"

namespace morpheus::model {

struct ModelConfig;

struct PoolingOutput {
  torch::Tensor word_embeddings;     // [N,D] LayerNorm output (not L2-normalised)
  torch::Tensor segment_embeddings;  // [N,S,D]; 0 for segments without mass
  torch::Tensor segment_mask;        // [N,S] bool: membership mass > min_seg_mass
};

struct SegmentPoolingOptions {
  TORCH_ARG(int64_t, dim) = 320;
  TORCH_ARG(int64_t, ffn_mult) = 2;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(double, min_seg_mass) = 0.01;
};
SegmentPoolingOptions make_pooling_options(const ModelConfig& config);

class SegmentPoolingImpl : public torch::nn::Cloneable<SegmentPoolingImpl> {
 public:
  explicit SegmentPoolingImpl(const SegmentPoolingOptions& options);
  void reset() override;
  PoolingOutput forward(const torch::Tensor& hidden, const torch::Tensor& membership,
                        const torch::Tensor& mask);
  // x [N,D] -> LayerNorm(x + FFN(x)) [N,D], the fusion that makes a word embedding of a mean.
  torch::Tensor fuse(const torch::Tensor& x);

  SegmentPoolingOptions options;
  Linear char_scorer{nullptr};                // a(h): Linear(D,1), no bias
  torch::nn::Sequential fusion_ffn{nullptr};  // 0 Linear(D,2D), 1 GELU, 2 Dropout, 3 Linear(2D,D)
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(SegmentPooling);

// The inputs of the root-inflection vector (engine/embedding_layout.h) before the fusion:
// hidden [N,T,D], membership [N,T,S], mask [N,T] bool, segments [N,S,D] and segment_mask [N,S]
// (the segments with mass come first) -> [N,3,D] = s_0 (the attention-pooled root segment), the
// membership-weighted mean of the positions outside segment 0 (the suffixes' characters, EOS
// included), and of the positions of segment K (the last suffix); the last two are 0 for a word
// of one segment. With hard membership the weights are 0/1: plain means of encoder rows.
torch::Tensor root_inflection_inputs(const torch::Tensor& hidden, const torch::Tensor& membership,
                                     const torch::Tensor& mask, const torch::Tensor& segments,
                                     const torch::Tensor& segment_mask);

}  // namespace morpheus::model
