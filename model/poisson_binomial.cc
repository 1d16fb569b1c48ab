// SPDX-License-Identifier: MIT
// Poisson–binomial DP forward/backward: tensor-op and fused CPU versions, autograd wrapper.
#include "model/poisson_binomial.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace morpheus::model {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Unmasked DP table F [N,T,S] (F[:,j] = f_j) from probs [N,T-1].
torch::Tensor pb_forward_tensor_ops(const torch::Tensor& probs, int64_t s) {
  const int64_t n = probs.size(0), t = probs.size(1) + 1;
  torch::Tensor table = torch::zeros({n, t, s}, probs.options());
  torch::Tensor f = torch::zeros({n, s}, probs.options());
  f.select(1, 0).fill_(1.0);
  table.select(1, 0).copy_(f);
  torch::Tensor ones = torch::ones({n, 1}, probs.options());
  torch::Tensor zeros = torch::zeros({n, 1}, probs.options());
  for (int64_t j = 1; j < t; ++j) {
    torch::Tensor p = probs.slice(1, j - 1, j);                              // [N,1]
    torch::Tensor stay = torch::cat({(1 - p).expand({n, s - 1}), ones}, 1);  // sink keeps all
    torch::Tensor move = torch::cat({zeros, f.slice(1, 0, s - 1) * p}, 1);
    f = f * stay + move;
    table.select(1, j).copy_(f);
  }
  return table;
}

// grad probs [N,T-1] from g = dL/dF [N,T,S] (already masked), table F and probs.
torch::Tensor pb_backward_tensor_ops(const torch::Tensor& g, const torch::Tensor& table,
                                     const torch::Tensor& probs) {
  const int64_t t = probs.size(1) + 1, s = table.size(2);
  torch::Tensor grad_p = torch::zeros_like(probs);
  torch::Tensor lam = g.select(1, t - 1).clone();  // λ_{T-1}
  for (int64_t j = t - 1; j >= 1; --j) {
    torch::Tensor p = probs.slice(1, j - 1, j);  // [N,1]
    torch::Tensor fprev = table.select(1, j - 1).slice(1, 0, s - 1);
    torch::Tensor lo = lam.slice(1, 0, s - 1), hi = lam.slice(1, 1, s);
    grad_p.select(1, j - 1).copy_((fprev * (hi - lo)).sum(1));
    torch::Tensor prev_inner = (1 - p) * lo + p * hi;  // k < S-1
    lam = g.select(1, j - 1) + torch::cat({prev_inner, lam.slice(1, s - 1, s)}, 1);
  }
  return grad_p;
}

constexpr int64_t kPbGrain = 64;  // words per parallel_for task

// Per-word DP extent: 1 + the index of the last valid position (0 for an empty row). Rows and
// gaps at or beyond it are masked out, so the DP never needs to run there.
void pb_dp_lengths(const bool* mask, int64_t n, int64_t t, int64_t* lengths) {
  for (int64_t w = 0; w < n; ++w) {
    const bool* m = mask + w * t;
    int64_t len = t;
    while (len > 0 && !m[len - 1]) --len;
    lengths[w] = len;
  }
}

// The kernels' view of a batch: probs [N,T-1], mask [N,T] and DP extents [N] (contiguous), S.
template <typename T>
struct PbBatch {
  const T* probs;
  const bool* mask;
  const int64_t* lengths;
  int64_t gaps, s;

  struct Word {
    const T* p;     // [T-1] gap probabilities
    const bool* m;  // [T] valid positions
    int64_t len;    // DP extent (pb_dp_lengths)
  };
  Word word(int64_t w) const { return {probs + w * gaps, mask + w * (gaps + 1), lengths[w]}; }
  // Word w's output rows [T,S] in out_all [N,T,S], the rows >= its extent already set to 0.
  T* output_rows(T* out_all, int64_t w) const {
    T* out = out_all + w * (gaps + 1) * s;
    std::fill(out + lengths[w] * s, out + (gaps + 1) * s, T(0));
    return out;
  }
  // Word w's gap gradients [T-1] in gp_all [N,T-1], the gaps >= extent − 1 already set to 0.
  T* gap_grads(T* gp_all, int64_t w) const {
    T* gp = gp_all + w * gaps;
    std::fill(gp + std::max<int64_t>(lengths[w] - 1, 0), gp + gaps, T(0));
    return gp;
  }
};

