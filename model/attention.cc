// SPDX-License-Identifier: MIT
// Written-out attention, RoPE self-attention block, torch-compatible multi-head attention.
#include "model/attention.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

namespace morpheus::model {
namespace {

std::atomic<bool> g_row_packing{true};

// One query row of no_grad_attention: out[Dh] += softmax_j(q·k_j / √Dh over allowed j)·v_j;
// scores [Tk] is scratch. Left at 0 when no key is allowed.
void attend_row(const float* q, const float* k, const float* v, const bool* key_ok, int64_t tk,
                int64_t dh, float* scores, float* out) {
  const float root = std::sqrt(static_cast<float>(dh));
  const float minus_inf = -std::numeric_limits<float>::infinity();
  float max_score = minus_inf;
  for (int64_t j = 0; j < tk; ++j) {
    scores[j] = minus_inf;
    if (key_ok != nullptr && !key_ok[j]) continue;
    const float* kj = k + j * dh;
    float dot = 0;
#pragma omp simd reduction(+ : dot)
    for (int64_t d = 0; d < dh; ++d) dot += q[d] * kj[d];
    scores[j] = dot / root;
    max_score = std::max(max_score, scores[j]);
  }
  if (max_score == minus_inf) return;
  float sum = 0;
  for (int64_t j = 0; j < tk; ++j) {
    scores[j] = scores[j] == minus_inf ? 0.0f : std::exp(scores[j] - max_score);
    sum += scores[j];
  }
  for (int64_t j = 0; j < tk; ++j) {
    if (scores[j] == 0.0f) continue;
    const float w = scores[j] / sum;
    const float* vj = v + j * dh;
#pragma omp simd
    for (int64_t d = 0; d < dh; ++d) out[d] += w * vj[d];
  }
}

// scaled_dot_attention without causal mask or dropout for float CPU tensors that need no
// gradient (inference, evaluation): one pass per (batch, head) with the Tk scores in registers/L1,
// instead of two batched matmuls that become B·H small BLAS calls each.
torch::Tensor no_grad_attention(const torch::Tensor& q_in, const torch::Tensor& k_in,
                                const torch::Tensor& v_in, const torch::Tensor& key_mask) {
  const torch::Tensor q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous();
  const int64_t b = q.size(0), h = q.size(1), tq = q.size(2), tk = k.size(2), dh = q.size(3);
  torch::Tensor out = torch::zeros({b, h, tq, dh}, q.options());
  torch::Tensor mask;
  if (key_mask.defined()) mask = key_mask.contiguous();
  const float* qp = q.data_ptr<float>();
  const float* kp = k.data_ptr<float>();
  const float* vp = v.data_ptr<float>();
  const bool* mp = mask.defined() ? mask.data_ptr<bool>() : nullptr;
  float* op = out.data_ptr<float>();
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, tq * tk * dh));
  at::parallel_for(0, b * h, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> scores(static_cast<size_t>(tk));
    for (int64_t bh = begin; bh < end; ++bh) {
      const bool* key_ok = mp != nullptr ? mp + (bh / h) * tk : nullptr;
      for (int64_t i = 0; i < tq; ++i) {
        attend_row(qp + (bh * tq + i) * dh, kp + bh * tk * dh, vp + bh * tk * dh, key_ok, tk, dh,
                   scores.data(), op + (bh * tq + i) * dh);
      }
    }
  });
  return out;
}

// RoPE of one head row: out[d] = x[d]·cos[d] + rot[d]·sin[d], rot = (−x[half:], x[:half]),
// the same products and sum as RopeImpl::forward.
void rope_row(const float* x, const float* cos, const float* sin, int64_t dh, float* out) {
  const int64_t half = dh / 2;
  for (int64_t d = 0; d < half; ++d) out[d] = x[d] * cos[d] + -x[d + half] * sin[d];
  for (int64_t d = half; d < dh; ++d) out[d] = x[d] * cos[d] + x[d - half] * sin[d];
}

}  // namespace

