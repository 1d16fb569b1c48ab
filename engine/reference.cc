// SPDX-License-Identifier: MIT
// The double-precision path (see reference.h). Compiled with -ffp-contract=off (engine/CMakeLists).
// Activations are feature-major, [features][tp], tp = the word's positions rounded up to a
// multiple of kCols (the extra columns are never read by a valid position). Every sum runs in
// the order written; the vector versions of a function only do the same operations on several
// independent outputs at once, so every version gives the same bits.
#include "engine/reference.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "core/arith.h"
#include "engine/simd.h"

namespace morpheus::engine {
namespace {

using Matrix = std::vector<double>;  // [features][tp]

constexpr size_t kRows = 4;        // output features per tile of linear()
constexpr size_t kCols = 4;        // positions per column group; tp is a multiple
constexpr size_t kTileGroups = 4;  // column groups per tile (16 positions)

// kCols doubles, one column group (GCC's vector extension: each lane an IEEE double operation).
typedef double ColumnGroup __attribute__((vector_size(kCols * sizeof(double))));
static_assert(kCols == 4, "the column groups below are written out as four lanes");

// Rows [o, o + R) of y over positions [i0, i0 + G·kCols): the sums over k in registers, then the
// bias added.
template <size_t R, size_t G>
__attribute__((always_inline)) inline void linear_tile(const float* w, size_t ldw,
                                                       const float* bias, size_t o, size_t in,
                                                       const double* x, size_t tp, size_t i0,
                                                       double* y) {
  ColumnGroup acc[R][G] = {};
  for (size_t k = 0; k < in; ++k) {
    ColumnGroup xk[G];
    for (size_t g = 0; g < G; ++g) std::memcpy(&xk[g], x + k * tp + i0 + g * kCols, sizeof(xk[g]));
    for (size_t r = 0; r < R; ++r) {
      const double wr = w[(o + r) * ldw + k];
      const ColumnGroup wv = {wr, wr, wr, wr};
      for (size_t g = 0; g < G; ++g) acc[r][g] = acc[r][g] + wv * xk[g];
    }
  }
  for (size_t r = 0; r < R; ++r) {
    if (bias != nullptr) {
      const double b = bias[o + r];
      const ColumnGroup bv = {b, b, b, b};
      for (size_t g = 0; g < G; ++g) acc[r][g] = acc[r][g] + bv;
    }
    std::memcpy(y + (o + r) * tp + i0, acc[r], sizeof(acc[r]));
  }
}

template <size_t R>
__attribute__((always_inline)) inline void linear_rows(const float* w, size_t ldw,
                                                       const float* bias, size_t o, size_t in,
                                                       const double* x, size_t tp, double* y) {
  for (size_t i0 = 0; i0 < tp; i0 += kTileGroups * kCols) {
    switch (std::min(kTileGroups, (tp - i0) / kCols)) {
      case 1:
        linear_tile<R, 1>(w, ldw, bias, o, in, x, tp, i0, y);
        break;
      case 2:
        linear_tile<R, 2>(w, ldw, bias, o, in, x, tp, i0, y);
        break;
      case 3:
        linear_tile<R, 3>(w, ldw, bias, o, in, x, tp, i0, y);
        break;
      default:
        linear_tile<R, 4>(w, ldw, bias, o, in, x, tp, i0, y);
        break;
    }
  }
}

// y[o][i] = (Σ_k w[o][k]·x[k][i], k ascending) + bias[o] for all tp positions; w [out, in] with
// row stride ldw. Tiles of kRows features × up to 16 positions keep their sums in registers.
MORPHEUS_SIMD_CLONES
void linear(const float* w, size_t ldw, const float* bias, size_t out, size_t in, const double* x,
            size_t tp, double* y) {
  size_t o = 0;
  for (; o + kRows <= out; o += kRows) linear_rows<kRows>(w, ldw, bias, o, in, x, tp, y);
  for (; o < out; ++o) linear_rows<1>(w, ldw, bias, o, in, x, tp, y);
}

double gelu_exact(double x) { return 0.5 * x * (1.0 + reference_erf(x * 0.70710678118654752440)); }

// GELU of the first t positions of every feature row of x [n][tp].
void gelu_rows(double* x, size_t n, size_t t, size_t tp) {
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < t; ++i) x[k * tp + i] = gelu_exact(x[k * tp + i]);
  }
}