// ---- Generic fused kernel (any S): one DP row at a time through a small scratch buffer. ----

// One DP row: cur[k] = prev[k]·q_k + prev[k−1]·p, q_k = 1 − p for k < S−1 and 1 for the sink.
// `shifted` is 0 followed by prev (S+1 values).
template <typename T>
inline void pb_step(const T* __restrict shifted, T p, int64_t s, T* __restrict cur) {
  const T q = T(1) - p;
  for (int64_t k = 0; k < s; ++k) {
    const T qk = k + 1 < s ? q : T(1);
    cur[k] = shifted[k + 1] * qk + shifted[k] * p;
  }
}

// Forward over words [begin, end): out rows j < len are f_j where mask[j] (else 0), rows
// >= len are 0. Each output element is written once; the DP state stays in `scratch`.
template <typename T>
void pb_forward_words(const PbBatch<T>& batch, int64_t begin, int64_t end, T* out_all) {
  const int64_t s = batch.s;
  std::vector<T> scratch(static_cast<size_t>(2 * (s + 1)));
  for (int64_t w = begin; w < end; ++w) {
    const auto [p, m, len] = batch.word(w);
    T* out = batch.output_rows(out_all, w);
    if (len == 0) continue;
    T* a = scratch.data();  // a, b: 0 then f (S+1 values), alternating rows
    T* b = a + s + 1;
    a[0] = b[0] = T(0);
    a[1] = T(1);
    std::fill(a + 2, a + s + 1, T(0));
    for (int64_t j = 0;; ++j) {
      T* o = out + j * s;
      for (int64_t k = 0; k < s; ++k) o[k] = m[j] ? a[k + 1] : T(0);
      if (j + 1 >= len) break;
      pb_step<T>(a, p[j], s, b + 1);
      std::swap(a, b);
    }
  }
}

// Backward over words [begin, end): recomputes the word's DP table in a small scratch buffer
// (cheaper than reading a saved [N,T,S] table back from memory), then the adjoint recursion
//   λ_{j−1}[k] = g'_{j−1}[k] + q_k λ_j[k] + p λ_j[k+1],  ∂L/∂p_{j−1} = Σ_{k<S−1}
//   f_{j−1}[k](λ_j[k+1] − λ_j[k])
// with g'_j = g_j where mask[j], else 0, and λ_j[S] = 0. Gaps >= len−1 get 0. g is [N,T,S]
// contiguous.
template <typename T>
void pb_backward_words(const PbBatch<T>& batch, const T* g_all, int64_t begin, int64_t end,
                       T* gp_all) {
  const int64_t s = batch.s, t = batch.gaps + 1, stride = s + 1;
  std::vector<T> tab(static_cast<size_t>(t * stride));  // rows: a leading 0, then f_j
  std::vector<T> lam_buf(static_cast<size_t>(2 * stride));
  for (int64_t w = begin; w < end; ++w) {
    const auto [p, m, len] = batch.word(w);
    const T* g = g_all + w * t * s;
    T* gp = batch.gap_grads(gp_all, w);
    if (len <= 1) continue;
    tab[0] = T(0);
    tab[1] = T(1);
    std::fill(tab.begin() + 2, tab.begin() + stride, T(0));
    for (int64_t j = 1; j < len - 1; ++j) {
      T* row = tab.data() + j * stride;
      row[0] = T(0);
      pb_step<T>(row - stride, p[j - 1], s, row + 1);
    }
    T* lam = lam_buf.data();  // λ_j[0..S−1], then λ_j[S] = 0
    T* next = lam + stride;
    lam[s] = next[s] = T(0);
    const T* glast = g + (len - 1) * s;
    for (int64_t k = 0; k < s; ++k) lam[k] = m[len - 1] ? glast[k] : T(0);
    for (int64_t j = len - 1; j >= 1; --j) {
      const T* prev = tab.data() + (j - 1) * stride + 1;
      const T pj = p[j - 1], qj = T(1) - pj;
      T acc = T(0);
      for (int64_t k = 0; k + 1 < s; ++k) acc += prev[k] * (lam[k + 1] - lam[k]);
      gp[j - 1] = acc;
      const T* gprev = g + (j - 1) * s;
      const bool valid = m[j - 1];  // a select, not g·0: g may be non-finite where masked
      for (int64_t k = 0; k < s; ++k) {
        const T qk = k + 1 < s ? qj : T(1);
        next[k] = (valid ? gprev[k] : T(0)) + qk * lam[k] + pj * lam[k + 1];
      }
      std::swap(lam, next);
    }
  }
}

