// SPDX-License-Identifier: MIT
// SGNS head, root-family InfoNCE, character MLM head.
#include "model/heads.h"

#include <torch/torch.h>

#include "config/model_config.h"

namespace morpheus::model {

torch::Tensor to_sentence_layout(const torch::Tensor& rows, const torch::Tensor& word_index) {
  TORCH_CHECK(word_index.dim() == 2 && word_index.dtype() == torch::kLong,
              "word_index must be int64 [B,W], got ", word_index.sizes(), " ", word_index.dtype());
  TORCH_CHECK(rows.dim() >= 1, "rows must be [N,...]");
  torch::Tensor valid = word_index.ge(0);
  torch::Tensor gathered = rows.index_select(0, word_index.clamp_min(0).flatten());
  std::vector<int64_t> shape{word_index.size(0), word_index.size(1)};
  for (int64_t d = 1; d < rows.dim(); ++d) shape.push_back(rows.size(d));
  gathered = gathered.view(shape);
  std::vector<int64_t> vshape{word_index.size(0), word_index.size(1)};
  for (int64_t d = 1; d < rows.dim(); ++d) vshape.push_back(1);
  return gathered * valid.view(vshape).to(rows.dtype());
}

// ---------------------------------------------------------------------------------------- SGNS

SgnsHeadOptions make_sgns_options(const ModelConfig& c) {
  return SgnsHeadOptions()
      .vocab_size(c.word_vocab_size)
      .dim(c.char_dim)
      .n_negatives(c.sgns_n_negatives)
      .window(c.sgns_window);
}

SgnsHeadImpl::SgnsHeadImpl(const SgnsHeadOptions& options_) : options(options_) { reset(); }

void SgnsHeadImpl::reset() {
  context_embedding = register_module("context_embedding",
                                      torch::nn::Embedding(options.vocab_size(), options.dim()));
  {
    torch::NoGradGuard no_grad;
    context_embedding->weight.normal_(0.0, 0.02);
  }
  torch::Tensor dist = torch::ones({options.vocab_size()});
  dist[0] = 0.0;
  neg_dist = register_buffer("neg_dist", dist / dist.sum());
}

void SgnsHeadImpl::set_unigram_counts(const torch::Tensor& counts) {
  TORCH_CHECK(counts.dim() == 1 && counts.size(0) == options.vocab_size(),
              "unigram counts must be [", options.vocab_size(), "], got ", counts.sizes());
  torch::NoGradGuard no_grad;
  torch::Tensor d = counts.to(torch::kDouble).clamp_min(0).pow(0.75);
  d[0] = 0.0;
  const double total = d.sum().item<double>();
  TORCH_CHECK(total > 0, "unigram counts are all zero outside UNK");
  neg_dist.copy_((d / total).to(neg_dist.dtype()));
}

torch::Tensor SgnsHeadImpl::forward(const torch::Tensor& centre, const torch::Tensor& word_ids,
                                    const torch::Tensor& word_index) {
  TORCH_CHECK(centre.dim() == 2 && centre.size(1) == options.dim(), "centre must be [N,",
              options.dim(), "], got ", centre.sizes());
  TORCH_CHECK(
      word_ids.dim() == 1 && word_ids.size(0) == centre.size(0) && word_ids.dtype() == torch::kLong,
      "word_ids must be int64 [N], got ", word_ids.sizes());
  const int64_t b = word_index.size(0), w = word_index.size(1), win = options.window();
  const int64_t k = options.n_negatives();
  const auto dev = centre.device();
  torch::Tensor valid = word_index.ge(0);                        // [B,W]
  torch::Tensor c = to_sentence_layout(centre, word_index);      // [B,W,D]
  torch::Tensor ids = to_sentence_layout(word_ids, word_index);  // [B,W], 0 empty
  torch::Tensor offs =
      torch::cat({torch::arange(-win, 0, torch::TensorOptions(dev).dtype(torch::kLong)),
                  torch::arange(1, win + 1, torch::TensorOptions(dev).dtype(torch::kLong))});
  torch::Tensor pos = torch::arange(w, offs.options()).unsqueeze(1) + offs.unsqueeze(0);  // [W,2w]
  torch::Tensor in_range = pos.ge(0).logical_and(pos.lt(w));
  torch::Tensor posc = pos.clamp(0, w - 1);
  torch::Tensor ctx_ids = ids.index_select(1, posc.flatten()).view({b, w, 2 * win});
  torch::Tensor ctx_valid = valid.index_select(1, posc.flatten()).view({b, w, 2 * win});
  torch::Tensor pair = valid.unsqueeze(-1)
                           .logical_and(in_range.unsqueeze(0))
                           .logical_and(ctx_valid)
                           .logical_and(ctx_ids.ne(0));  // [B,W,2w]
  torch::Tensor pairf = pair.to(centre.dtype());
  torch::Tensor neg_ids =
      torch::multinomial(neg_dist, b * w * k, /*replacement=*/true).view({b, w, k});
  // One lookup for contexts and negatives: the table's (dense) gradient is built once per step
  // instead of twice and summed.
  torch::Tensor rows = context_embedding(torch::cat({ctx_ids, neg_ids}, 2));  // [B,W,2w+K,D]
  torch::Tensor u = rows.slice(2, 0, 2 * win);                                // [B,W,2w,D]
  torch::Tensor nv = rows.slice(2, 2 * win);                                  // [B,W,K,D]
  torch::Tensor pos_score = (u * c.unsqueeze(2)).sum(-1).clamp(-30, 30);
  torch::Tensor n_pairs = pairf.sum();
  torch::Tensor pos_loss = -(torch::log_sigmoid(pos_score) * pairf).sum() / n_pairs.clamp_min(1.0);
  torch::Tensor neg_score = (nv * c.unsqueeze(2)).sum(-1).clamp(-30, 30);  // [B,W,K]
  torch::Tensor per_centre = pairf.sum(-1);                                // [B,W]
  torch::Tensor neg_loss = -(torch::log_sigmoid(-neg_score).sum(-1) * per_centre).sum() /
                           (n_pairs * double(k)).clamp_min(1.0);
  return pos_loss + neg_loss;
}

// ------------------------------------------------------------------------------------ InfoNCE

torch::Tensor root_family_infonce(const torch::Tensor& embeddings, const torch::Tensor& root_ids,
                                  double temperature) {
  TORCH_CHECK(embeddings.dim() == 2, "embeddings must be [N,D], got ", embeddings.sizes());
  TORCH_CHECK(root_ids.dim() == 1 && root_ids.size(0) == embeddings.size(0) &&
                  root_ids.dtype() == torch::kLong,
              "root_ids must be int64 [N], got ", root_ids.sizes());
  const int64_t n = embeddings.size(0);
  torch::Tensor e = torch::nn::functional::normalize(
      embeddings, torch::nn::functional::NormalizeFuncOptions().dim(1).eps(1e-8));
  torch::Tensor eye = torch::eye(n, root_ids.options().dtype(torch::kBool));
  torch::Tensor sim = torch::matmul(e, e.t()) / temperature;
  sim = sim.masked_fill(eye, -1e4);
  torch::Tensor log_prob = sim - torch::logsumexp(sim, 1, /*keepdim=*/true);
  torch::Tensor positive = root_ids.unsqueeze(0)
                               .eq(root_ids.unsqueeze(1))
                               .logical_and(root_ids.ne(0).unsqueeze(1))
                               .logical_and(eye.logical_not());
  torch::Tensor posf = positive.to(e.dtype());
  torch::Tensor n_pos = posf.sum(1);
  torch::Tensor per_anchor = -(log_prob * posf).sum(1) / n_pos.clamp_min(1.0);
  torch::Tensor has = n_pos.gt(0).to(e.dtype());
  return (per_anchor * has).sum() / has.sum().clamp_min(1.0);
}

// ---------------------------------------------------------------------------------------- MLM

PreLnEncoderLayerImpl::PreLnEncoderLayerImpl(const PreLnLayerOptions& options_)
    : options(options_) {
  reset();
}

void PreLnEncoderLayerImpl::reset() {
  const int64_t d = options.dim();
  self_attn = register_module(
      "self_attn",
      MultiheadAttention(
          MultiheadAttentionOptions(d, options.num_heads()).dropout(options.dropout())));
  linear1 = register_module("linear1", Linear(d, options.ffn()));
  linear2 = register_module("linear2", Linear(options.ffn(), d));
  norm1 = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  norm2 = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  drop = register_module("drop", torch::nn::Dropout(options.dropout()));
}

torch::Tensor PreLnEncoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& mask) {
  torch::Tensor h = norm1(x);
  torch::Tensor y = x + drop(self_attn->forward(h, h, mask));
  return y + drop(linear2(drop(torch::gelu(linear1(norm2(y))))));
}