// x [n][tp] = LayerNorm over the n features of each of the first t positions, in place.
void layer_norm(double* x, size_t n, size_t t, size_t tp, const LayerNormWeights& w, double eps) {
  std::vector<double> mean(t, 0.0), var(t, 0.0);
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < t; ++i) mean[i] += x[k * tp + i];
  }
  for (size_t i = 0; i < t; ++i) mean[i] /= static_cast<double>(n);
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < t; ++i) {
      const double c = x[k * tp + i] - mean[i];
      var[i] += c * c;
    }
  }
  for (size_t i = 0; i < t; ++i) var[i] = 1.0 / std::sqrt(var[i] / static_cast<double>(n) + eps);
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < t; ++i) {
      x[k * tp + i] = (x[k * tp + i] - mean[i]) * var[i] * static_cast<double>(w.gamma[k]) +
                      static_cast<double>(w.beta[k]);
    }
  }
}

// Character ⊕ case embedding, then embed_proj: [D][tp].
Matrix embed(const Model& m, const WordIds& word, size_t tp) {
  const size_t t = word.positions();
  const size_t ec = static_cast<size_t>(m.config().char_embed_dim);
  const size_t ek = static_cast<size_t>(m.config().case_embed_dim);
  Matrix e((ec + ek) * tp, 0.0), h(m.dim * tp);
  for (size_t i = 0; i < t; ++i) {
    const size_t id = static_cast<size_t>(word.ids[i]), flag = word.cases[i];
    for (size_t k = 0; k < ec; ++k) e[k * tp + i] = m.char_embedding[id * ec + k];
    for (size_t k = 0; k < ek; ++k) e[(ec + k) * tp + i] = m.case_embedding[flag * ek + k];
  }
  linear(m.embed_proj, ec + ek, m.embed_proj_bias, m.dim, ec + ek, e.data(), tp, h.data());
  return h;
}

// h = LayerNorm(h + GELU(conv(h))): width k reads positions i − ⌊k/2⌋ … (zero outside the word),
// as a linear layer over the window rows (feature d, tap j) in the weight's order d·k + j.
void convolution(const Model& m, Matrix* h, size_t t, size_t tp) {
  const model::ModelConfig& c = m.config();
  const size_t d = m.dim, channels = static_cast<size_t>(c.cnn_channels);
  Matrix y(d * tp, 0.0);
  for (size_t ki = 0; ki < c.cnn_kernels.size(); ++ki) {
    const size_t k = static_cast<size_t>(c.cnn_kernels[ki]), pad = k / 2;
    Matrix window(d * k * tp, 0.0);
    for (size_t e = 0; e < d; ++e) {
      for (size_t j = 0; j < k; ++j) {
        double* row = &window[(e * k + j) * tp];
        for (size_t i = 0; i < t; ++i) {
          if (i + j >= pad && i + j - pad < t) row[i] = (*h)[e * tp + i + j - pad];
        }
      }
    }
    linear(m.conv_weight[ki], d * k, m.conv_bias[ki], channels, d * k, window.data(), tp,
           &y[ki * channels * tp]);
  }
  gelu_rows(y.data(), d, t, tp);
  for (size_t i = 0; i < d * tp; ++i) (*h)[i] += y[i];
  layer_norm(h->data(), d, t, tp, m.cnn_norm, model::ModelConfig::kLayerNormEps);
}

// RoPE of head rows x [dh][tp] at positions 0..t−1, in place.
void rope(double* x, size_t dh, size_t t, size_t tp, const float* cos, const float* sin) {
  const size_t half = dh / 2;
  std::vector<double> out(dh * t);
  for (size_t e = 0; e < dh; ++e) {
    for (size_t i = 0; i < t; ++i) {
      const double rot = e < half ? -x[(e + half) * tp + i] : x[(e - half) * tp + i];
      out[e * t + i] = x[e * tp + i] * static_cast<double>(cos[i * dh + e]) +
                       rot * static_cast<double>(sin[i * dh + e]);
    }
  }
  for (size_t e = 0; e < dh; ++e) std::copy_n(&out[e * t], t, &x[e * tp]);
}

// One head: out [dh][tp] = softmax(q·kᵀ/√dh)·v for q, k (rotated), v [dh][tp], t positions.
void attend(const double* q, const double* k, const double* v, size_t dh, size_t t, size_t tp,
            double* out) {
  const double root = std::sqrt(static_cast<double>(dh));
  std::vector<double> s(t);
  for (size_t i = 0; i < t; ++i) {
    std::fill(s.begin(), s.end(), 0.0);
    for (size_t e = 0; e < dh; ++e) {
      for (size_t j = 0; j < t; ++j) s[j] += q[e * tp + i] * k[e * tp + j];
    }
    double max_score = -HUGE_VAL;
    for (size_t j = 0; j < t; ++j) max_score = std::max(max_score, s[j] / root);
    double sum = 0;
    for (size_t j = 0; j < t; ++j) {
      s[j] = reference_exp(s[j] / root - max_score);
      sum += s[j];
    }
    for (size_t j = 0; j < t; ++j) s[j] /= sum;
    for (size_t e = 0; e < dh; ++e) {
      double acc = 0;
      for (size_t j = 0; j < t; ++j) acc += s[j] * v[e * tp + j];
      out[e * tp + i] = acc;
    }
  }
}

