// SPDX-License-Identifier: MIT
// Float kernels: own `omp simd` loops (exp and GELU written with float
// arithmetic and bit operations only, so that they vectorise) in the widest vectors of the CPU.
#include "engine/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/arith.h"
#include "engine/simd.h"

namespace morpheus::engine::kernels {
namespace {

// exp(x): x = n·ln2 + r with |r| <= ln2/2, e^r by its Taylor polynomial of degree 7 (error below
// 6e-9 relative), 2^n built in the exponent bits. x is clamped to [−87.3, 88.3], so the result
// is never subnormal.
__attribute__((always_inline)) inline float exp_one(float x) {
  x = std::min(std::max(x, -87.3f), 88.3f);
  const float magic = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
  const float t = x * 1.44269504f + magic;
  const float n = t - magic;
  int32_t t_bits = 0, magic_bits = 0;
  std::memcpy(&t_bits, &t, sizeof(t));
  std::memcpy(&magic_bits, &magic, sizeof(magic));
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t scale_bits = (t_bits - magic_bits + 127) * (1 << 23);
  float scale = 0;
  std::memcpy(&scale, &scale_bits, sizeof(scale));
  return p * scale;
}

// GELU(x) = x/2·(1 + erf(x/√2)); erf(z) = 1 − (a1·t + … + a5·t⁵)·e^(−z²), t = 1/(1 + p·z), for
// z >= 0 (Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7), odd in z. e^(−z²) stops at e^(−80),
// where erf is 1 in float, so no step is subnormal.
__attribute__((always_inline)) inline float gelu_one(float x) {
  const float u = x * 0.70710678118654752f;
  const float z = std::fabs(u);
  const float t = 1.0f / (z * 0.3275911f + 1.0f);
  float poly = 1.061405429f;
  poly = poly * t - 1.453152027f;
  poly = poly * t + 1.421413741f;
  poly = poly * t - 0.284496736f;
  poly = poly * t + 0.254829592f;
  const float erf_abs = 1.0f - poly * t * exp_one(-std::min(z * z, 80.0f));
  return x * 0.5f * (std::copysign(erf_abs, u) + 1.0f);
}

// The rotate-half RoPE of one head row: out[i] = x[i]·cos[i] + rot[i]·sin[i],
// rot = (−x[h:], x[:h]).
__attribute__((always_inline)) inline void rope_row(const float* x, const float* cos,
                                                    const float* sin, size_t dh, float* out) {
  const size_t half = dh / 2;
#pragma omp simd
  for (size_t i = 0; i < half; ++i) out[i] = x[i] * cos[i] + -x[i + half] * sin[i];
#pragma omp simd
  for (size_t i = half; i < dh; ++i) out[i] = x[i] * cos[i] + x[i - half] * sin[i];
}

// Own loops run in chunks of kChunk values (a fixed trip count vectorises without prologue or
// epilogue), then one by one.
constexpr size_t kChunk = 16;

__attribute__((always_inline)) inline float dot_inline(const float* a, const float* b, size_t n) {
  float acc[kChunk] = {};
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
#pragma omp simd
    for (size_t l = 0; l < kChunk; ++l) acc[l] += a[i + l] * b[i + l];
  }
  float sum = 0;
  for (; i < n; ++i) sum += a[i] * b[i];
#pragma omp simd reduction(+ : sum)
  for (size_t l = 0; l < kChunk; ++l) sum += acc[l];
  return sum;
}

size_t padded(size_t t) { return round_up(t, kChunk); }

// Queries of one head computed together: their sums are independent chains of fused
// multiply-adds (one query alone waits on the latency of each multiply-add). Each value is summed
// in the same order as one query alone would sum it, so the grouping does not change a bit.
constexpr size_t kQueries = 4;

size_t padded_queries(size_t t) { return round_up(t, kQueries); }

// acc[r][l] = Σ_i a[r·a_stride + i]·b[i·b_stride + l] for the kQueries rows r and the kChunk
// columns l, i = 0 … len − 1 in increasing order: a tile of sums in registers.
__attribute__((always_inline)) inline void tile_sums(const float* a, size_t a_stride,
                                                     const float* b, size_t b_stride, size_t len,
                                                     float (&acc)[kQueries][kChunk]) {
  for (float(&row)[kChunk] : acc) std::fill(row, row + kChunk, 0.0f);
  for (size_t i = 0; i < len; ++i) {
    const float* bi = b + i * b_stride;
    for (size_t r = 0; r < kQueries; ++r) {
      const float ar = a[r * a_stride + i];
#pragma omp simd
      for (size_t l = 0; l < kChunk; ++l) acc[r][l] += ar * bi[l];
    }
  }
}

// out[r][e] = Σ_j w[r][j]·v[j·v_stride + e] for e < n and the first `rows` of the kQueries rows
// r of w (stride w_stride; all kQueries are read) into rows of stride out_stride.
__attribute__((always_inline)) inline void weighted_rows(const float* w, size_t w_stride,
                                                         const float* v, size_t t, size_t v_stride,
                                                         size_t n, size_t rows, float* out,
                                                         size_t out_stride) {
  size_t e0 = 0;
  for (; e0 + kChunk <= n; e0 += kChunk) {
    float acc[kQueries][kChunk];
    tile_sums(w, w_stride, v + e0, v_stride, t, acc);
    for (size_t r = 0; r < rows; ++r) std::copy_n(acc[r], kChunk, out + r * out_stride + e0);
  }
  for (; e0 < n; ++e0) {
    for (size_t r = 0; r < rows; ++r) {
      float acc = 0;
      for (size_t j = 0; j < t; ++j) acc += w[r * w_stride + j] * v[j * v_stride + e0];
      out[r * out_stride + e0] = acc;
    }
  }
}

// Scores of kQueries queries q [kQueries, dh] against the rotated keys transposed kt [dh, tp]:
// rows [kQueries, tp] = q·kt/√dh.
__attribute__((always_inline)) inline void query_scores(const float* q, const float* kt, size_t dh,
                                                        size_t tp, float root, float* rows) {
  for (size_t j0 = 0; j0 < tp; j0 += kChunk) {
    float acc[kQueries][kChunk];
    tile_sums(q, dh, kt + j0, tp, dh, acc);
    for (size_t r = 0; r < kQueries; ++r) {
#pragma omp simd
      for (size_t l = 0; l < kChunk; ++l) rows[r * tp + j0 + l] = acc[r][l] / root;
    }
  }
}

// One head of one word: out[i] (rows of stride out_stride) = Σ_j softmax_j(q_i·k_j/√dh)·v_j for
// q rotated [tq, dh] (tq = padded_queries(t), rows >= t zero), kt the rotated keys transposed
// [dh, tp] (columns >= t zero, tp = padded(t)), v rows of stride v_stride; scores [tq, tp]
// scratch. The scores accumulate over dh in vectors of keys (no horizontal sums); exp runs once
// over all of them.
__attribute__((always_inline)) inline void attend_head(const float* q, const float* kt,
                                                       const float* v, size_t t, size_t dh,
                                                       size_t v_stride, float* scores, float* out,
                                                       size_t out_stride) {
  const float root = std::sqrt(static_cast<float>(dh));
  const size_t tp = padded(t), tq = padded_queries(t);
  for (size_t i0 = 0; i0 < tq; i0 += kQueries) {
    query_scores(q + i0 * dh, kt, dh, tp, root, scores + i0 * tp);
  }
  for (size_t i = 0; i < t; ++i) {
    float* row = scores + i * tp;
    float max_score = -std::numeric_limits<float>::infinity();
    for (size_t j = 0; j < t; ++j) max_score = std::max(max_score, row[j]);
#pragma omp simd
    for (size_t j = 0; j < tp; ++j) row[j] -= max_score;
  }
  const size_t n = t * tp;
#pragma omp simd
  for (size_t x = 0; x < n; ++x) scores[x] = exp_one(scores[x]);
  for (size_t i = 0; i < t; ++i) {
    float* row = scores + i * tp;
    float sum = 0;
    for (size_t j = 0; j < t; ++j) sum += row[j];
    for (size_t j = 0; j < t; ++j) row[j] /= sum;
  }
  for (size_t i0 = 0; i0 < t; i0 += kQueries) {
    weighted_rows(scores + i0 * tp, tp, v, t, v_stride, dh, std::min(kQueries, t - i0),
                  out + i0 * out_stride, out_stride);
  }
}

// One row of LayerNorm over n values: y = (x − mean)/√(var + eps)·gamma + beta; y may be x.
__attribute__((always_inline)) inline void layer_norm_row(const float* x, size_t n,
                                                          const float* gamma, const float* beta,
                                                          float eps, float* y) {
  const float inv_n = 1.0f / static_cast<float>(n);
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (size_t i = 0; i < n; ++i) sum += x[i];
  const float mean = sum * inv_n;
  float sq = 0;
#pragma omp simd reduction(+ : sq)
  for (size_t i = 0; i < n; ++i) sq += (x[i] - mean) * (x[i] - mean);
  const float inv = 1.0f / std::sqrt(sq * inv_n + eps);
#pragma omp simd
  for (size_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
}

}  // namespace

MORPHEUS_SIMD_CLONES
void bias_gelu(float* x, size_t rows, size_t n, const float* bias) {
  for (size_t r = 0; r < rows; ++r) {
    float* xr = x + r * n;
#pragma omp simd
    for (size_t i = 0; i < n; ++i) xr[i] = gelu_one(xr[i] + bias[i]);
  }
}

MORPHEUS_SIMD_CLONES
void bias_residual(float* h, const float* a, size_t rows, size_t n, const float* bias) {
  for (size_t r = 0; r < rows; ++r) {
    float* hr = h + r * n;
    const float* ar = a + r * n;
#pragma omp simd
    for (size_t i = 0; i < n; ++i) hr[i] += ar[i] + bias[i];
  }
}

MORPHEUS_SIMD_CLONES
void residual_layer_norm(float* h, const float* a, size_t rows, size_t n, const float* bias,
                         const float* gamma, const float* beta, float eps) {
  for (size_t r = 0; r < rows; ++r) {
    float* hr = h + r * n;
    const float* ar = a + r * n;
    if (bias != nullptr) {
#pragma omp simd
      for (size_t i = 0; i < n; ++i) hr[i] += ar[i] + bias[i];
    } else {
#pragma omp simd
      for (size_t i = 0; i < n; ++i) hr[i] += ar[i];
    }
    layer_norm_row(hr, n, gamma, beta, eps, hr);
  }
}

MORPHEUS_SIMD_CLONES
void layer_norm_rows(const float* x, size_t rows, size_t n, const float* gamma, const float* beta,
                     float eps, float* y) {
  for (size_t r = 0; r < rows; ++r) layer_norm_row(x + r * n, n, gamma, beta, eps, y + r * n);
}

MORPHEUS_SIMD_CLONES
void exp_inplace(float* x, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) x[i] = exp_one(x[i]);
}