PreLnDecoderLayerImpl::PreLnDecoderLayerImpl(const PreLnLayerOptions& options_)
    : options(options_) {
  reset();
}

void PreLnDecoderLayerImpl::reset() {
  const int64_t d = options.dim();
  auto mha = MultiheadAttentionOptions(d, options.num_heads()).dropout(options.dropout());
  self_attn = register_module("self_attn", MultiheadAttention(mha));
  multihead_attn = register_module("multihead_attn", MultiheadAttention(mha));
  linear1 = register_module("linear1", Linear(d, options.ffn()));
  linear2 = register_module("linear2", Linear(options.ffn(), d));
  norm1 = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  norm2 = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  norm3 = register_module("norm3", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  drop = register_module("drop", torch::nn::Dropout(options.dropout()));
}

torch::Tensor PreLnDecoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& memory) {
  torch::Tensor h = norm1(x);
  torch::Tensor y = x + drop(self_attn->forward(h, h, torch::Tensor(), /*causal=*/true));
  y = y + drop(multihead_attn->forward(norm2(y), memory));
  return y + drop(linear2(drop(torch::gelu(linear1(norm3(y))))));
}

MlmHeadOptions make_mlm_options(const ModelConfig& c) {
  return MlmHeadOptions()
      .dim(c.char_dim)
      .num_heads(c.num_heads)
      .char_vocab_size(c.char_vocab_size)
      .max_word_len(c.max_word_len)
      .max_sent_len(c.max_sent_len)
      .ctx_layers(c.mlm_ctx_layers)
      .dec_layers(c.mlm_dec_layers)
      .ctx_ffn(c.mlm_ctx_ffn_mult * c.char_dim)
      .dec_ffn(c.mlm_dec_ffn_mult * c.char_dim)
      .dropout(c.dropout)
      .mask_rate(c.mlm_mask_rate);
}

