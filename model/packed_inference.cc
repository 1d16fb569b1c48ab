// SPDX-License-Identifier: MIT
// Packed forward-only boundary logits (see packed_inference.h).
#include "model/packed_inference.h"

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <vector>

namespace morpheus::model {
namespace {

std::atomic<bool> g_packed_inference{true};

// x [R,D] -> x + ffn(x) for make_ffn's pre-norm Sequential (dropout is the identity in eval).
torch::Tensor ffn_residual(torch::nn::SequentialImpl& ffn, const torch::Tensor& x) {
  return x + ffn.forward(x);
}

// One post-norm RoPE attention layer on packed rows: LayerNorm(x + proj(attention(qkv(x)))).
torch::Tensor attention_layer(Linear& qkv, Linear& proj, torch::nn::LayerNorm& norm,
                              const Rope& rope, int64_t num_heads, const torch::Tensor& x,
                              const PackedWords& words) {
  const torch::Tensor heads = packed_rope_attention(qkv(x), words.offsets, *rope, num_heads);
  return norm(x + proj(heads));
}

// embed_proj(char ⊕ case 0) of every character: [V,D], so a lookup replaces embedding, concat and
// projection at every position.
torch::Tensor projected_chars(CharEncoderImpl& enc) {
  const torch::Tensor chars = enc.char_embedding->weight;
  const torch::Tensor case0 = enc.case_embedding->weight[0].expand({chars.size(0), -1});
  return enc.embed_proj(torch::cat({chars, case0}, 1));
}

// MultiScaleCnn as one convolution: conv k (padding ⌊k/2⌋, first T outputs) reads positions
// t − ⌊k/2⌋ … t − ⌊k/2⌋ + k − 1, so every conv fits one window t − P … with P = max ⌊k/2⌋; the
// kernels sit side by side at their offsets in that window, zeros elsewhere. x [B,T,D] zero at
// padding -> [B,T,D] zero at padding, as cnn.forward.
torch::Tensor fused_cnn(MultiScaleCnnImpl& cnn, const torch::Tensor& x,
                        const torch::Tensor& maskf) {
  const std::vector<int64_t>& kernels = cnn.options.kernels();
  int64_t pad = 0, window = 0;
  for (int64_t k : kernels) pad = std::max(pad, k / 2);
  for (int64_t k : kernels) window = std::max(window, pad - k / 2 + k);
  const int64_t channels = cnn.options.channels(), t = x.size(1);
  torch::Tensor weight = torch::zeros(
      {channels * static_cast<int64_t>(kernels.size()), x.size(2), window}, x.options());
  std::vector<torch::Tensor> biases;
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto* conv = cnn.convs[i]->as<torch::nn::Sequential>()->ptr(0)->as<torch::nn::Conv1d>();
    const int64_t start = pad - kernels[i] / 2, first = static_cast<int64_t>(i) * channels;
    weight.slice(0, first, first + channels)
        .slice(2, start, start + kernels[i])
        .copy_(conv->weight);
    biases.push_back(conv->bias);
  }
  const torch::Tensor y =
      torch::gelu(
          torch::conv1d(x.transpose(1, 2), weight, torch::cat(biases), 1, pad).slice(2, 0, t))
          .transpose(1, 2);
  return cnn.norm(x + y) * maskf;
}

// CharEncoder on packed rows: [R,D] after its final LayerNorm.
torch::Tensor encode_packed(CharEncoderImpl& enc, const torch::Tensor& ids,
                            const torch::Tensor& mask, const PackedWords& words) {
  const torch::Tensor maskf = mask.unsqueeze(-1).to(torch::kFloat);
  torch::Tensor h = torch::embedding(projected_chars(enc), ids) * maskf;
  h = fused_cnn(*enc.cnn, h, maskf);
  torch::Tensor x = h.reshape({-1, h.size(2)}).index_select(0, words.rows);
  for (size_t l = 0; l < enc.attn_layers->size(); ++l) {
    auto* layer = enc.attn_layers[l]->as<RopeSelfAttention>();
    x = attention_layer(layer->qkv, layer->proj, layer->norm, layer->rope,
                        layer->options.num_heads(), x, words);
    x = ffn_residual(*enc.ffns[l]->as<torch::nn::Sequential>(), x);
  }
  return enc.final_norm(x);
}

// BoundaryDetector on packed rows -> the final layer's logits [B,T-1], 0 at invalid gaps.
torch::Tensor detect_packed(BoundaryDetectorImpl& det, torch::Tensor x, const PackedWords& words) {
  const size_t last = det.layers->size() - 1;
  for (size_t l = 0; l <= last; ++l) {
    auto* layer = det.layers[l]->as<DetectorLayer>();
    x = attention_layer(layer->qkv, layer->proj, layer->norm, layer->rope,
                        layer->options.num_heads(), x, words);
    x = ffn_residual(*det.ffns[l]->as<torch::nn::Sequential>(), x);
  }
  auto* layer = det.layers[last]->as<DetectorLayer>();
  const torch::Tensor pair =
      torch::cat({x.index_select(0, words.gaps), x.index_select(0, words.gaps + 1)}, 1);
  const torch::Tensor scores = layer->boundary_scorer->forward(pair).squeeze(1);
  return torch::zeros({words.batch * (words.time - 1)}, scores.options())
      .index_copy(0, words.gap_slots, scores)
      .view({words.batch, words.time - 1});
}

}  // namespace

