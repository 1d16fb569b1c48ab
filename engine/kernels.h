// SPDX-License-Identifier: MIT
// Float kernels of the engine's forward pass: the BLAS matrix product and a row-stable one of its
// own, and own loops for the element-wise stages (bias, GELU, residual, LayerNorm), exp and one
// word's RoPE self-attention.
// Row-major throughout; every row of an output depends on the same row of the inputs only
// (attention: on the word's own rows only).
#pragma once

#include <cstddef>

namespace morpheus::engine::kernels {

// While alive, the BLAS runs the calling thread's products on that thread alone (the engine
// splits the words between its own threads). OpenBLAS's OpenMP build takes its thread count from
// the calling thread's OpenMP setting: set to 1 here, restored on destruction. Its pthreads build
// has one process-wide count: set to 1 by the first scope (for the whole process). Nothing with
// another BLAS. The functions are looked up at run time (dlsym); no link dependency on either.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int previous_ = 0;  // the thread's OpenMP thread count before, 0 when unchanged
};

// C[m,n] = A[m,k]·Wᵀ: W is [n,k] row-major (a Linear weight) with leading dimension ldw.
// cblas_sgemm, on the calling thread when inside a SingleThreadedBlas scope.
void gemm_nt(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* w, size_t ldw,
             float* c, size_t ldc);

// The same product without BLAS (engine/stable_gemm.cc), each value of C the sum over k in one
// fixed order, in register blocks whose every place computes alike: a row's bits depend on that
// row alone, not on the rows that share the call or their number. (BLAS kernels need not:
// OpenBLAS's Haswell sgemm, which it runs on AMD Zen, rounds a row by its place in the call.)
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