MlmHeadImpl::MlmHeadImpl(const MlmHeadOptions& options_) : options(options_) { reset(); }

void MlmHeadImpl::reset() {
  const int64_t d = options.dim();
  mask_token = register_parameter("mask_token", torch::randn({d}) * 0.02);
  word_pos_embed =
      register_module("word_pos_embed", torch::nn::Embedding(options.max_sent_len(), d));
  char_embed = register_module("char_embed", torch::nn::Embedding(options.char_vocab_size(), d));
  char_pos_embed =
      register_module("char_pos_embed", torch::nn::Embedding(options.max_word_len(), d));
  context_encoder = register_module("context_encoder", torch::nn::ModuleList());
  for (int64_t l = 0; l < options.ctx_layers(); ++l) {
    context_encoder->push_back(PreLnEncoderLayer(
        PreLnLayerOptions(d, options.num_heads(), options.ctx_ffn()).dropout(options.dropout())));
  }
  char_decoder = register_module("char_decoder", torch::nn::ModuleList());
  for (int64_t l = 0; l < options.dec_layers(); ++l) {
    char_decoder->push_back(PreLnDecoderLayer(
        PreLnLayerOptions(d, options.num_heads(), options.dec_ffn()).dropout(options.dropout())));
  }
  char_out_proj = register_module("char_out_proj", Linear(d, options.char_vocab_size()));
  drop = register_module("drop", torch::nn::Dropout(options.dropout()));
}