std::optional<PackedWords> PackedWords::from_prefix_mask(const torch::Tensor& mask) {
  TORCH_CHECK(mask.dim() == 2 && mask.dtype() == torch::kBool && mask.size(1) >= 2,
              "mask must be bool [B,T] with T >= 2, got ", mask.sizes(), " ", mask.dtype());
  const torch::Tensor m = mask.to(torch::kCPU).contiguous();
  PackedWords words;
  words.batch = m.size(0);
  words.time = m.size(1);
  words.offsets.assign(1, 0);
  std::vector<int64_t> rows, gaps, slots;
  const bool* p = m.data_ptr<bool>();
  for (int64_t b = 0; b < words.batch; ++b) {
    int64_t len = 0;
    while (len < words.time && p[b * words.time + len]) ++len;
    for (int64_t i = len; i < words.time; ++i) {
      if (p[b * words.time + i]) return std::nullopt;
    }
    const int64_t first = words.offsets.back();
    for (int64_t i = 0; i < len; ++i) rows.push_back(b * words.time + i);
    for (int64_t i = 0; i + 1 < len; ++i) {
      gaps.push_back(first + i);
      slots.push_back(b * (words.time - 1) + i);
    }
    words.offsets.push_back(first + len);
  }
  auto to_tensor = [](const std::vector<int64_t>& v) { return torch::tensor(v, torch::kLong); };
  words.rows = to_tensor(rows);
  words.gaps = to_tensor(gaps);
  words.gap_slots = to_tensor(slots);
  return words;
}

bool packed_inference_applies(const torch::Tensor& mask) {
  return mask.device().is_cpu() && !torch::GradMode::is_enabled() && ValidRows::packing_enabled() &&
         g_packed_inference.load();
}

void set_packed_inference_enabled(bool enabled) { g_packed_inference.store(enabled); }

torch::Tensor boundary_logits(Morpheus& model, const torch::Tensor& char_ids,
                              const torch::Tensor& mask) {
  const bool float_model = model->char_encoder->embed_proj->weight.scalar_type() == torch::kFloat;
  if (float_model && packed_inference_applies(mask)) {
    std::optional<PackedWords> words = PackedWords::from_prefix_mask(mask);
    if (words.has_value() && words->offsets.back() > 0) {
      const torch::Tensor x = encode_packed(*model->char_encoder, char_ids, mask, *words);
      return detect_packed(*model->boundary_detector, x, *words);
    }
  }
  const torch::Tensor hidden = model->char_encoder(char_ids, torch::zeros_like(char_ids), mask);
  return model->boundary_detector(hidden, mask).logits;
}

}  // namespace morpheus::model