torch::Tensor packed_rope_attention(const torch::Tensor& qkv_in,
                                    const std::vector<int64_t>& offsets, const RopeImpl& rope,
                                    int64_t num_heads) {
  TORCH_CHECK(qkv_in.dim() == 2 && qkv_in.size(1) % 3 == 0 && qkv_in.device().is_cpu() &&
                  qkv_in.scalar_type() == torch::kFloat,
              "packed qkv must be float CPU [R,3D], got ", qkv_in.sizes());
  TORCH_CHECK(!offsets.empty() && offsets.back() == qkv_in.size(0),
              "offsets must end at the row count ", qkv_in.size(0));
  const torch::Tensor qkv = qkv_in.contiguous();
  const int64_t d = qkv.size(1) / 3, dh = d / num_heads;
  const torch::Tensor cos_cache = rope.cos_cache.contiguous(),
                      sin_cache = rope.sin_cache.contiguous();
  TORCH_CHECK(cos_cache.size(1) == dh, "RoPE head_dim ", cos_cache.size(1), " != ", dh);
  int64_t longest = 0;
  for (size_t b = 0; b + 1 < offsets.size(); ++b)
    longest = std::max(longest, offsets[b + 1] - offsets[b]);
  TORCH_CHECK(longest <= cos_cache.size(0), "a word has ", longest, " positions, RoPE holds ",
              cos_cache.size(0));
  torch::Tensor out = torch::zeros({qkv.size(0), d}, qkv.options());
  const float* src = qkv.data_ptr<float>();
  const float* cp = cos_cache.data_ptr<float>();
  const float* sp = sin_cache.data_ptr<float>();
  float* op = out.data_ptr<float>();
  const int64_t words = static_cast<int64_t>(offsets.size()) - 1;
  at::parallel_for(0, words * num_heads, 16, [&](int64_t begin, int64_t end) {
    std::vector<float> q(static_cast<size_t>(dh)), k(static_cast<size_t>(longest * dh)),
        v(static_cast<size_t>(longest * dh)), scores(static_cast<size_t>(longest));
    for (int64_t wh = begin; wh < end; ++wh) {
      const int64_t w = wh / num_heads, h = wh % num_heads;
      const int64_t first = offsets[static_cast<size_t>(w)];
      const int64_t len = offsets[static_cast<size_t>(w) + 1] - first;
      for (int64_t j = 0; j < len; ++j) {
        const float* row = src + (first + j) * 3 * d + h * dh;
        rope_row(row + d, cp + j * dh, sp + j * dh, dh, k.data() + j * dh);
        std::copy(row + 2 * d, row + 2 * d + dh, v.data() + j * dh);
      }
      for (int64_t i = 0; i < len; ++i) {
        rope_row(src + (first + i) * 3 * d + h * dh, cp + i * dh, sp + i * dh, dh, q.data());
        attend_row(q.data(), k.data(), v.data(), nullptr, len, dh, scores.data(),
                   op + (first + i) * d + h * dh);
      }
    }
  });
  return out;
}

ValidRows::ValidRows(const torch::Tensor& mask) {
  TORCH_CHECK(mask.dim() == 2 && mask.dtype() == torch::kBool, "mask must be bool [B,T], got ",
              mask.sizes(), " ", mask.dtype());
  if (mask.device().is_cpu() && g_row_packing.load()) {
    index_ = mask.reshape({-1}).nonzero().squeeze(1);
  } else {
    maskf_ = mask.unsqueeze(-1).to(torch::kFloat);
  }
}

void ValidRows::set_packing_enabled(bool enabled) { g_row_packing.store(enabled); }

bool ValidRows::packing_enabled() { return g_row_packing.load(); }

