// SPDX-License-Identifier: MIT
// Model: weight pointers by state-dict name and the tables derived at load.
#include "engine/model.h"

#include <algorithm>
#include <utility>

namespace morpheus::engine {
namespace {

AttentionWeights attention_weights(const WeightFile& file, const std::string& p) {
  AttentionWeights a;
  a.qkv = file.tensor(p + "qkv.weight").data;
  a.proj = file.tensor(p + "proj.weight").data;
  a.proj_bias = file.tensor(p + "proj.bias").data;
  a.norm = {file.tensor(p + "norm.weight").data, file.tensor(p + "norm.bias").data};
  const TensorView& cos = file.tensor(p + "rope.cos_cache");
  a.cos = cos.data;
  a.sin = file.tensor(p + "rope.sin_cache").data;
  a.rope_len = static_cast<size_t>(cos.shape[0]);
  return a;
}

FfnWeights ffn_weights(const WeightFile& file, const std::string& p) {
  FfnWeights f;
  f.norm = {file.tensor(p + "0.weight").data, file.tensor(p + "0.bias").data};
  f.w1 = file.tensor(p + "1.weight").data;
  f.b1 = file.tensor(p + "1.bias").data;
  f.w2 = file.tensor(p + "4.weight").data;
  f.b2 = file.tensor(p + "4.bias").data;
  return f;
}

}  // namespace

StatusOr<std::shared_ptr<const Model>> Model::load(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<WeightFile> file, WeightFile::open(path));
  return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(file)));
}

Model::Model(std::unique_ptr<WeightFile> file) : file_(std::move(file)) {
  const model::ModelConfig& c = file_->config();
  dim = static_cast<size_t>(c.char_dim);
  heads = static_cast<size_t>(c.num_heads);
  head_dim = static_cast<size_t>(c.head_dim());
  ffn_dim = static_cast<size_t>(c.ffn_dim());
  vocab = static_cast<size_t>(c.char_vocab_size);
  max_segs = static_cast<size_t>(c.max_segs);
  max_positions = static_cast<size_t>(c.max_word_len);
  eps = static_cast<float>(model::ModelConfig::kLayerNormEps);
  bind_weights();
  derive_tables();
}

void Model::bind_weights() {
  const WeightFile& f = *file_;
  const model::ModelConfig& c = f.config();
  const std::string enc = "char_encoder.", det = "boundary_detector.";
  char_embedding = f.tensor(enc + "char_embedding.weight").data;
  case_embedding = f.tensor(enc + "case_embedding.weight").data;
  embed_proj = f.tensor(enc + "embed_proj.weight").data;
  embed_proj_bias = f.tensor(enc + "embed_proj.bias").data;
  for (size_t i = 0; i < c.cnn_kernels.size(); ++i) {
    const std::string conv = enc + "cnn.convs." + std::to_string(i) + ".0.";
    conv_weight.push_back(f.tensor(conv + "weight").data);
    conv_bias.push_back(f.tensor(conv + "bias").data);
  }
  cnn_norm = {f.tensor(enc + "cnn.norm.weight").data, f.tensor(enc + "cnn.norm.bias").data};
  for (int64_t l = 0; l < c.n_layers_encoder; ++l) {
    encoder_attention.push_back(
        attention_weights(f, enc + "attn_layers." + std::to_string(l) + "."));
    encoder_ffn.push_back(ffn_weights(f, enc + "ffns." + std::to_string(l) + "."));
  }
  final_norm = {f.tensor(enc + "final_norm.weight").data, f.tensor(enc + "final_norm.bias").data};
  for (int64_t l = 0; l < c.n_layers_detector; ++l) {
    detector_attention.push_back(attention_weights(f, det + "layers." + std::to_string(l) + "."));
    detector_ffn.push_back(ffn_weights(f, det + "ffns." + std::to_string(l) + "."));
  }
  const std::string last = det + "layers." + std::to_string(c.n_layers_detector - 1) + ".";
  scorer.w0 = f.tensor(last + "boundary_scorer.0.weight").data;
  scorer.b0 = f.tensor(last + "boundary_scorer.0.bias").data;
  scorer.w2 = f.tensor(last + "boundary_scorer.2.weight").data;
  scorer.b2 = f.tensor(last + "boundary_scorer.2.bias").data[0];
  const std::string pool = "segment_encoder.";
  pooling.char_scorer = f.tensor(pool + "char_scorer.weight").data;
  pooling.w0 = f.tensor(pool + "fusion_ffn.0.weight").data;
  pooling.b0 = f.tensor(pool + "fusion_ffn.0.bias").data;
  pooling.w3 = f.tensor(pool + "fusion_ffn.3.weight").data;
  pooling.b3 = f.tensor(pool + "fusion_ffn.3.bias").data;
  pooling.norm = {f.tensor(pool + "norm.weight").data, f.tensor(pool + "norm.bias").data};
}

void Model::derive_tables() {
  const model::ModelConfig& c = config();
  const size_t ec = static_cast<size_t>(c.char_embed_dim),
               ek = static_cast<size_t>(c.case_embed_dim);
  projected.assign(2 * vocab * dim, 0.0f);
  for (size_t flag = 0; flag < 2; ++flag) {
    for (size_t v = 0; v < vocab; ++v) {
      float* out = &projected[(flag * vocab + v) * dim];
      for (size_t o = 0; o < dim; ++o) {
        const float* w = embed_proj + o * (ec + ek);
        float acc = 0;
        for (size_t k = 0; k < ec; ++k) acc += w[k] * char_embedding[v * ec + k];
        for (size_t k = 0; k < ek; ++k) acc += w[ec + k] * case_embedding[flag * ek + k];
        out[o] = acc + embed_proj_bias[o];
      }
    }
  }
  cnn_pad = 0;
  for (int64_t k : c.cnn_kernels) cnn_pad = std::max(cnn_pad, static_cast<size_t>(k / 2));
  cnn_window = 0;
  for (int64_t k : c.cnn_kernels) {
    cnn_window =
        std::max(cnn_window, cnn_pad - static_cast<size_t>(k / 2) + static_cast<size_t>(k));
  }
  const size_t channels = static_cast<size_t>(c.cnn_channels), row = cnn_window * dim;
  cnn_weight.assign(dim * row, 0.0f);
  cnn_bias.assign(dim, 0.0f);
  for (size_t i = 0; i < c.cnn_kernels.size(); ++i) {
    const size_t k = static_cast<size_t>(c.cnn_kernels[i]), start = cnn_pad - k / 2;
    for (size_t ch = 0; ch < channels; ++ch) {
      const size_t o = i * channels + ch;
      cnn_bias[o] = conv_bias[i][ch];
      for (size_t d = 0; d < dim; ++d) {
        for (size_t j = 0; j < k; ++j) {
          cnn_weight[o * row + (start + j) * dim + d] = conv_weight[i][(ch * dim + d) * k + j];
        }
      }
    }
  }
}

}  // namespace morpheus::engine