MlmOutput MlmHeadImpl::forward(const torch::Tensor& words, const torch::Tensor& char_ids,
                               const torch::Tensor& word_index, torch::Tensor masked) {
  TORCH_CHECK(words.dim() == 2 && words.size(1) == options.dim(), "words must be [N,",
              options.dim(), "], got ", words.sizes());
  TORCH_CHECK(char_ids.dim() == 2 && char_ids.size(0) == words.size(0) &&
                  char_ids.dtype() == torch::kLong && char_ids.size(1) <= options.max_word_len(),
              "char_ids must be int64 [N,T<=", options.max_word_len(), "], got ", char_ids.sizes());
  TORCH_CHECK(word_index.dim() == 2 && word_index.size(1) <= options.max_sent_len(),
              "word_index must be [B,W<=", options.max_sent_len(), "], got ", word_index.sizes());
  const int64_t b = word_index.size(0), w = word_index.size(1), t = char_ids.size(1);
  const auto dev = words.device();
  torch::Tensor valid = word_index.ge(0);
  if (!masked.defined()) {
    masked = torch::rand({b, w}, words.options()).lt(options.mask_rate()).logical_and(valid);
  }
  TORCH_CHECK(masked.sizes() == word_index.sizes() && masked.dtype() == torch::kBool,
              "masked must be bool ", word_index.sizes());
  masked = masked.logical_and(valid);
  torch::Tensor x = to_sentence_layout(words, word_index);  // [B,W,D]
  x = torch::where(masked.unsqueeze(-1), mask_token.view({1, 1, -1}).expand_as(x), x);
  x = drop(
      x +
      word_pos_embed(torch::arange(w, torch::TensorOptions(dev).dtype(torch::kLong))).unsqueeze(0));
  for (const auto& layer : *context_encoder) {
    x = layer->as<PreLnEncoderLayer>()->forward(x, valid);
  }
  MlmOutput out;
  out.masked = masked;
  out.num_masked = masked.sum();
  torch::Tensor flat = masked.flatten().nonzero().squeeze(1);  // host sync: number of masked slots
  if (flat.numel() == 0) {
    out.loss = (x.sum() * 0.0);
    return out;
  }
  torch::Tensor memory = x.view({b * w, -1}).index_select(0, flat).unsqueeze(1);  // [M,1,D]
  torch::Tensor target = char_ids.index_select(0, word_index.flatten().index_select(0, flat));
  const int64_t m = target.size(0);
  torch::Tensor bos = torch::full({m, 1}, int64_t{2}, target.options());
  torch::Tensor input = torch::cat({bos, target.slice(1, 0, t - 1)}, 1);  // [M,T]
  torch::Tensor y =
      char_embed(input) + char_pos_embed(torch::arange(t, target.options())).unsqueeze(0);
  y = drop(y);
  for (const auto& layer : *char_decoder) {
    y = layer->as<PreLnDecoderLayer>()->forward(y, memory);
  }
  torch::Tensor logits = char_out_proj(y.slice(1, 1, t));  // predict positions 1..T-1
  torch::Tensor tgt = target.slice(1, 1, t);
  out.loss = torch::nn::functional::cross_entropy(
      logits.reshape({-1, options.char_vocab_size()}), tgt.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(0));
  return out;
}

}  // namespace morpheus::model
