// SPDX-License-Identifier: MIT
#include "lm/gpt.h"

#include <torch/nn/functional/activation.h>
#include <torch/nn/init.h>

#include <cmath>

#include "lm/tied_head.h"
#include "model/attention.h"

namespace morpheus::lm {

GptBlockImpl::GptBlockImpl(const GptOptions& options_) : options(options_) { reset(); }

void GptBlockImpl::reset() {
  const int64_t d = options.width;
  TORCH_CHECK(d > 0 && options.heads > 0 && d % options.heads == 0,
              "GptBlock: width must be a positive multiple of heads, got ", d, " and ",
              options.heads);
  ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  qkv = register_module("qkv", torch::nn::Linear(d, 3 * d));
  proj = register_module("proj", torch::nn::Linear(d, d));
  ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  fc1 = register_module("fc1", torch::nn::Linear(d, 4 * d));
  fc2 = register_module("fc2", torch::nn::Linear(4 * d, d));
}

torch::Tensor GptBlockImpl::residual_dropout(const torch::Tensor& x) {
  return options.dropout > 0 ? torch::dropout(x, options.dropout, is_training()) : x;
}

torch::Tensor GptBlockImpl::mlp(const torch::Tensor& x) {
  return residual_dropout(fc2(torch::gelu(fc1(ln2(x)))));
}

torch::Tensor GptBlockImpl::forward(const torch::Tensor& x) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == options.width, "GptBlock: x must be [B,T,",
              options.width, "], got ", x.sizes());
  const int64_t b = x.size(0), t = x.size(1), h = options.heads, d = options.width;
  // [B,T,3D] -> 3 × [B,H,T,Dh]; unbind keeps one backward for the three slices.
  std::vector<torch::Tensor> parts =
      qkv(ln1(x)).view({b, t, 3, h, d / h}).permute({2, 0, 3, 1, 4}).unbind(0);
  const torch::Tensor att = model::scaled_dot_attention(parts[0], parts[1], parts[2], {},
                                                        /*causal=*/true, 0.0, false);
  torch::Tensor y = x + residual_dropout(proj(att.transpose(1, 2).reshape({b, t, d})));
  return y + mlp(y);
}

torch::Tensor GptBlockImpl::forward_step(const torch::Tensor& x, torch::Tensor& k_cache,
                                         torch::Tensor& v_cache, int64_t position) {
  const int64_t b = x.size(0), h = options.heads, d = options.width;
  TORCH_CHECK(x.dim() == 3 && x.size(1) == 1 && x.size(2) == d, "forward_step: x must be [B,1,", d,
              "], got ", x.sizes());
  TORCH_CHECK(position < k_cache.size(2), "forward_step: position ", position,
              " is past the cache's ", k_cache.size(2));
  std::vector<torch::Tensor> parts =
      qkv(ln1(x)).view({b, 1, 3, h, d / h}).permute({2, 0, 3, 1, 4}).unbind(0);
  k_cache.narrow(2, position, 1).copy_(parts[1]);
  v_cache.narrow(2, position, 1).copy_(parts[2]);
  const torch::Tensor att = model::scaled_dot_attention(
      parts[0], k_cache.narrow(2, 0, position + 1), v_cache.narrow(2, 0, position + 1), {},
      /*causal=*/false, 0.0, false);
  torch::Tensor y = x + proj(att.transpose(1, 2).reshape({b, 1, d}));
  return y + mlp(y);
}

GptImpl::GptImpl(const GptOptions& options_) : options(options_) { reset(); }

void GptImpl::reset() {
  TORCH_CHECK(options.vocab > 0 && options.context > 0 && options.layers > 0,
              "Gpt: vocab, context and layers must be positive");
  tokens = register_module("tokens", torch::nn::Embedding(options.vocab, options.width));
  positions = register_parameter("positions", torch::zeros({options.context, options.width}));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t l = 0; l < options.layers; ++l) blocks->push_back(GptBlock(options));
  ln_f =
      register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.width})));
  init_gpt_weights(*this);
}

