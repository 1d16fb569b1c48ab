// SPDX-License-Identifier: MIT
// BoundaryDetector: M RoPE self-attention layers (post-norm) + pre-norm FFNs; after each layer an
// adjacent-pair scorer MLP(concat(h_g, h_{g+1})) gives one logit per gap (deep supervision).
//   forward(hidden [B,T,D] float, mask [B,T] bool true=valid)
//     -> DetectorOutput{logits [B,T-1] (final layer), layer_logits: M × [B,T-1]}.
//   Gap g lies between positions g and g+1; a gap is valid when both positions are valid
//   (gap_mask). Final-layer probabilities σ(logits) are the interface. Legend: model/README.md.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <vector>

#include "model/attention.h"

namespace morpheus::model {

struct ModelConfig;

// mask [B,T] bool -> gap mask [B,T-1] bool: both neighbours valid.
torch::Tensor gap_mask(const torch::Tensor& mask);

struct DetectorOutput {
  torch::Tensor logits;                     // [B,T-1] final-layer gap logits
  std::vector<torch::Tensor> layer_logits;  // M × [B,T-1], layer order; back() == logits
};

struct DetectorLayerOptions {
  DetectorLayerOptions(int64_t dim, int64_t num_heads, int64_t max_len)
      : dim_(dim), num_heads_(num_heads), max_len_(max_len) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(int64_t, num_heads);
  TORCH_ARG(int64_t, max_len);  // RoPE cache (the reference caches 64 positions)
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(double, rope_base) = 10000;
};

// One detector layer: the RoPE attention parameters plus boundary_scorer =
// Sequential(0 Linear(2D,D), 1 GELU, 2 Linear(D,1)).
class DetectorLayerImpl : public torch::nn::Cloneable<DetectorLayerImpl> {
 public:
  explicit DetectorLayerImpl(const DetectorLayerOptions& options);
  void reset() override;
  // x [B,T,D], mask [B,T] -> LayerNorm(x + attn(x)) [B,T,D] zero at padding; rows =
  // ValidRows(mask).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask, const ValidRows& rows);
  // h [B,T,D], gaps: ValidRows of gap_mask(mask) [B,T-1] -> logits [B,T-1], 0 at invalid gaps.
  torch::Tensor score(const torch::Tensor& h, const ValidRows& gaps);

  DetectorLayerOptions options;
  Linear qkv{nullptr}, proj{nullptr};
  torch::nn::LayerNorm norm{nullptr};
  Rope rope{nullptr};
  torch::nn::Sequential boundary_scorer{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(DetectorLayer);

struct BoundaryDetectorOptions {
  TORCH_ARG(int64_t, dim) = 320;
  TORCH_ARG(int64_t, num_layers) = 4;
  TORCH_ARG(int64_t, num_heads) = 5;
  TORCH_ARG(int64_t, ffn_mult) = 2;
  TORCH_ARG(int64_t, max_len) = 64;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(double, rope_base) = 10000;
  TORCH_ARG(double, pos_weight) = 4.0;  // buffer aux pos_weight
  TORCH_ARG(std::vector<double>,
            depth_weights) = std::vector<double>{};  // default 0.85+0.15(l+1)/M
};
BoundaryDetectorOptions make_detector_options(const ModelConfig& config);

class BoundaryDetectorImpl : public torch::nn::Cloneable<BoundaryDetectorImpl> {
 public:
  explicit BoundaryDetectorImpl(const BoundaryDetectorOptions& options);
  void reset() override;
  DetectorOutput forward(const torch::Tensor& hidden, const torch::Tensor& mask);

  BoundaryDetectorOptions options;
  torch::Tensor depth_weights;  // buffer [M]
  torch::Tensor pos_weight;     // buffer [1]
  torch::nn::ModuleList layers{nullptr}, ffns{nullptr};
};
TORCH_MODULE(BoundaryDetector);

}  // namespace morpheus::model
