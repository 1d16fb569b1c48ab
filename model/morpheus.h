// SPDX-License-Identifier: MIT
// Morpheus: the whole inference model = CharEncoder -> BoundaryDetector -> Poisson–binomial
// membership -> SegmentPooling (state keys char_encoder.*, boundary_detector.*, segment_encoder.*).
//   forward(char_ids [N,T] int64 (PAD=0), case_flags [N,T] int64, hard) -> MorpheusOutput.
//   The valid mask is char_ids != PAD. With hard = true the gap probabilities are thresholded
//   (p > threshold) before the DP, so membership rows are one-hot (inference segmentation).
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <vector>

#include "config/model_config.h"
#include "model/boundary_detector.h"
#include "model/char_encoder.h"
#include "model/poisson_binomial.h"
#include "model/segment_pooling.h"

namespace morpheus::model {

constexpr int64_t kPadId = 0;
constexpr int64_t kUnkId = 1;
constexpr int64_t kBosId = 2;
constexpr int64_t kEosId = 3;

struct MorpheusOutput {
  torch::Tensor mask;                       // [N,T] bool, true = real position (BOS..EOS)
  torch::Tensor char_hidden;                // [N,T,D] CharEncoder output, 0 at padding
  torch::Tensor boundary_logits;            // [N,T-1] final-layer gap logits
  std::vector<torch::Tensor> layer_logits;  // M × [N,T-1], for deep supervision
  torch::Tensor boundary_probs;             // [N,T-1] σ(logits), 0 at invalid gaps
  torch::Tensor membership;                 // [N,T,S] soft (or hard) segment membership
  torch::Tensor segment_embeddings;         // [N,S,D]
  torch::Tensor segment_mask;               // [N,S] bool
  torch::Tensor word_embeddings;            // [N,D]
};

class MorpheusImpl : public torch::nn::Cloneable<MorpheusImpl> {
 public:
  explicit MorpheusImpl(const ModelConfig& config);
  void reset() override;
  MorpheusOutput forward(const torch::Tensor& char_ids, const torch::Tensor& case_flags,
                         bool hard = false);

  ModelConfig config;
  SegmentationKernel kernel = SegmentationKernel::kAuto;
  CharEncoder char_encoder{nullptr};
  BoundaryDetector boundary_detector{nullptr};
  SegmentPooling segment_encoder{nullptr};
};
TORCH_MODULE(Morpheus);

// Number of scalar parameters (not buffers) of a module.
int64_t count_parameters(const torch::nn::Module& module);

}  // namespace morpheus::model