// ---- Vector kernel for S = kPbFixedSegments (the paper's 12). ----
// A DP row of S values lives in kPbRowVecs registers of 16 bytes (GCC/Clang vector extensions:
// SSE2 on any x86-64, NEON on Arm): a step is two lane shuffles and a few multiply-adds per
// register, with no memory round trip and no dependent chain across k.

constexpr int64_t kPbFixedSegments = 12;

typedef float PbVecF __attribute__((vector_size(16)));
typedef double PbVecD __attribute__((vector_size(16)));
template <typename T>
struct PbVecOf;
template <>
struct PbVecOf<float> {
  using V = PbVecF;
};
template <>
struct PbVecOf<double> {
  using V = PbVecD;
};

// Lanes kFirst..kFirst+L−1 of the concatenation lo ++ hi (L lanes each): kFirst = L−1 moves
// value k−1 into slot k (the DP's "move" term), kFirst = 1 moves value k+1 into slot k (λ[k+1]
// of the adjoint).
template <int kFirst, typename V>
inline V pb_lanes(V lo, V hi) {
  if constexpr (sizeof(V) / sizeof(lo[0]) == 4) {
    return __builtin_shufflevector(lo, hi, kFirst, kFirst + 1, kFirst + 2, kFirst + 3);
  } else {
    return __builtin_shufflevector(lo, hi, kFirst, kFirst + 1);
  }
}

template <typename V, typename T>
inline V pb_load(const T* src) {
  V v;
  std::memcpy(&v, src, sizeof v);
  return v;
}

template <typename V, typename T>
inline void pb_store(T* dst, V v) {
  std::memcpy(dst, &v, sizeof v);
}

// Row geometry of the vector kernel for element type T.
template <typename T>
struct PbRow {
  using V = typename PbVecOf<T>::V;
  static constexpr int64_t kLanes = static_cast<int64_t>(sizeof(V) / sizeof(T));
  static constexpr int64_t kVecs = kPbFixedSegments / kLanes;
  static_assert(kPbFixedSegments % kLanes == 0, "S must fill whole vectors");
  static constexpr int kMoveLanes = static_cast<int>(kLanes) - 1;  // pb_lanes: value k−1 → slot k
  // 1 in the sink's lane (k = S−1, last lane of the last vector), 0 elsewhere.
  static V sink() {
    V v{};
    v[kLanes - 1] = T(1);
    return v;
  }
  // f ← f·q_k + f[k−1]·p in place (q_k = 1 − p, 1 for the sink).
  static void step(V* f, T p, V keep, V sink_lane) {
    const T q = T(1) - p;
    V up[kVecs];
    up[0] = pb_lanes<kMoveLanes>(V{}, f[0]);
    for (int64_t i = 1; i < kVecs; ++i) up[i] = pb_lanes<kMoveLanes>(f[i - 1], f[i]);
    for (int64_t i = 0; i + 1 < kVecs; ++i) f[i] = f[i] * q + up[i] * p;
    f[kVecs - 1] = f[kVecs - 1] * (keep * q + sink_lane) + up[kVecs - 1] * p;
  }
};

