// SPDX-License-Identifier: MIT
// The Morpheus inference model.
#include "model/morpheus.h"

#include <torch/torch.h>

namespace morpheus::model {

MorpheusImpl::MorpheusImpl(const ModelConfig& config_) : config(config_) { reset(); }

void MorpheusImpl::reset() {
  char_encoder = register_module("char_encoder", CharEncoder(make_encoder_options(config)));
  boundary_detector =
      register_module("boundary_detector", BoundaryDetector(make_detector_options(config)));
  segment_encoder =
      register_module("segment_encoder", SegmentPooling(make_pooling_options(config)));
}

MorpheusOutput MorpheusImpl::forward(const torch::Tensor& char_ids, const torch::Tensor& case_flags,
                                     bool hard) {
  TORCH_CHECK(char_ids.dim() == 2 && char_ids.dtype() == torch::kLong && char_ids.size(1) >= 2,
              "char_ids must be int64 [N,T] with T >= 2, got ", char_ids.sizes(), " ",
              char_ids.dtype());
  MorpheusOutput out;
  out.mask = char_ids.ne(kPadId);
  out.char_hidden = char_encoder(char_ids, case_flags, out.mask);
  DetectorOutput det = boundary_detector(out.char_hidden, out.mask);
  out.boundary_logits = det.logits;
  out.layer_logits = std::move(det.layer_logits);
  torch::Tensor gaps = gap_mask(out.mask).to(out.boundary_logits.dtype());
  out.boundary_probs = torch::sigmoid(out.boundary_logits) * gaps;
  torch::Tensor probs = out.boundary_probs;
  if (hard) probs = (probs > config.threshold).to(probs.dtype());
  out.membership = soft_membership(probs, out.mask, config.max_segs, kernel);
  PoolingOutput pooled = segment_encoder(out.char_hidden, out.membership, out.mask);
  out.segment_embeddings = pooled.segment_embeddings;
  out.segment_mask = pooled.segment_mask;
  out.word_embeddings = pooled.word_embeddings;
  return out;
}

int64_t count_parameters(const torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

}  // namespace morpheus::model
