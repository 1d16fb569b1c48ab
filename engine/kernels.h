// SPDX-License-Identifier: MIT
// Float kernels of the engine's forward pass, all its own (no BLAS): a row-stable matrix product,
// loops for the element-wise stages (bias, GELU, residual, LayerNorm), exp and one word's RoPE
// self-attention.
// Row-major throughout; every row of an output depends on the same row of the inputs only
// (attention: on the word's own rows only).
#pragma once

#include <cstddef>

namespace morpheus::engine::kernels {

// C[m,n] = A[m,k]·Wᵀ: W is [n,k] row-major (a Linear weight) with leading dimension ldw
// (engine/stable_gemm.cc). Each value of C is the sum over k in one fixed order, in register
// blocks whose every place computes alike: a row's bits depend on that row alone, not on the rows
// that share the call or their number. (BLAS kernels need not: OpenBLAS's Haswell sgemm, which it
// runs on AMD Zen, rounds a row by its place in the call.) On the engine's shapes it is as fast
// as OpenBLAS's or faster (docs/performance.md).
void gemm_nt_row_stable(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* w,
                        size_t ldw, float* c, size_t ldc);

// x[r] = GELU(x[r] + bias) for rows × n values (GELU in its erf form, |error of erf| < 2e-7).
void bias_gelu(float* x, size_t rows, size_t n, const float* bias);

// h[r] += a[r] + bias, rows × n.
void bias_residual(float* h, const float* a, size_t rows, size_t n, const float* bias);

// h[r] = LayerNorm(h[r] + a[r] + bias) with gamma, beta [n] (biased variance); bias may be null.
void residual_layer_norm(float* h, const float* a, size_t rows, size_t n, const float* bias,
                         const float* gamma, const float* beta, float eps);

// y[r] = LayerNorm(x[r]); y may be x.
void layer_norm_rows(const float* x, size_t rows, size_t n, const float* gamma, const float* beta,
                     float eps, float* y);

// x = exp(x) in place (relative error below 2e-7; inputs below −87.3 give ~1e-38).
void exp_inplace(float* x, size_t n);

// Σ a[i]·b[i].
float dot(const float* a, const float* b, size_t n);

// RoPE self-attention of one word: qkv [t, 3·d] holds q, k, v of its t positions (heads of width
// dh side by side); q and k are rotated by the RoPE tables cos/sin [>= t, dh] at their positions;
// out [t, d] (leading dimension d) receives softmax(q·kᵀ/√dh)·v per head. scratch holds at least
// attention_scratch_size(t, dh) floats.
size_t attention_scratch_size(size_t t, size_t dh);
void rope_attention(const float* qkv, size_t t, size_t d, size_t heads, const float* cos,
                    const float* sin, float* scratch, float* out);

}  // namespace morpheus::engine::kernels