// h = LayerNorm(h + proj(attention(qkv(h)))).
void attention_layer(const Model& m, const AttentionWeights& w, Matrix* h, size_t t, size_t tp) {
  const size_t d = m.dim, dh = m.head_dim;
  Matrix qkv(3 * d * tp), heads(d * tp, 0.0), a(d * tp);
  linear(w.qkv, d, nullptr, 3 * d, d, h->data(), tp, qkv.data());
  for (size_t hd = 0; hd < m.heads; ++hd) {
    double* q = &qkv[hd * dh * tp];
    double* k = &qkv[(d + hd * dh) * tp];
    rope(q, dh, t, tp, w.cos, w.sin);
    rope(k, dh, t, tp, w.cos, w.sin);
    attend(q, k, &qkv[(2 * d + hd * dh) * tp], dh, t, tp, &heads[hd * dh * tp]);
  }
  linear(w.proj, d, w.proj_bias, d, d, heads.data(), tp, a.data());
  for (size_t i = 0; i < d * tp; ++i) (*h)[i] += a[i];
  layer_norm(h->data(), d, t, tp, w.norm, model::ModelConfig::kLayerNormEps);
}

// h = h + W2·GELU(W1·LayerNorm(h) + b1) + b2.
void ffn_layer(const Model& m, const FfnWeights& w, Matrix* h, size_t t, size_t tp) {
  const size_t d = m.dim, f = m.ffn_dim;
  Matrix x(*h), u(f * tp), y(d * tp);
  layer_norm(x.data(), d, t, tp, w.norm, model::ModelConfig::kLayerNormEps);
  linear(w.w1, d, w.b1, f, d, x.data(), tp, u.data());
  gelu_rows(u.data(), f, t, tp);
  linear(w.w2, f, w.b2, d, f, u.data(), tp, y.data());
  for (size_t i = 0; i < d * tp; ++i) (*h)[i] += y[i];
}

// The last detector layer's gap scorer on pairs (h_g, h_g+1) of h [D][tp]: logits [t−1].
std::vector<double> score_gaps(const Model& m, const Matrix& h, size_t t, size_t tp) {
  const size_t d = m.dim, g = t - 1, gp = tp;
  Matrix pairs(2 * d * gp, 0.0), s(d * gp);
  for (size_t e = 0; e < d; ++e) {
    for (size_t i = 0; i < g; ++i) {
      pairs[e * gp + i] = h[e * tp + i];
      pairs[(d + e) * gp + i] = h[e * tp + i + 1];
    }
  }
  linear(m.scorer.w0, 2 * d, m.scorer.b0, d, 2 * d, pairs.data(), gp, s.data());
  gelu_rows(s.data(), d, g, gp);
  std::vector<double> logits(g, 0.0);
  for (size_t e = 0; e < d; ++e) {
    const double w = m.scorer.w2[e];
    for (size_t i = 0; i < g; ++i) logits[i] += w * s[e * gp + i];
  }
  for (double& v : logits) v += static_cast<double>(m.scorer.b2);
  return logits;
}

// 2/√π·(−1)^n / (n!·(2n+1)), n = 0..39: the Maclaurin coefficients of erf in z².
const std::array<double, 40>& erf_series() {
  static const std::array<double, 40> coefficients = [] {
    std::array<double, 40> c{};
    double factorial = 1;
    for (size_t n = 0; n < c.size(); ++n) {
      if (n > 0) factorial *= static_cast<double>(n);
      const double sign = n % 2 == 0 ? 1.0 : -1.0;
      c[n] = sign / (factorial * static_cast<double>(2 * n + 1)) * 1.12837916709551257390;
    }
    return c;
  }();
  return coefficients;
}

// erf(z), z >= 0, from its definitions (slow): the Maclaurin series below 2.5, the continued
// fraction of erfc from 2.5 to 6, 1 beyond.
double erf_by_series(double z) {
  if (z < 2.5) {
    const std::array<double, 40>& c = erf_series();
    const double z2 = z * z;
    double p = c.back();
    for (size_t n = c.size() - 1; n-- > 0;) p = p * z2 + c[n];
    return z * p;
  }
  if (z >= 6.0) return 1.0;
  // erfc z = e^(−z²)/√π · 1/(z + (1/2)/(z + 1/(z + (3/2)/(z + …)))), 25 levels.
  double f = z;
  for (int n = 25; n >= 1; --n) f = z + (n * 0.5) / f;
  return 1.0 - reference_exp(-z * z) * 0.56418958354775628695 / f;
}

