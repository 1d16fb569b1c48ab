// SPDX-License-Identifier: MIT
// Training heads over word embeddings (sentence layout via word_index [B,W] -> packed word, −1 =
// empty slot; see model/README.md):
//   SgnsHead: skip-gram with negative sampling against a context table [V,D]; all ±window offsets
//     at once, unigram^0.75 negatives drawn in one multinomial call, no host synchronisation.
//   root_family_infonce: SupCon-style InfoNCE over the packed words, positives = same root id ≠ 0.
//   MlmHead: pre-LN context transformer over the sentence (masked slots -> learned mask vector),
//     then a causal character decoder cross-attending to the masked slot's context vector.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include "model/attention.h"
#include "model/linear.h"

namespace morpheus::model {

struct ModelConfig;

// Sentence layout of packed rows: rows [N,D], word_index [B,W] int64 (−1 = empty)
// -> [B,W,D] with zeros at empty slots.
torch::Tensor to_sentence_layout(const torch::Tensor& rows, const torch::Tensor& word_index);

struct SgnsHeadOptions {
  TORCH_ARG(int64_t, vocab_size) = 120000;  // context table rows, id 0 = UNK
  TORCH_ARG(int64_t, dim) = 320;
  TORCH_ARG(int64_t, n_negatives) = 16;
  TORCH_ARG(int64_t, window) = 6;
};
SgnsHeadOptions make_sgns_options(const ModelConfig& config);

class SgnsHeadImpl : public torch::nn::Cloneable<SgnsHeadImpl> {
 public:
  explicit SgnsHeadImpl(const SgnsHeadOptions& options);
  void reset() override;
  // counts [V] raw corpus counts -> neg_dist = counts^0.75 with UNK (0) zeroed, normalised.
  void set_unigram_counts(const torch::Tensor& counts);
  // centre [N,D] packed word embeddings, word_ids [N] int64, word_index [B,W] -> scalar loss:
  // mean over valid pairs of −log σ(c·u) + mean over negatives of −log σ(−c·n). A pair
  // (t, t±d), d ≤ window, is valid when both slots hold words and the context id ≠ 0. The K
  // negatives are drawn per centre slot and weighted by its number of valid pairs (the same
  // expectation as K per pair, K×fewer gathers).
  torch::Tensor forward(const torch::Tensor& centre, const torch::Tensor& word_ids,
                        const torch::Tensor& word_index);

  SgnsHeadOptions options;
  torch::nn::Embedding context_embedding{nullptr};  // [V,D], N(0, 0.02)
  torch::Tensor neg_dist;                           // buffer [V], sums to 1, neg_dist[0] = 0
};
TORCH_MODULE(SgnsHead);

// embeddings [N,D], root_ids [N] int64 (0 = unknown root) -> scalar SupCon loss with
// temperature; anchors without positives are skipped; 0 when no anchor has a positive.
torch::Tensor root_family_infonce(const torch::Tensor& embeddings, const torch::Tensor& root_ids,
                                  double temperature);

// Pre-LN transformer layers with torch.nn.Transformer{Encoder,Decoder}Layer parameter names.
struct PreLnLayerOptions {
  PreLnLayerOptions(int64_t dim, int64_t num_heads, int64_t ffn)
      : dim_(dim), num_heads_(num_heads), ffn_(ffn) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(int64_t, num_heads);
  TORCH_ARG(int64_t, ffn);
  TORCH_ARG(double, dropout) = 0.0;
};

class PreLnEncoderLayerImpl : public torch::nn::Cloneable<PreLnEncoderLayerImpl> {
 public:
  explicit PreLnEncoderLayerImpl(const PreLnLayerOptions& options);
  void reset() override;
  // x [B,W,D], mask [B,W] bool true=valid -> [B,W,D].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask);

  PreLnLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(PreLnEncoderLayer);

class PreLnDecoderLayerImpl : public torch::nn::Cloneable<PreLnDecoderLayerImpl> {
 public:
  explicit PreLnDecoderLayerImpl(const PreLnLayerOptions& options);
  void reset() override;
  // x [M,T,D] causal self-attention, memory [M,Tm,D] cross-attention -> [M,T,D].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& memory);

  PreLnLayerOptions options;
  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(PreLnDecoderLayer);

struct MlmHeadOptions {
  TORCH_ARG(int64_t, dim) = 320;
  TORCH_ARG(int64_t, num_heads) = 5;
  TORCH_ARG(int64_t, char_vocab_size) = 76;
  TORCH_ARG(int64_t, max_word_len) = 32;
  TORCH_ARG(int64_t, max_sent_len) = 32;
  TORCH_ARG(int64_t, ctx_layers) = 4;
  TORCH_ARG(int64_t, dec_layers) = 2;
  TORCH_ARG(int64_t, ctx_ffn) = 1280;
  TORCH_ARG(int64_t, dec_ffn) = 640;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(double, mask_rate) = 0.2;
};
MlmHeadOptions make_mlm_options(const ModelConfig& config);

struct MlmOutput {
  torch::Tensor loss;        // scalar mean cross-entropy over predicted characters (0 if none)
  torch::Tensor masked;      // [B,W] bool, the slots that were masked
  torch::Tensor num_masked;  // scalar int64
};

class MlmHeadImpl : public torch::nn::Cloneable<MlmHeadImpl> {
 public:
  explicit MlmHeadImpl(const MlmHeadOptions& options);
  void reset() override;
  // words [N,D] packed embeddings, char_ids [N,T] int64 (targets, lower-case ids, PAD=0),
  // word_index [B,W]; masked [B,W] bool chosen by the caller, or undefined to draw
  // Bernoulli(mask_rate) over valid slots. Targets are positions 1..T−1 (the BOS target is
  // skipped), PAD ignored. One host sync (the number of masked slots).
  MlmOutput forward(const torch::Tensor& words, const torch::Tensor& char_ids,
                    const torch::Tensor& word_index, torch::Tensor masked = {});

  MlmHeadOptions options;
  torch::Tensor mask_token;  // [D]
  torch::nn::Embedding word_pos_embed{nullptr}, char_embed{nullptr}, char_pos_embed{nullptr};
  torch::nn::ModuleList context_encoder{nullptr}, char_decoder{nullptr};
  Linear char_out_proj{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(MlmHead);

}  // namespace morpheus::model