torch::Tensor scaled_dot_attention(const torch::Tensor& q, const torch::Tensor& k,
                                   const torch::Tensor& v, const torch::Tensor& key_mask,
                                   bool causal, double dropout, bool training) {
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, "attention inputs must be [B,H,T,Dh]");
  const int64_t tq = q.size(2);
  const int64_t tk = k.size(2);
  if (key_mask.defined()) {
    TORCH_CHECK(key_mask.dtype() == torch::kBool && key_mask.dim() == 2 &&
                    key_mask.size(0) == q.size(0) && key_mask.size(1) == tk,
                "key_mask must be bool [B,Tk] = [", q.size(0), ",", tk, "], got ", key_mask.sizes(),
                " ", key_mask.dtype());
  }
  const bool needs_grad = q.requires_grad() || k.requires_grad() || v.requires_grad();
  if (!causal && !needs_grad && !(training && dropout > 0) && q.device().is_cpu() &&
      q.scalar_type() == torch::kFloat && k.scalar_type() == torch::kFloat &&
      v.scalar_type() == torch::kFloat) {
    return no_grad_attention(q, k, v, key_mask);
  }
#if TORCH_VERSION_MAJOR >= 2
  // LibTorch 2.x's fused kernel (flash / memory-efficient on CUDA, flash on the CPU). A sequence
  // whose keys are all masked attends to every key instead (finite output and gradient) and its
  // output is then zeroed, as below.
  if (!(causal && key_mask.defined())) {
    torch::Tensor allowed;  // [B,1,1,Tk] bool
    if (key_mask.defined()) {
      allowed = key_mask.logical_or(key_mask.any(1, /*keepdim=*/true).logical_not())
                    .view({key_mask.size(0), 1, 1, tk});
    }
    // An absent mask must reach the kernel as an empty optional: LibTorch 2.x rejects an
    // undefined tensor in its place.
    const double p = training ? dropout : 0.0;
    torch::Tensor out = allowed.defined()
                            ? at::scaled_dot_product_attention(q, k, v, allowed, p, causal)
                            : at::scaled_dot_product_attention(q, k, v, {}, p, causal);
    if (!key_mask.defined()) return out;
    return out * key_mask.any(1).view({key_mask.size(0), 1, 1, 1}).to(out.dtype());
  }
#endif
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(q.size(3)));
  torch::Tensor allowed;  // [B or 1, 1, Tq or 1, Tk] bool
  if (key_mask.defined()) allowed = key_mask.view({key_mask.size(0), 1, 1, tk});
  if (causal) {
    torch::Tensor tri =
        torch::ones({tq, tk}, q.options().dtype(torch::kBool)).tril().view({1, 1, tq, tk});
    allowed = allowed.defined() ? allowed.logical_and(tri) : tri;
  }
  if (allowed.defined()) {
    scores = scores.masked_fill(allowed.logical_not(), -std::numeric_limits<float>::infinity());
  }
  torch::Tensor weights = torch::softmax(scores, -1);
  if (allowed.defined())
    weights = weights.masked_fill(allowed.logical_not(), 0.0);  // kill NaN rows
  if (training && dropout > 0) weights = torch::dropout(weights, dropout, true);
  return torch::matmul(weights, v);
}

torch::Tensor rope_attention_block(const torch::Tensor& x, const torch::Tensor& mask,
                                   const ValidRows& rows, Linear& qkv, Linear& proj,
                                   const Rope& rope, int64_t num_heads, double dropout,
                                   bool training) {
  TORCH_CHECK(x.dim() == 3, "x must be [B,T,D], got ", x.sizes());
  TORCH_CHECK(mask.dtype() == torch::kBool && mask.dim() == 2 && mask.size(0) == x.size(0) &&
                  mask.size(1) == x.size(1),
              "mask must be bool [B,T] matching x ", x.sizes(), ", got ", mask.sizes(), " ",
              mask.dtype());
  const int64_t b = x.size(0), t = x.size(1), d = x.size(2);
  const int64_t dh = d / num_heads;
  // unbind, not three selects: its backward stacks the three gradients into one tensor, where
  // each SelectBackward would zero-fill a full [3,B,H,T,Dh] tensor and then sum the three.
  std::vector<torch::Tensor> parts = rows.apply(x, [&](const torch::Tensor& r) { return qkv(r); })
                                         .view({b, t, 3, num_heads, dh})
                                         .permute({2, 0, 3, 1, 4})
                                         .unbind(0);
  torch::Tensor q = rope->forward(parts[0]);
  torch::Tensor k = rope->forward(parts[1]);
  torch::Tensor out = scaled_dot_attention(q, k, parts[2], mask, false, dropout, training);
  return rows.apply(out.transpose(1, 2).reshape({b, t, d}),
                    [&](const torch::Tensor& r) { return proj(r); });
}

