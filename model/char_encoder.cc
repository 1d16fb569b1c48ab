// SPDX-License-Identifier: MIT
// CharEncoder and its residual multi-scale CNN.
#include "model/char_encoder.h"

#include <torch/torch.h>

#include "config/model_config.h"

namespace morpheus::model {

MultiScaleCnnImpl::MultiScaleCnnImpl(const MultiScaleCnnOptions& options_) : options(options_) {
  reset();
}

void MultiScaleCnnImpl::reset() {
  TORCH_CHECK(static_cast<int64_t>(options.kernels().size()) * options.channels() == options.dim(),
              "CNN kernels × channels must equal dim ", options.dim());
  convs = register_module("convs", torch::nn::ModuleList());
  for (int64_t k : options.kernels()) {
    convs->push_back(torch::nn::Sequential(
        torch::nn::Conv1d(
            torch::nn::Conv1dOptions(options.dim(), options.channels(), k).padding(k / 2)),
        torch::nn::GELU()));
  }
  norm =
      register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.dim()})));
}

torch::Tensor MultiScaleCnnImpl::forward(const torch::Tensor& x, const torch::Tensor& mask) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == options.dim(), "CNN input must be [B,T,", options.dim(),
              "], got ", x.sizes());
  const int64_t t = x.size(1);
  torch::Tensor maskf = mask.unsqueeze(-1).to(x.dtype());
  torch::Tensor xt = (x * maskf).transpose(1, 2);  // [B,D,T], padding zeroed
  std::vector<torch::Tensor> outs;
  outs.reserve(convs->size());
  for (const auto& conv : *convs) {
    outs.push_back(conv->as<torch::nn::Sequential>()->forward(xt).slice(2, 0, t));
  }
  torch::Tensor y = torch::cat(outs, 1).transpose(1, 2);  // [B,T,D]
  return norm(x + y) * maskf;
}

CharEncoderOptions make_encoder_options(const ModelConfig& c) {
  return CharEncoderOptions()
      .vocab_size(c.char_vocab_size)
      .char_embed_dim(c.char_embed_dim)
      .case_embed_dim(c.case_embed_dim)
      .dim(c.char_dim)
      .num_layers(c.n_layers_encoder)
      .num_heads(c.num_heads)
      .ffn_mult(c.ffn_mult)
      .max_len(c.max_word_len)
      .kernels(c.cnn_kernels)
      .cnn_channels(c.cnn_channels)
      .dropout(c.dropout)
      .rope_base(c.rope_base);
}

CharEncoderImpl::CharEncoderImpl(const CharEncoderOptions& options_) : options(options_) {
  reset();
}

void CharEncoderImpl::reset() {
  const int64_t d = options.dim();
  char_embedding = register_module(
      "char_embedding", torch::nn::Embedding(torch::nn::EmbeddingOptions(options.vocab_size(),
                                                                         options.char_embed_dim())
                                                 .padding_idx(0)));
  case_embedding =
      register_module("case_embedding", torch::nn::Embedding(2, options.case_embed_dim()));
  embed_proj =
      register_module("embed_proj", Linear(options.char_embed_dim() + options.case_embed_dim(), d));
  cnn = register_module(
      "cnn", MultiScaleCnn(MultiScaleCnnOptions(d, options.kernels(), options.cnn_channels())
                               .dropout(options.dropout())));
  attn_layers = register_module("attn_layers", torch::nn::ModuleList());
  ffns = register_module("ffns", torch::nn::ModuleList());
  for (int64_t l = 0; l < options.num_layers(); ++l) {
    attn_layers->push_back(
        RopeSelfAttention(RopeSelfAttentionOptions(d, options.num_heads(), options.max_len())
                              .dropout(options.dropout())
                              .rope_base(options.rope_base())));
    ffns->push_back(make_ffn(d, options.ffn_mult() * d, options.dropout()));
  }
  final_norm =
      register_module("final_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
}

torch::Tensor CharEncoderImpl::forward(const torch::Tensor& char_ids,
                                       const torch::Tensor& case_flags, const torch::Tensor& mask) {
  TORCH_CHECK(char_ids.dim() == 2 && char_ids.dtype() == torch::kLong,
              "char_ids must be int64 [B,T], got ", char_ids.sizes(), " ", char_ids.dtype());
  TORCH_CHECK(case_flags.sizes() == char_ids.sizes() && case_flags.dtype() == torch::kLong,
              "case_flags must be int64 ", char_ids.sizes(), ", got ", case_flags.sizes());
  TORCH_CHECK(mask.sizes() == char_ids.sizes() && mask.dtype() == torch::kBool,
              "mask must be bool ", char_ids.sizes(), ", got ", mask.sizes(), " ", mask.dtype());
  TORCH_CHECK(char_ids.size(1) <= options.max_len(), "words have ", char_ids.size(1),
              " positions, max_len is ", options.max_len());
  torch::Tensor e = torch::cat({char_embedding(char_ids), case_embedding(case_flags)}, -1);
  torch::Tensor maskf = mask.unsqueeze(-1).to(e.dtype());
  torch::Tensor h = embed_proj(e) * maskf;
  h = cnn(h, mask);
  const ValidRows rows(mask);
  for (size_t l = 0; l < attn_layers->size(); ++l) {
    h = attn_layers[l]->as<RopeSelfAttention>()->forward(h, mask, rows);
    torch::nn::SequentialImpl& ffn = *ffns[l]->as<torch::nn::Sequential>();
    h = (h + rows.apply(h, [&](const torch::Tensor& r) { return ffn.forward(r); })) * maskf;
  }
  return final_norm(h) * maskf;
}

}  // namespace morpheus::model