template <typename T>
void pb_forward_words_vec(const PbBatch<T>& batch, int64_t begin, int64_t end, T* out_all) {
  using Row = PbRow<T>;
  using V = typename Row::V;
  constexpr int64_t kS = kPbFixedSegments, kL = Row::kLanes, kNV = Row::kVecs;
  const V sink_lane = Row::sink(), keep = T(1) - sink_lane;
  for (int64_t w = begin; w < end; ++w) {
    const auto [p, m, len] = batch.word(w);
    T* out = batch.output_rows(out_all, w);
    if (len == 0) continue;
    V f[kNV] = {};
    f[0][0] = T(1);
    for (int64_t j = 0;; ++j) {
      T* o = out + j * kS;
      const V gate = V{} + (m[j] ? T(1) : T(0));
      for (int64_t i = 0; i < kNV; ++i) pb_store(o + i * kL, f[i] * gate);
      if (j + 1 >= len) break;
      Row::step(f, p[j], keep, sink_lane);
    }
  }
}

template <typename T>
void pb_backward_words_vec(const PbBatch<T>& batch, const T* g_all, int64_t begin, int64_t end,
                           T* gp_all) {
  using Row = PbRow<T>;
  using V = typename Row::V;
  constexpr int64_t kS = kPbFixedSegments, kL = Row::kLanes, kNV = Row::kVecs;
  const int64_t t = batch.gaps + 1;
  const V sink_lane = Row::sink(), keep = T(1) - sink_lane;
  std::vector<V> tab(static_cast<size_t>(t * kNV));  // f_j, rows of kNV vectors
  for (int64_t w = begin; w < end; ++w) {
    const auto [p, m, len] = batch.word(w);
    const T* g = g_all + w * t * kS;
    T* gp = batch.gap_grads(gp_all, w);
    if (w + 1 < end) {  // the next word's upstream rows, read last-to-first (no prefetcher
      const T* g_next = g + t * kS;  // follows that across words)
      for (int64_t b = 0; b < batch.lengths[w + 1] * kS * static_cast<int64_t>(sizeof(T));
           b += 64) {
        __builtin_prefetch(reinterpret_cast<const char*>(g_next) + b);
      }
    }
    if (len <= 1) continue;
    V f[kNV] = {};
    f[0][0] = T(1);
    for (int64_t j = 0;; ++j) {
      for (int64_t i = 0; i < kNV; ++i) tab[static_cast<size_t>(j * kNV + i)] = f[i];
      if (j + 2 >= len) break;  // rows 0..len−2 are read below
      Row::step(f, p[j], keep, sink_lane);
    }
    // Upstream rows of masked positions are skipped, never multiplied by 0 (they may hold inf).
    V lam[kNV] = {};
    if (m[len - 1]) {
      for (int64_t i = 0; i < kNV; ++i) lam[i] = pb_load<V>(g + (len - 1) * kS + i * kL);
    }
    for (int64_t j = len - 1; j >= 1; --j) {
      const V* prev = tab.data() + (j - 1) * kNV;
      const T pj = p[j - 1], qj = T(1) - pj;
      V down[kNV];  // λ[k+1], λ[S] = 0
      for (int64_t i = 0; i + 1 < kNV; ++i) down[i] = pb_lanes<1>(lam[i], lam[i + 1]);
      down[kNV - 1] = pb_lanes<1>(lam[kNV - 1], V{});
      // Σ_{k<S−1} f[k](λ[k+1] − λ[k]): the sink's lane is masked out.
      V acc = prev[kNV - 1] * (down[kNV - 1] - lam[kNV - 1]) * keep;
      for (int64_t i = 0; i + 1 < kNV; ++i) acc += prev[i] * (down[i] - lam[i]);
      T sum = T(0);
      for (int64_t l = 0; l < kL; ++l) sum += acc[l];
      gp[j - 1] = sum;
      for (int64_t i = 0; i + 1 < kNV; ++i) lam[i] = lam[i] * qj + down[i] * pj;
      lam[kNV - 1] = lam[kNV - 1] * (keep * qj + sink_lane) + down[kNV - 1] * pj;
      if (m[j - 1]) {
        const T* gprev = g + (j - 1) * kS;
        for (int64_t i = 0; i < kNV; ++i) lam[i] += pb_load<V>(gprev + i * kL);
      }
    }
  }
}