MORPHEUS_SIMD_CLONES
float dot(const float* a, const float* b, size_t n) { return dot_inline(a, b, n); }

size_t attention_scratch_size(size_t t, size_t dh) {
  const size_t tq = padded_queries(t);
  return tq * dh + dh * padded(t) + tq * padded(t) + dh;
}

MORPHEUS_SIMD_CLONES
void rope_attention(const float* qkv, size_t t, size_t d, size_t heads, const float* cos,
                    const float* sin, float* scratch, float* out) {
  const size_t dh = d / heads, stride = 3 * d, tp = padded(t), tq = padded_queries(t);
  float* q = scratch;             // [tq, dh]
  float* kt = q + tq * dh;        // [dh, tp]
  float* scores = kt + dh * tp;   // [tq, tp]
  float* key = scores + tq * tp;  // [dh]
  std::fill(q + t * dh, q + tq * dh, 0.0f);
  for (size_t e = 0; e < dh; ++e) std::fill(kt + e * tp + t, kt + (e + 1) * tp, 0.0f);
  for (size_t h = 0; h < heads; ++h) {
    for (size_t j = 0; j < t; ++j) {
      const float* row = qkv + j * stride + h * dh;
      rope_row(row, cos + j * dh, sin + j * dh, dh, q + j * dh);
      rope_row(row + d, cos + j * dh, sin + j * dh, dh, key);
      for (size_t e = 0; e < dh; ++e) kt[e * tp + j] = key[e];
    }
    attend_head(q, kt, qkv + 2 * d + h * dh, t, dh, stride, scores, out + h * dh, d);
  }
}

}  // namespace morpheus::engine::kernels