torch::nn::Sequential make_ffn(int64_t dim, int64_t hidden, double dropout) {
  return torch::nn::Sequential(torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})),
                               Linear(dim, hidden), torch::nn::GELU(), torch::nn::Dropout(dropout),
                               Linear(hidden, dim), torch::nn::Dropout(dropout));
}

RopeSelfAttentionImpl::RopeSelfAttentionImpl(const RopeSelfAttentionOptions& options_)
    : options(options_) {
  reset();
}

void RopeSelfAttentionImpl::reset() {
  const int64_t d = options.dim();
  TORCH_CHECK(d % options.num_heads() == 0, "dim ", d, " not divisible by heads ",
              options.num_heads());
  qkv = register_module("qkv", Linear(torch::nn::LinearOptions(d, 3 * d).bias(false)));
  proj = register_module("proj", Linear(d, d));
  norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  rope = register_module(
      "rope",
      Rope(RopeOptions(d / options.num_heads(), options.max_len()).base(options.rope_base())));
  drop = register_module("drop", torch::nn::Dropout(options.dropout()));
}

torch::Tensor RopeSelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& mask) {
  return forward(x, mask, ValidRows(mask));
}

torch::Tensor RopeSelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                             const ValidRows& rows) {
  torch::Tensor a = rope_attention_block(x, mask, rows, qkv, proj, rope, options.num_heads(),
                                         options.dropout(), is_training());
  return norm(x + drop(a)) * mask.unsqueeze(-1).to(x.dtype());
}

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_)
    : options(options_) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t d = options.dim();
  TORCH_CHECK(d % options.num_heads() == 0, "dim ", d, " not divisible by heads ",
              options.num_heads());
  in_proj_weight = register_parameter("in_proj_weight", torch::empty({3 * d, d}));
  in_proj_bias = register_parameter("in_proj_bias", torch::zeros({3 * d}));
  out_proj = register_module("out_proj", Linear(d, d));
  torch::nn::init::xavier_uniform_(in_proj_weight);
  torch::nn::init::zeros_(out_proj->bias);
}

torch::Tensor MultiheadAttentionImpl::forward(const torch::Tensor& query,
                                              const torch::Tensor& memory,
                                              const torch::Tensor& key_mask, bool causal) {
  TORCH_CHECK(query.dim() == 3 && memory.dim() == 3 && query.size(0) == memory.size(0) &&
                  query.size(2) == options.dim() && memory.size(2) == options.dim(),
              "query [B,Tq,D] and memory [B,Tk,D] expected, got ", query.sizes(), " and ",
              memory.sizes());
  const int64_t b = query.size(0), tq = query.size(1), tk = memory.size(1), d = options.dim();
  const int64_t h = options.num_heads(), dh = d / h;
  std::vector<torch::Tensor> w = in_proj_weight.chunk(3, 0);
  std::vector<torch::Tensor> bias = in_proj_bias.chunk(3, 0);
  auto heads = [&](const torch::Tensor& t, int64_t len) {
    return t.view({b, len, h, dh}).transpose(1, 2);
  };
  torch::Tensor q = heads(torch::nn::functional::linear(query, w[0], bias[0]), tq);
  torch::Tensor k = heads(torch::nn::functional::linear(memory, w[1], bias[1]), tk);
  torch::Tensor v = heads(torch::nn::functional::linear(memory, w[2], bias[2]), tk);
  torch::Tensor out =
      scaled_dot_attention(q, k, v, key_mask, causal, options.dropout(), is_training());
  return out_proj(out.transpose(1, 2).reshape({b, tq, d}));
}

}  // namespace morpheus::model