// erf on [0, 6) as Taylor polynomials of degree kErfDegree around the centres of intervals of
// width kErfStep: erf(c + h) = erf(c) + 2/√π·e^(−c²)·Σ_{n>=1} (−1)^(n−1)·H_(n−1)(c)·hⁿ/n!, with
// the Hermite polynomials H_(m+1) = 2c·H_m − 2m·H_(m−1). Built once, with the same operations
// on every machine.
constexpr size_t kErfDegree = 10;
constexpr double kErfStep = 0.125;
constexpr size_t kErfIntervals = 48;  // up to 6

using ErfTable = std::array<std::array<double, kErfDegree + 1>, kErfIntervals>;

const ErfTable& erf_table() {
  static const ErfTable table = [] {
    ErfTable t{};
    for (size_t i = 0; i < kErfIntervals; ++i) {
      const double c = (static_cast<double>(i) + 0.5) * kErfStep;
      const double g = 1.12837916709551257390 * reference_exp(-c * c);
      t[i][0] = erf_by_series(c);
      double previous = 0, hermite = 1, factorial = 1;  // H_(n−2), H_(n−1), n!
      for (size_t n = 1; n <= kErfDegree; ++n) {
        factorial *= static_cast<double>(n);
        const double sign = n % 2 == 1 ? 1.0 : -1.0;
        t[i][n] = g * sign * hermite / factorial;
        const double next = 2 * c * hermite - 2 * static_cast<double>(n - 1) * previous;
        previous = hermite;
        hermite = next;
      }
    }
    return t;
  }();
  return table;
}

}  // namespace

double reference_exp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.0) return HUGE_VAL;
  if (x < -745.0) return 0.0;
  // x = k·ln2 + r, |r| <= ln2/2 (ln2 split in a high part exact in k·ln2_hi and a low part).
  const double k = std::floor(x * 1.4426950408889634 + 0.5);
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  // e^r by its Taylor polynomial of degree 13 (error below 1e-17), Horner from the top.
  static const double kInverseFactorials[] = {1.0 / 479001600,
                                              1.0 / 39916800,
                                              1.0 / 3628800,
                                              1.0 / 362880,
                                              1.0 / 40320,
                                              1.0 / 5040,
                                              1.0 / 720,
                                              1.0 / 120,
                                              1.0 / 24,
                                              1.0 / 6,
                                              0.5,
                                              1.0,
                                              1.0};
  double p = 1.0 / 6227020800.0;
  for (double c : kInverseFactorials) p = p * r + c;
  return std::ldexp(p, static_cast<int>(k));
}

double reference_erf(double x) {
  if (std::isnan(x)) return x;
  const double z = std::fabs(x);
  double r = 1.0;
  if (z < kErfStep) {
    // The first 8 terms of the Maclaurin series (the next one is below 1e-20 here): odd, exact 0.
    const std::array<double, 40>& c = erf_series();
    const double z2 = z * z;
    r = c[7];
    for (size_t n = 7; n-- > 0;) r = r * z2 + c[n];
    r *= z;
  } else if (z < kErfStep * kErfIntervals) {
    const size_t i = static_cast<size_t>(z / kErfStep);
    const double h = z - (static_cast<double>(i) + 0.5) * kErfStep;
    const std::array<double, kErfDegree + 1>& a = erf_table()[i];
    r = a[kErfDegree];
    for (size_t n = kErfDegree; n-- > 0;) r = r * h + a[n];
  }
  return x < 0 ? -r : r;
}

std::vector<double> reference_gap_logits(const Model& m, const WordIds& word) {
  const size_t t = word.positions(), d = m.dim;
  const size_t tp = round_up(t, kCols);
  const double eps = model::ModelConfig::kLayerNormEps;
  Matrix h = embed(m, word, tp);
  convolution(m, &h, t, tp);
  for (size_t l = 0; l < m.encoder_attention.size(); ++l) {
    attention_layer(m, m.encoder_attention[l], &h, t, tp);
    ffn_layer(m, m.encoder_ffn[l], &h, t, tp);
  }
  layer_norm(h.data(), d, t, tp, m.final_norm, eps);
  for (size_t l = 0; l < m.detector_attention.size(); ++l) {
    attention_layer(m, m.detector_attention[l], &h, t, tp);
    ffn_layer(m, m.detector_ffn[l], &h, t, tp);
  }
  return score_gaps(m, h, t, tp);
}

}  // namespace morpheus::engine
