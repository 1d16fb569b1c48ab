// SPDX-License-Identifier: MIT
// gemm_nt_row_stable: C = A·Wᵀ in register blocks. Wᵀ is packed once per call into panels of
// the block's width ([k, cols] each, contiguous); a block keeps its rows × cols sums in registers
// and adds a[r, p]·wᵀ[p, j] for p = 0, 1, … k − 1, the same operations in every place of the
// block, and the last rows go through a block padded with zero rows. So a value of C depends on
// its row of A and on W alone. The block is picked once for the CPU: 8 × 32 with AVX-512, 6 × 16
// with AVX2 + FMA (both one fused multiply-add per term, so the two give the same bits), 4 × 8 in
// the base instruction set elsewhere; one template (simd_block) written for all three.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "core/arith.h"
#include "engine/kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MORPHEUS_X86_BLOCKS 1
#endif

namespace morpheus::engine::kernels {
namespace {

// One block: out[rows × cols] (contiguous) from a[rows, k] (leading dimension lda) and one
// panel [k, cols] of the packed Wᵀ.
using BlockFn = void (*)(const float* a, size_t lda, size_t k, const float* panel, float* out);

struct Block {
  size_t rows;
  size_t cols;
  BlockFn run;
};

// Vectors of 4, 8 and 16 floats (GCC/Clang vector extensions): the compiler emits each block's
// arithmetic in the instruction set of the function it is inlined into.
using Floats4 = float __attribute__((vector_size(16)));
using Floats8 = float __attribute__((vector_size(32)));
using Floats16 = float __attribute__((vector_size(64)));

// A block's shape: kRows × (kVectors vectors of V) sums, kCols = the columns they cover.
template <typename Vector, size_t Rows, size_t Vectors>
struct Shape {
  using V = Vector;
  static constexpr size_t kRows = Rows, kVectors = Vectors;
  static constexpr size_t kLanes = sizeof(V) / sizeof(float), kCols = kVectors * kLanes;
};
using PlainShape = Shape<Floats4, 4, 2>;    // 4 × 8
using Avx2Shape = Shape<Floats8, 6, 2>;     // 6 × 16
using Avx512Shape = Shape<Floats16, 8, 2>;  // 8 × 32

// One block of S's sums, kept in registers: acc += a[r, p]·wᵀ[p, ·] for p = 0, 1, … k − 1 (one
// fused multiply-add per term where the instruction set has one).
template <typename S>
__attribute__((always_inline)) inline void simd_block(const float* a, size_t lda, size_t k,
                                                      const float* panel, float* out) {
  using V = typename S::V;
  constexpr size_t kRows = S::kRows, kVectors = S::kVectors, kLanes = S::kLanes;
  constexpr size_t kCols = S::kCols;
  V acc[kRows][kVectors] = {};
  for (size_t p = 0; p < k; ++p) {
    V w[kVectors];
#pragma GCC unroll 2
    for (size_t v = 0; v < kVectors; ++v) {
      std::memcpy(&w[v], panel + p * kCols + v * kLanes, sizeof(V));
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) {
      const float x = a[r * lda + p];
#pragma GCC unroll 2
      for (size_t v = 0; v < kVectors; ++v) acc[r][v] += x * w[v];
    }
  }
#pragma GCC unroll 8
  for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (size_t v = 0; v < kVectors; ++v) {
      const V sums = acc[r][v];  // a copy: the block's sums stay out of memory until here
      std::memcpy(out + r * kCols + v * kLanes, &sums, sizeof(V));
    }
  }
}

void plain_block(const float* a, size_t lda, size_t k, const float* panel, float* out) {
  simd_block<PlainShape>(a, lda, k, panel, out);
}

#ifdef MORPHEUS_X86_BLOCKS
__attribute__((target("avx2,fma"))) void avx2_block(const float* a, size_t lda, size_t k,
                                                    const float* panel, float* out) {
  simd_block<Avx2Shape>(a, lda, k, panel, out);
}

__attribute__((target("avx512f"))) void avx512_block(const float* a, size_t lda, size_t k,
                                                     const float* panel, float* out) {
  simd_block<Avx512Shape>(a, lda, k, panel, out);
}
#endif

template <typename S>
constexpr Block block_of(BlockFn run) {
  return {S::kRows, S::kCols, run};
}

Block choose_block() {
#ifdef MORPHEUS_X86_BLOCKS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return block_of<Avx512Shape>(avx512_block);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return block_of<Avx2Shape>(avx2_block);
  }
#endif
  return block_of<PlainShape>(plain_block);
}

// Wᵀ of W [n, k] (leading dimension ldw) in panels of `cols` columns: panel b holds
// wᵀ[p, b·cols + q] at (b·k + p)·cols + q, zero past column n.
void pack_panels(size_t n, size_t k, const float* w, size_t ldw, size_t cols,
                 std::vector<float>* panels) {
  const size_t n_pad = round_up(n, cols);
  panels->assign(n_pad * k, 0.0f);
  for (size_t j = 0; j < n; ++j) {
    float* dst = panels->data() + (j / cols) * k * cols + j % cols;
    const float* src = w + j * ldw;
    for (size_t p = 0; p < k; ++p) dst[p * cols] = src[p];
  }
}

// Rows [0, block.rows) of C from the rows of a: every panel, `n` columns kept.
void block_rows(const Block& block, const float* a, size_t lda, size_t n, size_t k,
                const float* panels, float* out, float* c, size_t ldc) {
  for (size_t j0 = 0; j0 < n; j0 += block.cols) {
    block.run(a, lda, k, panels + j0 * k, out);
    const size_t cols = std::min(block.cols, n - j0);
    for (size_t r = 0; r < block.rows; ++r) {
      std::copy_n(out + r * block.cols, cols, c + r * ldc + j0);
    }
  }
}

}  // namespace

void gemm_nt_row_stable(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* w,
                        size_t ldw, float* c, size_t ldc) {
  if (m == 0 || n == 0) return;
  static const Block block = choose_block();
  thread_local std::vector<float> panels, out, a_pad, c_pad;
  pack_panels(n, k, w, ldw, block.cols, &panels);
  out.resize(block.rows * block.cols);
  const size_t full = m - m % block.rows;
  for (size_t i0 = 0; i0 < full; i0 += block.rows) {
    block_rows(block, a + i0 * lda, lda, n, k, panels.data(), out.data(), c + i0 * ldc, ldc);
  }
  if (full == m) return;
  a_pad.assign(block.rows * k, 0.0f);
  c_pad.resize(block.rows * n);
  for (size_t r = full; r < m; ++r) std::copy_n(a + r * lda, k, &a_pad[(r - full) * k]);
  block_rows(block, a_pad.data(), k, n, k, panels.data(), out.data(), c_pad.data(), n);
  for (size_t r = full; r < m; ++r) std::copy_n(&c_pad[(r - full) * n], n, c + r * ldc);
}

}  // namespace morpheus::engine::kernels
