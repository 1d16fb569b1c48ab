// SPDX-License-Identifier: MIT
// Gpt: a pre-norm decoder-only transformer with learned positions and a tied output head (the
// logits are the final LayerNorm's output times the token embedding table).
//   forward(ids [B,T] int64 in [0, vocab), T <= context) -> logits [B,T,vocab] float;
//   loss(ids, targets [B,T]) -> mean cross-entropy, nll(ids, targets) -> Σ −ln p as a double,
//   token_nll(ids, targets) -> −ln p per position [B,T], all through the fused tied head
//   (lm/tied_head.h) without a [B,T,vocab] tensor.
//   Block: x += proj(attention(split(qkv(LN1(x))))); x += fc2(gelu(fc1(LN2(x)))), causal
//     attention by model::scaled_dot_attention (at::scaled_dot_product_attention(is_causal) on
//     LibTorch >= 2, written out on 1.x),
//     qkv one fused [D,3D] projection, FFN width 4·D, dropout on the embedding sum and on both
//     residual branches in training mode.
//   decode_step(ids [B] int64, KvCache&) -> logits [B,vocab]: the next position of B sequences,
//     keys and values of earlier positions read from the cache (generation).
// Parameters: vocab·D + context·D + L·(12·D² + 13·D) + 2·D (the reference formula's
// vocab·D + 12·L·D² + context·D plus biases and LayerNorms).
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace morpheus::lm {

struct GptOptions {
  int64_t vocab = 0;    // embedding rows: the tokenizer's ids plus the end-of-line id
  int64_t width = 0;    // D; a multiple of heads
  int64_t layers = 1;   // L
  int64_t heads = 1;    // H; Dh = D/H
  int64_t context = 0;  // T at most (learned positions)
  double dropout = 0.0;
};

// Keys and values of the positions decoded so far: k[l], v[l] [B,H,context,Dh] per layer,
// positions [0, length) filled.
struct KvCache {
  std::vector<torch::Tensor> k, v;
  int64_t length = 0;
};

class GptBlockImpl : public torch::nn::Cloneable<GptBlockImpl> {
 public:
  explicit GptBlockImpl(const GptOptions& options);
  void reset() override;
  // x [B,T,D] -> [B,T,D].
  torch::Tensor forward(const torch::Tensor& x);
  // x [B,1,D] at position cache.length; writes this layer's key/value there. -> [B,1,D].
  torch::Tensor forward_step(const torch::Tensor& x, torch::Tensor& k_cache, torch::Tensor& v_cache,
                             int64_t position);

  GptOptions options;
  torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  torch::nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};

 private:
  torch::Tensor residual_dropout(const torch::Tensor& x);  // x itself when dropout is 0
  torch::Tensor mlp(const torch::Tensor& x);
};
TORCH_MODULE(GptBlock);

class GptImpl : public torch::nn::Cloneable<GptImpl> {
 public:
  explicit GptImpl(const GptOptions& options);
  void reset() override;
  // ids [B,T] int64 -> logits [B,T,vocab].
  torch::Tensor forward(const torch::Tensor& ids);
  // ids [B,T] -> the final LayerNorm's output [B,T,D] (the logits are hidden · tokens.weightᵀ).
  torch::Tensor hidden(const torch::Tensor& ids);
  // Mean cross-entropy of the next-token predictions for ids [B,T] against targets [B,T],
  // through the fused tied head (lm/tied_head.h): no [B·T, vocab] tensor is formed.
  torch::Tensor loss(const torch::Tensor& ids, const torch::Tensor& targets);
  // Σ −ln p(target) over every position, as a double; no gradient.
  double nll(const torch::Tensor& ids, const torch::Tensor& targets);
  // −ln p(target) of each position, [B,T] float on the model's device; no gradient.
  torch::Tensor token_nll(const torch::Tensor& ids, const torch::Tensor& targets);
  // An empty cache for `batch` sequences on the model's device.
  KvCache make_cache(int64_t batch) const;
  // ids [B] int64 at position cache.length -> logits [B,vocab]; advances cache.length.
  torch::Tensor decode_step(const torch::Tensor& ids, KvCache& cache);
  GptOptions options;
  torch::nn::Embedding tokens{nullptr};
  torch::Tensor positions;  // [context, D]
  torch::nn::ModuleList blocks{nullptr};
  torch::nn::LayerNorm ln_f{nullptr};
};
TORCH_MODULE(Gpt);

// GPT-2 initialisation: weights N(0, 0.02), residual output projections N(0, 0.02/√(2L)),
// biases 0, LayerNorm gains 1. Uses the default CPU generator (seed it first).
void init_gpt_weights(GptImpl& model);

}  // namespace morpheus::lm