// Fused forward. probs [N,T-1] contiguous, mask [N,T] bool contiguous, lengths [N] from
// pb_dp_lengths -> [N,T,S].
torch::Tensor pb_forward_fused(const torch::Tensor& probs, const torch::Tensor& mask,
                               const torch::Tensor& lengths, int64_t s) {
  const int64_t n = probs.size(0), gaps = probs.size(1), t = gaps + 1;
  torch::Tensor out = torch::empty({n, t, s}, probs.options());
  AT_DISPATCH_FLOATING_TYPES(probs.scalar_type(), "pb_forward_fused", [&] {
    const PbBatch<scalar_t> batch{probs.data_ptr<scalar_t>(), mask.data_ptr<bool>(),
                                  lengths.data_ptr<int64_t>(), gaps, s};
    scalar_t* out_all = out.data_ptr<scalar_t>();
    at::parallel_for(0, n, kPbGrain, [&](int64_t begin, int64_t end) {
      if (s == kPbFixedSegments) {
        pb_forward_words_vec<scalar_t>(batch, begin, end, out_all);
      } else {
        pb_forward_words<scalar_t>(batch, begin, end, out_all);
      }
    });
  });
  return out;
}

// Fused backward: grad probs [N,T-1] from g = dL/dM [N,T,S] (any strides).
torch::Tensor pb_backward_fused(const torch::Tensor& g_in, const torch::Tensor& probs,
                                const torch::Tensor& mask, const torch::Tensor& lengths) {
  torch::Tensor g = g_in.contiguous();
  const int64_t n = probs.size(0), gaps = probs.size(1), s = g.size(2);
  torch::Tensor grad_p = torch::empty_like(probs);
  AT_DISPATCH_FLOATING_TYPES(probs.scalar_type(), "pb_backward_fused", [&] {
    const PbBatch<scalar_t> batch{probs.data_ptr<scalar_t>(), mask.data_ptr<bool>(),
                                  lengths.data_ptr<int64_t>(), gaps, s};
    const scalar_t* g_all = g.data_ptr<scalar_t>();
    scalar_t* gp_all = grad_p.data_ptr<scalar_t>();
    at::parallel_for(0, n, kPbGrain, [&](int64_t begin, int64_t end) {
      if (s == kPbFixedSegments) {
        pb_backward_words_vec<scalar_t>(batch, g_all, begin, end, gp_all);
      } else {
        pb_backward_words<scalar_t>(batch, g_all, begin, end, gp_all);
      }
    });
  });
  return grad_p;
}

