// SPDX-License-Identifier: MIT
// Aux boundary loss, batch checks, MorpheusWithHeads::compute_losses.
#include "model/losses.h"

#include <torch/torch.h>

namespace morpheus::model {

AuxLossOutput aux_boundary_loss(const std::vector<torch::Tensor>& layer_logits,
                                const torch::Tensor& labels, const torch::Tensor& confidence,
                                const torch::Tensor& gaps, const std::vector<double>& depth_weights,
                                double pos_weight, double count_weight) {
  TORCH_CHECK(!layer_logits.empty() && layer_logits.size() == depth_weights.size(),
              "need one depth weight per layer: ", layer_logits.size(), " layers, ",
              depth_weights.size(), " weights");
  TORCH_CHECK(gaps.dtype() == torch::kBool && gaps.sizes() == labels.sizes(), "gaps must be bool ",
              labels.sizes(), ", got ", gaps.sizes());
  TORCH_CHECK(confidence.dim() == 1 && confidence.size(0) == labels.size(0),
              "confidence must be [N], got ", confidence.sizes());
  const auto dtype = layer_logits.front().dtype();
  torch::Tensor gf = gaps.to(dtype);
  torch::Tensor y = labels.to(dtype);
  torch::Tensor conf = confidence.to(dtype);
  torch::Tensor n_gaps = gf.sum(1);                                        // [N]
  torch::Tensor word_ok = conf.gt(0).logical_and(n_gaps.gt(0)).to(dtype);  // [N]
  torch::Tensor n_words = word_ok.sum().clamp_min(1.0);
  torch::Tensor label_count = (y * gf).sum(1);
  AuxLossOutput out;
  out.total = torch::zeros({}, layer_logits.front().options());
  for (size_t l = 0; l < layer_logits.size(); ++l) {
    TORCH_CHECK(layer_logits[l].sizes() == labels.sizes(), "layer ", l, " logits ",
                layer_logits[l].sizes(), " vs labels ", labels.sizes());
    torch::Tensor z = layer_logits[l].clamp(-30, 30);
    torch::Tensor bce =
        -(pos_weight * y * torch::log_sigmoid(z) + (1 - y) * torch::log_sigmoid(-z));
    torch::Tensor bce_w = (bce * gf).sum(1) / n_gaps.clamp_min(1.0);
    torch::Tensor count_w = ((torch::sigmoid(z) * gf).sum(1) - label_count).pow(2);
    torch::Tensor per_word = conf * bce_w + count_weight * count_w;
    torch::Tensor loss = (per_word * word_ok).sum() / n_words;
    out.per_layer.push_back(loss);
    out.total = out.total + depth_weights[l] * loss;
  }
  return out;
}

void MorpheusBatch::check(const ModelConfig& config) const {
  TORCH_CHECK(char_ids.dim() == 2 && char_ids.dtype() == torch::kLong &&
                  char_ids.size(1) <= config.max_word_len,
              "batch.char_ids must be int64 [N,T<=", config.max_word_len, "], got ",
              char_ids.sizes(), " ", char_ids.dtype());
  const int64_t n = char_ids.size(0), t = char_ids.size(1);
  TORCH_CHECK(case_flags.sizes() == char_ids.sizes() && case_flags.dtype() == torch::kLong,
              "batch.case_flags must be int64 [N,T]");
  TORCH_CHECK(boundary_labels.dim() == 2 && boundary_labels.size(0) == n &&
                  boundary_labels.size(1) == t - 1,
              "batch.boundary_labels must be [N,T-1] = [", n, ",", t - 1, "], got ",
              boundary_labels.sizes());
  TORCH_CHECK(confidence.dim() == 1 && confidence.size(0) == n, "batch.confidence must be [N]");
  TORCH_CHECK(word_ids.dim() == 1 && word_ids.size(0) == n && word_ids.dtype() == torch::kLong,
              "batch.word_ids must be int64 [N]");
  TORCH_CHECK(root_ids.dim() == 1 && root_ids.size(0) == n && root_ids.dtype() == torch::kLong,
              "batch.root_ids must be int64 [N]");
  TORCH_CHECK(suffix_ids.defined() && suffix_ids.dim() == 1 && suffix_ids.size(0) == n &&
                  suffix_ids.dtype() == torch::kLong,
              "batch.suffix_ids must be int64 [N]");
  TORCH_CHECK(word_index.dim() == 2 && word_index.dtype() == torch::kLong &&
                  word_index.size(1) <= config.max_sent_len,
              "batch.word_index must be int64 [B,W<=", config.max_sent_len, "], got ",
              word_index.sizes());
}

MorpheusBatch MorpheusBatch::to(const torch::Device& device, bool non_blocking) const {
  auto move = [&](const torch::Tensor& t) { return t.to(device, non_blocking); };
  return MorpheusBatch{move(char_ids), move(case_flags), move(boundary_labels), move(confidence),
                       move(word_ids), move(root_ids),   move(suffix_ids),      move(word_index)};
}

MorpheusBatch MorpheusBatch::pin_memory() const {
  return MorpheusBatch{char_ids.pin_memory(),        case_flags.pin_memory(),
                       boundary_labels.pin_memory(), confidence.pin_memory(),
                       word_ids.pin_memory(),        root_ids.pin_memory(),
                       suffix_ids.pin_memory(),      word_index.pin_memory()};
}

LossWeights LossWeights::for_epoch(const ModelConfig& config, int64_t epoch) {
  LossWeights w;
  w.aux = aux_weight_for_epoch(config, epoch);
  w.sgns = config.sgns_weight;
  w.ctr = config.ctr_weight;
  w.mlm = config.use_mlm ? config.mlm_weight : 0.0;
  w.sfx = config.sfx_weight;
  return w;
}

torch::Tensor suffix_infonce(MorpheusImpl& model, const MorpheusOutput& fwd,
                             const torch::Tensor& suffix_ids, double temperature) {
  const torch::Tensor inputs =
      root_inflection_inputs(fwd.char_hidden, fwd.membership, fwd.mask, fwd.segment_embeddings,
                             fwd.segment_mask);  // [N,3,D]
  const int64_t n = inputs.size(0), d = inputs.size(2);
  const torch::Tensor suffixes = inputs.narrow(1, 1, 2).reshape({2 * n, d});
  const torch::Tensor fused = model.segment_encoder->fuse(suffixes).reshape({n, 2, d});
  // Each block at unit length, as in the exported vector (the weight does not change a cosine).
  const torch::Tensor inflection =
      torch::nn::functional::normalize(fused, torch::nn::functional::NormalizeFuncOptions().dim(2))
          .reshape({n, 2 * d});
  return root_family_infonce(inflection, suffix_ids, temperature);
}

MorpheusWithHeadsImpl::MorpheusWithHeadsImpl(const ModelConfig& config_) : config(config_) {
  reset();
}

void MorpheusWithHeadsImpl::reset() {
  model = register_module("model", Morpheus(config));
  sgns = register_module("sgns", SgnsHead(make_sgns_options(config)));
  if (config.use_mlm) mlm_head = register_module("mlm_head", MlmHead(make_mlm_options(config)));
}

LossOutput MorpheusWithHeadsImpl::compute_losses(const MorpheusBatch& batch,
                                                 const LossWeights& weights) {
  batch.check(config);
  MorpheusOutput fwd = model->forward(batch.char_ids, batch.case_flags, /*hard=*/false);
  LossOutput out;
  torch::Tensor zero = torch::zeros({}, fwd.word_embeddings.options());
  out.boundary_logits = fwd.boundary_logits;
  out.gap_mask = gap_mask(fwd.mask);
  out.total = zero;
  out.aux = out.sgns = out.ctr = out.mlm = out.sfx = zero;
  if (weights.aux > 0) {
    AuxLossOutput aux =
        aux_boundary_loss(fwd.layer_logits, batch.boundary_labels, batch.confidence, out.gap_mask,
                          config.depth_weights, config.pos_weight, config.count_loss_w);
    out.aux = aux.total;
    out.aux_layers = aux.per_layer;
    out.total = out.total + weights.aux * out.aux;
  }
  if (weights.sgns > 0) {
    out.sgns = sgns(fwd.word_embeddings, batch.word_ids, batch.word_index);
    out.total = out.total + weights.sgns * out.sgns;
  }
  if (weights.ctr > 0) {
    out.ctr = root_family_infonce(fwd.word_embeddings, batch.root_ids, config.ctr_temperature);
    out.total = out.total + weights.ctr * out.ctr;
  }
  if (weights.sfx > 0) {
    out.sfx = suffix_infonce(*model, fwd, batch.suffix_ids, config.ctr_temperature);
    out.total = out.total + weights.sfx * out.sfx;
  }
  if (weights.mlm > 0 && mlm_head) {
    out.mlm = mlm_head(fwd.word_embeddings, batch.char_ids, batch.word_index).loss;
    out.total = out.total + weights.mlm * out.mlm;
  }
  return out;
}

}  // namespace morpheus::model
