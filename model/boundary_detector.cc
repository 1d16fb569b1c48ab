// SPDX-License-Identifier: MIT
// BoundaryDetector with per-layer adjacent-pair gap scorers.
#include "model/boundary_detector.h"

#include <torch/torch.h>

#include "config/model_config.h"

namespace morpheus::model {

torch::Tensor gap_mask(const torch::Tensor& mask) {
  TORCH_CHECK(mask.dim() == 2 && mask.dtype() == torch::kBool && mask.size(1) >= 2,
              "mask must be bool [B,T] with T >= 2, got ", mask.sizes(), " ", mask.dtype());
  const int64_t t = mask.size(1);
  return mask.slice(1, 0, t - 1).logical_and(mask.slice(1, 1, t));
}

DetectorLayerImpl::DetectorLayerImpl(const DetectorLayerOptions& options_) : options(options_) {
  reset();
}

void DetectorLayerImpl::reset() {
  const int64_t d = options.dim();
  qkv = register_module("qkv", Linear(torch::nn::LinearOptions(d, 3 * d).bias(false)));
  proj = register_module("proj", Linear(d, d));
  norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  rope = register_module(
      "rope",
      Rope(RopeOptions(d / options.num_heads(), options.max_len()).base(options.rope_base())));
  boundary_scorer = register_module(
      "boundary_scorer", torch::nn::Sequential(Linear(2 * d, d), torch::nn::GELU(), Linear(d, 1)));
  drop = register_module("drop", torch::nn::Dropout(options.dropout()));
}

torch::Tensor DetectorLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                         const ValidRows& rows) {
  torch::Tensor a = rope_attention_block(x, mask, rows, qkv, proj, rope, options.num_heads(),
                                         options.dropout(), is_training());
  return norm(x + drop(a)) * mask.unsqueeze(-1).to(x.dtype());
}

torch::Tensor DetectorLayerImpl::score(const torch::Tensor& h, const ValidRows& gaps) {
  const int64_t t = h.size(1);
  torch::Tensor pair = torch::cat({h.slice(1, 0, t - 1), h.slice(1, 1, t)}, -1);  // [B,T-1,2D]
  return gaps.apply(pair, [&](const torch::Tensor& r) { return boundary_scorer->forward(r); })
      .squeeze(-1);
}

BoundaryDetectorOptions make_detector_options(const ModelConfig& c) {
  return BoundaryDetectorOptions()
      .dim(c.char_dim)
      .num_layers(c.n_layers_detector)
      .num_heads(c.num_heads)
      .ffn_mult(c.ffn_mult)
      .max_len(2 * c.max_word_len)
      .dropout(c.dropout)
      .rope_base(c.rope_base)
      .pos_weight(c.pos_weight)
      .depth_weights(c.depth_weights);
}

BoundaryDetectorImpl::BoundaryDetectorImpl(const BoundaryDetectorOptions& options_)
    : options(options_) {
  reset();
}

void BoundaryDetectorImpl::reset() {
  const int64_t d = options.dim();
  const int64_t m = options.num_layers();
  std::vector<double> dw = options.depth_weights();
  if (dw.empty()) {
    for (int64_t l = 0; l < m; ++l) dw.push_back(0.85 + 0.15 * double(l + 1) / double(m));
  }
  TORCH_CHECK(static_cast<int64_t>(dw.size()) == m, "depth_weights has ", dw.size(),
              " entries for ", m, " layers");
  depth_weights =
      register_buffer("depth_weights", torch::tensor(dw, torch::kDouble).to(torch::kFloat));
  pos_weight = register_buffer("pos_weight", torch::full({1}, options.pos_weight()));
  layers = register_module("layers", torch::nn::ModuleList());
  ffns = register_module("ffns", torch::nn::ModuleList());
  for (int64_t l = 0; l < m; ++l) {
    layers->push_back(DetectorLayer(DetectorLayerOptions(d, options.num_heads(), options.max_len())
                                        .dropout(options.dropout())
                                        .rope_base(options.rope_base())));
    ffns->push_back(make_ffn(d, options.ffn_mult() * d, options.dropout()));
  }
}

DetectorOutput BoundaryDetectorImpl::forward(const torch::Tensor& hidden,
                                             const torch::Tensor& mask) {
  TORCH_CHECK(hidden.dim() == 3 && hidden.size(2) == options.dim(), "hidden must be [B,T,",
              options.dim(), "], got ", hidden.sizes());
  TORCH_CHECK(mask.dtype() == torch::kBool && mask.dim() == 2 && mask.size(0) == hidden.size(0) &&
                  mask.size(1) == hidden.size(1),
              "mask must be bool [B,T] matching hidden, got ", mask.sizes());
  DetectorOutput out;
  torch::Tensor maskf = mask.unsqueeze(-1).to(hidden.dtype());
  torch::Tensor h = hidden;
  const ValidRows rows(mask), gaps(gap_mask(mask));
  for (size_t l = 0; l < layers->size(); ++l) {
    auto* layer = layers[l]->as<DetectorLayer>();
    h = layer->forward(h, mask, rows);
    torch::nn::SequentialImpl& ffn = *ffns[l]->as<torch::nn::Sequential>();
    h = (h + rows.apply(h, [&](const torch::Tensor& r) { return ffn.forward(r); })) * maskf;
    out.layer_logits.push_back(layer->score(h, gaps));
  }
  out.logits = out.layer_logits.back();
  return out;
}

}  // namespace morpheus::model