struct PoissonBinomialFunction : public torch::autograd::Function<PoissonBinomialFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& probs,
                               const torch::Tensor& mask, int64_t s, bool fused) {
    if (!fused) {
      torch::Tensor table = pb_forward_tensor_ops(probs, s);
      ctx->save_for_backward({probs, table, mask});
      ctx->saved_data["fused"] = false;
      return table * mask.unsqueeze(-1).to(probs.scalar_type());
    }
    // Only probs, mask and the per-word extents are kept: the backward recomputes each word's
    // DP table in cache instead of saving (and re-reading) an [N,T,S] table.
    TORCH_CHECK(probs.device().is_cpu(), "fused Poisson-binomial kernel needs CPU tensors");
    torch::Tensor p = probs.contiguous();
    torch::Tensor m = mask.contiguous();
    torch::Tensor lengths = torch::empty({m.size(0)}, torch::kLong);
    pb_dp_lengths(m.data_ptr<bool>(), m.size(0), m.size(1), lengths.data_ptr<int64_t>());
    ctx->save_for_backward({p, m, lengths});
    ctx->saved_data["fused"] = true;
    return pb_forward_fused(p, m, lengths, s);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const variable_list saved = ctx->get_saved_variables();
    torch::Tensor grad_p;
    if (ctx->saved_data["fused"].toBool()) {
      grad_p = pb_backward_fused(grad_outputs[0], saved[0], saved[1], saved[2]);
    } else {
      const torch::Tensor& probs = saved[0];
      const torch::Tensor& table = saved[1];
      const torch::Tensor& mask = saved[2];
      // A select, not g·mask: upstream values of masked positions may be non-finite.
      torch::Tensor g = grad_outputs[0].masked_fill(mask.logical_not().unsqueeze(-1), 0.0);
      grad_p = pb_backward_tensor_ops(g, table, probs);
    }
    return {grad_p, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

void check_pb_inputs(const torch::Tensor& probs, const torch::Tensor& mask, int64_t s) {
  TORCH_CHECK(probs.dim() == 2, "probs must be [N,T-1], got ", probs.sizes());
  TORCH_CHECK(probs.is_floating_point(), "probs must be floating point, got ", probs.dtype());
  TORCH_CHECK(mask.dim() == 2 && mask.dtype() == torch::kBool && mask.size(0) == probs.size(0) &&
                  mask.size(1) == probs.size(1) + 1,
              "mask must be bool [N,T] = [", probs.size(0), ",", probs.size(1) + 1, "], got ",
              mask.sizes(), " ", mask.dtype());
  TORCH_CHECK(s >= 2, "num_segments must be >= 2, got ", s);
}

}  // namespace

torch::Tensor soft_membership(const torch::Tensor& probs, const torch::Tensor& mask,
                              int64_t num_segments, SegmentationKernel kernel) {
  check_pb_inputs(probs, mask, num_segments);
  bool fused = false;
  switch (kernel) {
    case SegmentationKernel::kAuto:
      fused = probs.device().is_cpu();
      break;
    case SegmentationKernel::kTensorOps:
      fused = false;
      break;
    case SegmentationKernel::kFused:
      TORCH_CHECK(probs.device().is_cpu(), "SegmentationKernel::kFused needs CPU tensors");
      fused = true;
      break;
  }
  return PoissonBinomialFunction::apply(probs, mask, num_segments, fused);
}

torch::Tensor soft_membership_naive(const torch::Tensor& probs, const torch::Tensor& mask,
                                    int64_t num_segments) {
  check_pb_inputs(probs, mask, num_segments);
  const int64_t n = probs.size(0), t = probs.size(1) + 1, s = num_segments;
  torch::Tensor f =
      torch::nn::functional::one_hot(torch::zeros({n}, torch::kLong), s).to(probs.options());
  std::vector<torch::Tensor> rows{f};
  for (int64_t j = 1; j < t; ++j) {
    torch::Tensor p = probs.slice(1, j - 1, j);
    torch::Tensor head = f.slice(1, 0, s - 1);
    torch::Tensor stay =
        torch::nn::functional::pad(head * (1 - p), torch::nn::functional::PadFuncOptions({0, 1}));
    torch::Tensor move =
        torch::nn::functional::pad(head * p, torch::nn::functional::PadFuncOptions({1, 0}));
    torch::Tensor sink = torch::nn::functional::pad(
        f.slice(1, s - 1, s), torch::nn::functional::PadFuncOptions({s - 1, 0}));
    f = stay + move + sink;
    rows.push_back(f);
  }
  return torch::stack(rows, 1) * mask.unsqueeze(-1).to(probs.dtype());
}

}  // namespace morpheus::model