torch::Tensor GptImpl::hidden(const torch::Tensor& ids) {
  TORCH_CHECK(ids.dim() == 2 && ids.scalar_type() == torch::kLong,
              "Gpt: ids must be int64 [B,T], got ", ids.sizes(), " ", ids.dtype());
  const int64_t t = ids.size(1);
  TORCH_CHECK(t >= 1 && t <= options.context, "Gpt: ", t, " positions, context is ",
              options.context);
  torch::Tensor x = tokens(ids) + positions.narrow(0, 0, t);
  if (options.dropout > 0) x = torch::dropout(x, options.dropout, is_training());
  for (const auto& block : *blocks) x = block->as<GptBlock>()->forward(x);
  return ln_f(x);
}

torch::Tensor GptImpl::forward(const torch::Tensor& ids) {
  return torch::matmul(hidden(ids), tokens->weight.t());
}

torch::Tensor GptImpl::loss(const torch::Tensor& ids, const torch::Tensor& targets) {
  TORCH_CHECK(targets.sizes() == ids.sizes(), "Gpt: targets must be shaped as ids ", ids.sizes(),
              ", got ", targets.sizes());
  return tied_head_cross_entropy(hidden(ids).flatten(0, 1), tokens->weight, targets.reshape({-1}));
}

double GptImpl::nll(const torch::Tensor& ids, const torch::Tensor& targets) {
  TORCH_CHECK(targets.sizes() == ids.sizes(), "Gpt: targets must be shaped as ids ", ids.sizes(),
              ", got ", targets.sizes());
  torch::NoGradGuard no_grad;
  return tied_head_nll(hidden(ids).flatten(0, 1), tokens->weight, targets.reshape({-1}));
}

torch::Tensor GptImpl::token_nll(const torch::Tensor& ids, const torch::Tensor& targets) {
  TORCH_CHECK(targets.sizes() == ids.sizes(), "Gpt: targets must be shaped as ids ", ids.sizes(),
              ", got ", targets.sizes());
  torch::NoGradGuard no_grad;
  return tied_head_token_nll(hidden(ids).flatten(0, 1), tokens->weight, targets.reshape({-1}))
      .view(ids.sizes());
}

KvCache GptImpl::make_cache(int64_t batch) const {
  KvCache cache;
  const int64_t h = options.heads, dh = options.width / options.heads;
  for (int64_t l = 0; l < options.layers; ++l) {
    cache.k.push_back(torch::zeros({batch, h, options.context, dh}, positions.options()));
    cache.v.push_back(torch::zeros({batch, h, options.context, dh}, positions.options()));
  }
  return cache;
}

torch::Tensor GptImpl::decode_step(const torch::Tensor& ids, KvCache& cache) {
  TORCH_CHECK(ids.dim() == 1 && ids.scalar_type() == torch::kLong,
              "decode_step: ids must be int64 [B], got ", ids.sizes(), " ", ids.dtype());
  TORCH_CHECK(cache.length < options.context, "decode_step: the context of ", options.context,
              " positions is full");
  TORCH_CHECK(
      static_cast<int64_t>(cache.k.size()) == options.layers && cache.k[0].size(0) == ids.size(0),
      "decode_step: the cache was made for another model or batch");
  const int64_t pos = cache.length;
  torch::Tensor x = (tokens(ids) + positions[pos]).unsqueeze(1);  // [B,1,D]
  for (int64_t l = 0; l < options.layers; ++l) {
    x = blocks[static_cast<size_t>(l)]->as<GptBlock>()->forward_step(
        x, cache.k[static_cast<size_t>(l)], cache.v[static_cast<size_t>(l)], pos);
  }
  ++cache.length;
  return torch::matmul(ln_f(x), tokens->weight.t()).squeeze(1);
}

void init_gpt_weights(GptImpl& model) {
  torch::NoGradGuard no_grad;
  const double residual_std = 0.02 / std::sqrt(2.0 * static_cast<double>(model.options.layers));
  torch::nn::init::normal_(model.tokens->weight, 0.0, 0.02);
  torch::nn::init::normal_(model.positions, 0.0, 0.02);
  for (const auto& module : *model.blocks) {
    auto* block = module->as<GptBlockImpl>();
    for (torch::nn::Linear* linear : {&block->qkv, &block->fc1}) {
      torch::nn::init::normal_((*linear)->weight, 0.0, 0.02);
      torch::nn::init::zeros_((*linear)->bias);
    }
    for (torch::nn::Linear* linear : {&block->proj, &block->fc2}) {
      torch::nn::init::normal_((*linear)->weight, 0.0, residual_std);
      torch::nn::init::zeros_((*linear)->bias);
    }
  }
}

}  // namespace morpheus::lm
