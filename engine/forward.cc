// SPDX-License-Identifier: MIT
// The float forward pass over a block of words (see forward.h).
#include "engine/forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/check.h"
#include "engine/kernels.h"
#include "engine/reference.h"

namespace morpheus::engine {
namespace {

using kernels::bias_gelu;
using kernels::gemm_nt_row_stable;
using kernels::layer_norm_rows;
using kernels::residual_layer_norm;

void add_stage(Trace* trace, const std::string& name, const float* data, size_t rows, size_t cols) {
  if (trace == nullptr) return;
  trace->stages.push_back({name, rows, cols, std::vector<float>(data, data + rows * cols)});
}

void grow(std::vector<float>* buffer, size_t size) {
  if (buffer->size() < size) buffer->resize(size);
}

}  // namespace

double logit_of(double probability) { return std::log(probability / (1.0 - probability)); }

const Trace::Stage* Trace::find(const std::string& name) const {
  for (const Stage& s : stages) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool decide_gaps(const Model& model, const WordIds& word, const float* logits, size_t first,
                 size_t last, double logit_threshold, uint8_t* cuts) {
  bool close = false;
  for (size_t g = first; g < last; ++g) {
    const double logit = logits[g];
    cuts[g] = logit > logit_threshold ? 1 : 0;
    if (std::fabs(logit - logit_threshold) < kCloseCallMargin) close = true;
  }
  if (!close) return false;
  const std::vector<double> exact = reference_gap_logits(model, word);
  for (size_t g = first; g < last; ++g) {
    if (std::fabs(static_cast<double>(logits[g]) - logit_threshold) < kCloseCallMargin) {
      cuts[g] = exact[g] > logit_threshold ? 1 : 0;
    }
  }
  return true;
}

Forward::Forward(const Model& model) : model_(model) {}

void Forward::layout(const std::vector<const WordIds*>& words) {
  offsets_.assign(1, 0);
  gaps_ = 0;
  size_t longest = 0;
  for (const WordIds* w : words) {
    const size_t t = w->positions();
    MORPHEUS_CHECK(t >= 2 && t <= model_.max_positions && w->cases.size() == t, "a word has ", t,
                   " positions (", w->cases.size(), " case flags); the model takes 2 to ",
                   model_.max_positions);
    offsets_.push_back(offsets_.back() + t);
    gaps_ += t - 1;
    longest = std::max(longest, t);
  }
  rows_ = offsets_.back();
  const size_t d = model_.dim, f = model_.ffn_dim, s = model_.max_segs;
  const size_t n = std::max<size_t>(words.size(), 1);
  grow(&h_, rows_ * d);
  grow(&qkv_, rows_ * 3 * d);
  grow(&heads_, rows_ * d);
  grow(&tmp_, std::max(rows_, n) * d);
  grow(&wide_, std::max(rows_, n) * f);
  grow(&col_, std::max(rows_ * model_.cnn_window * d, gaps_ * 2 * d));
  grow(&scratch_, std::max(kernels::attention_scratch_size(longest, model_.head_dim),
                           longest + s * d + 2 * s));
}

void Forward::encode(const std::vector<const WordIds*>& words, Trace* trace) {
  layout(words);
  const size_t d = model_.dim;
  for (size_t i = 0; i < words.size(); ++i) {
    const WordIds& w = *words[i];
    for (size_t t = 0; t < w.positions(); ++t) {
      const int32_t id = w.ids[t];
      MORPHEUS_CHECK(id >= 0 && static_cast<size_t>(id) < model_.vocab && w.cases[t] <= 1,
                     "char id ", id, " or case flag ", int{w.cases[t]}, " out of range");
      const float* src =
          &model_.projected[(w.cases[t] * model_.vocab + static_cast<size_t>(id)) * d];
      std::memcpy(&h_[(offsets_[i] + t) * d], src, d * sizeof(float));
    }
  }
  add_stage(trace, "embed_proj", h_.data(), rows_, d);
  convolution();
  add_stage(trace, "cnn", h_.data(), rows_, d);
  for (size_t l = 0; l < model_.encoder_attention.size(); ++l) {
    attention_layer(model_.encoder_attention[l]);
    ffn_layer(model_.encoder_ffn[l]);
    add_stage(trace, "encoder." + std::to_string(l), h_.data(), rows_, d);
  }
  layer_norm_rows(h_.data(), rows_, d, model_.final_norm.gamma, model_.final_norm.beta, model_.eps,
                  h_.data());
  add_stage(trace, "final_norm", h_.data(), rows_, d);
}

void Forward::convolution() {
  const size_t d = model_.dim, window = model_.cnn_window, pad = model_.cnn_pad;
  const size_t width = window * d;
  for (size_t i = 0; i + 1 < offsets_.size(); ++i) {
    const size_t first = offsets_[i], t_len = offsets_[i + 1] - first;
    for (size_t t = 0; t < t_len; ++t) {
      float* col = &col_[(first + t) * width];
      for (size_t j = 0; j < window; ++j) {
        const size_t src = t + j;  // position src − pad of the word
        if (src >= pad && src - pad < t_len) {
          std::memcpy(col + j * d, &h_[(first + src - pad) * d], d * sizeof(float));
        } else {
          std::fill(col + j * d, col + (j + 1) * d, 0.0f);
        }
      }
    }
  }
  gemm_nt_row_stable(rows_, d, width, col_.data(), width, model_.cnn_weight.data(), width,
                     tmp_.data(), d);
  bias_gelu(tmp_.data(), rows_, d, model_.cnn_bias.data());
  residual_layer_norm(h_.data(), tmp_.data(), rows_, d, nullptr, model_.cnn_norm.gamma,
                      model_.cnn_norm.beta, model_.eps);
}

void Forward::attention_layer(const AttentionWeights& w) {
  const size_t d = model_.dim;
  gemm_nt_row_stable(rows_, 3 * d, d, h_.data(), d, w.qkv, d, qkv_.data(), 3 * d);
  for (size_t i = 0; i + 1 < offsets_.size(); ++i) {
    const size_t first = offsets_[i], t_len = offsets_[i + 1] - first;
    MORPHEUS_CHECK(t_len <= w.rope_len, "a word of ", t_len, " positions, RoPE holds ", w.rope_len);
    kernels::rope_attention(&qkv_[first * 3 * d], t_len, d, model_.heads, w.cos, w.sin,
                            scratch_.data(), &heads_[first * d]);
  }
  gemm_nt_row_stable(rows_, d, d, heads_.data(), d, w.proj, d, tmp_.data(), d);
  residual_layer_norm(h_.data(), tmp_.data(), rows_, d, w.proj_bias, w.norm.gamma, w.norm.beta,
                      model_.eps);
}

void Forward::ffn_layer(const FfnWeights& w) {
  const size_t d = model_.dim, f = model_.ffn_dim;
  layer_norm_rows(h_.data(), rows_, d, w.norm.gamma, w.norm.beta, model_.eps, tmp_.data());
  gemm_nt_row_stable(rows_, f, d, tmp_.data(), d, w.w1, d, wide_.data(), f);
  bias_gelu(wide_.data(), rows_, f, w.b1);
  gemm_nt_row_stable(rows_, d, f, wide_.data(), f, w.w2, f, tmp_.data(), d);
  kernels::bias_residual(h_.data(), tmp_.data(), rows_, d, w.b2);
}

void Forward::detect(Trace* trace) {
  for (size_t l = 0; l < model_.detector_attention.size(); ++l) {
    attention_layer(model_.detector_attention[l]);
    ffn_layer(model_.detector_ffn[l]);
    add_stage(trace, "detector." + std::to_string(l), h_.data(), rows_, model_.dim);
  }
}

void Forward::score_gaps(std::vector<float>* logits) {
  const size_t d = model_.dim;
  size_t g = 0;
  for (size_t i = 0; i + 1 < offsets_.size(); ++i) {
    for (size_t r = offsets_[i]; r + 1 < offsets_[i + 1]; ++r, ++g) {
      std::memcpy(&col_[g * 2 * d], &h_[r * d], 2 * d * sizeof(float));  // rows r and r + 1
    }
  }
  const ScorerWeights& s = model_.scorer;
  gemm_nt_row_stable(gaps_, d, 2 * d, col_.data(), 2 * d, s.w0, 2 * d, tmp_.data(), d);
  bias_gelu(tmp_.data(), gaps_, d, s.b0);
  logits->resize(gaps_);
  for (size_t k = 0; k < gaps_; ++k) (*logits)[k] = kernels::dot(&tmp_[k * d], s.w2, d) + s.b2;
}

void Forward::gap_logits(const std::vector<const WordIds*>& words, std::vector<float>* logits,
                         Trace* trace) {
  encode(words, trace);
  detect(trace);
  score_gaps(logits);
  add_stage(trace, "logits", logits->data(), logits->size(), 1);
}

size_t Forward::pool_segments(size_t i, const uint8_t* cuts, float* segments) {
  const size_t d = model_.dim, segs = model_.max_segs;
  const size_t first = offsets_[i], t_len = offsets_[i + 1] - first;
  const float* rows = &encoded_[first * d];
  float* score = scratch_.data();
  float* acc = score + t_len;
  float* denom = acc + segs * d;
  float* mass = denom + segs;
  float max_score = -HUGE_VALF;
  for (size_t t = 0; t < t_len; ++t) {
    score[t] = kernels::dot(rows + t * d, model_.pooling.char_scorer, d);
    max_score = std::max(max_score, score[t]);
  }
  for (size_t t = 0; t < t_len; ++t) score[t] -= max_score;
  kernels::exp_inplace(score, t_len);
  std::fill(acc, acc + segs * d + 2 * segs, 0.0f);
  size_t seg = 0;
  for (size_t t = 0; t < t_len; ++t) {
    if (t > 0 && cuts[t - 1] != 0) seg = std::min(seg + 1, segs - 1);
    float* a = acc + seg * d;
    const float w = score[t];
    const float* row = rows + t * d;
#pragma omp simd
    for (size_t e = 0; e < d; ++e) a[e] += w * row[e];
    denom[seg] += w;
    mass[seg] += 1.0f;
  }
  size_t valid = 0;
  for (size_t s = 0; s < segs; ++s) {
    if (!(static_cast<double>(mass[s]) > model_.config().min_seg_mass)) continue;
    const float inv = 1.0f / std::max(denom[s], 1e-12f);
    float* out = segments + valid * d;
    for (size_t e = 0; e < d; ++e) out[e] = acc[s * d + e] * inv;
    ++valid;
  }
  return valid;
}

void Forward::pool_word(size_t i, const uint8_t* cuts, EmbeddingPooling pooling, float* out) {
  const size_t d = model_.dim;
  grow(&segments_, model_.max_segs * d);
  const size_t valid = pool_segments(i, cuts, segments_.data());
  const float* seg = segments_.data();
  if (pooling == EmbeddingPooling::kMean) {  // out[D] = the mean of every segment
    std::fill(out, out + d, 0.0f);
    for (size_t s = 0; s < valid; ++s) {
      for (size_t e = 0; e < d; ++e) out[e] += seg[s * d + e];
    }
    const float count = static_cast<float>(std::max<size_t>(valid, 1));
    for (size_t e = 0; e < d; ++e) out[e] /= count;
    return;
  }
  // out[3D] = [s_0 | the mean of the rows outside segment 0 | the mean of the rows of the last
  // segment], zeros without a suffix.
  std::fill(out, out + 3 * d, 0.0f);
  if (valid > 0) std::copy_n(seg, d, out);
  const size_t first = offsets_[i], t_len = offsets_[i + 1] - first;
  const float* rows = &encoded_[first * d];
  size_t last = 0;  // the last segment of the word, as pool_segments numbers them
  for (size_t g = 0; g + 1 < t_len; ++g) {
    if (cuts[g] != 0) last = std::min(last + 1, model_.max_segs - 1);
  }
  size_t in_suffixes = 0, in_last = 0, s = 0;
  for (size_t t = 0; t < t_len; ++t) {
    if (t > 0 && cuts[t - 1] != 0) s = std::min(s + 1, model_.max_segs - 1);
    if (s == 0) continue;
    for (size_t e = 0; e < d; ++e) out[d + e] += rows[t * d + e];
    ++in_suffixes;
    if (s != last) continue;
    for (size_t e = 0; e < d; ++e) out[2 * d + e] += rows[t * d + e];
    ++in_last;
  }
  for (size_t e = 0; in_suffixes > 0 && e < d; ++e) out[d + e] /= static_cast<float>(in_suffixes);
  for (size_t e = 0; in_last > 0 && e < d; ++e) out[2 * d + e] /= static_cast<float>(in_last);
}

void Forward::fuse(size_t n, float* x, float* out) {
  const size_t d = model_.dim, f = model_.ffn_dim;
  const PoolingWeights& p = model_.pooling;
  grow(&wide_, n * f);
  gemm_nt_row_stable(n, f, d, x, d, p.w0, d, wide_.data(), f);
  bias_gelu(wide_.data(), n, f, p.b0);
  gemm_nt_row_stable(n, d, f, wide_.data(), f, p.w3, f, out, d);
  residual_layer_norm(out, x, n, d, p.b3, p.norm.gamma, p.norm.beta, model_.eps);
}

size_t Forward::embeddings(const std::vector<const WordIds*>& words, double logit_threshold,
                           EmbeddingPooling pooling, float* out, Trace* trace) {
  if (words.empty()) return 0;
  encode(words, trace);
  encoded_.assign(h_.begin(), h_.begin() + static_cast<std::ptrdiff_t>(rows_ * model_.dim));
  detect(trace);
  std::vector<float> logits;
  score_gaps(&logits);
  add_stage(trace, "logits", logits.data(), logits.size(), 1);
  const size_t width = (pooling == EmbeddingPooling::kMean ? 1 : 3) * model_.dim;
  std::vector<float> pooled(words.size() * width);
  std::vector<uint8_t> cuts(model_.max_positions);
  size_t rechecked = 0, gap = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    const size_t gaps = words[i]->positions() - 1;
    if (decide_gaps(model_, *words[i], &logits[gap], 0, gaps, logit_threshold, cuts.data())) {
      ++rechecked;
    }
    pool_word(i, cuts.data(), pooling, &pooled[i * width]);
    gap += gaps;
  }
  // Every D-block of every row through the same fusion: [N·width/D, D].
  fuse(pooled.size() / model_.dim, pooled.data(), out);
  add_stage(trace, "embeddings", out, words.size(), width);
  return rechecked;
}

}  // namespace morpheus::engine
