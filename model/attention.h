// SPDX-License-Identifier: MIT
// Attention: LibTorch 2.x's fused scaled_dot_product_attention where it has it, else written out
// (LibTorch 1.13 has no public one).
//   scaled_dot_attention(q [B,H,Tq,Dh], k/v [B,H,Tk,Dh], key_mask [B,Tk] bool true=valid)
//   RopeSelfAttention: qkv (no bias) -> RoPE on q,k -> attention -> proj -> post-norm residual;
//     forward(x [B,T,D] float, mask [B,T] bool) -> [B,T,D], padded positions set to 0.
//   MultiheadAttention: torch.nn.MultiheadAttention parameter layout (in_proj_weight/bias,
//     out_proj), batch-first, optional causal mask. make_ffn: pre-norm FFN Sequential.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <vector>

#include "model/linear.h"
#include "model/rope.h"

namespace morpheus::model {

// Position-wise layers (projections, FFN, gap scorers) on the valid rows only. A batch of
// words is padded to its longest word, so 30–60 % of the [B,T] positions are padding; on CPU
// apply() gathers the valid rows into [R,Din], runs fn, and scatters [R,Dout] back (GEMM work
// proportional to the real characters). Elsewhere (CUDA: the index would cost a host sync) fn
// runs on every row. Either way the rows outside the mask of the result are 0, so the two paths
// agree exactly up to float rounding.
class ValidRows {
 public:
  // mask [B,T] bool, true = valid.
  explicit ValidRows(const torch::Tensor& mask);
  // x [B,T,Din], fn row-wise [R,Din] -> [R,Dout]  ->  [B,T,Dout], 0 outside the mask.
  template <typename Fn>
  torch::Tensor apply(const torch::Tensor& x, Fn&& fn) const {
    if (!index_.defined()) return fn(x) * maskf_;
    const int64_t b = x.size(0), t = x.size(1);
    torch::Tensor y = fn(x.reshape({b * t, x.size(2)}).index_select(0, index_));
    return torch::zeros({b * t, y.size(1)}, y.options()).index_copy(0, index_, y).view({b, t, -1});
  }
  // Packing on CPU can be switched off (tests and benchmarks compare the two paths). Global.
  static void set_packing_enabled(bool enabled);
  static bool packing_enabled();

 private:
  torch::Tensor index_;  // [R] int64 flat indices of the valid rows; undefined = dense path
  torch::Tensor maskf_;  // [B,T,1] float mask of the dense path
};

// softmax(q·kᵀ/√Dh + masks)·v. key_mask [B,Tk] bool (true = valid) may be undefined; causal
// masks key j > query i. Queries whose keys are all masked get a zero output.
// Dropout on the attention weights with probability `dropout` when `training`.
// Float CPU inputs that need no gradient, without causal mask or dropout (inference,
// evaluation), take a fused kernel of ours: one pass per (batch, head), the same result up to
// float rounding, instead of 2·B·H small BLAS calls. Otherwise LibTorch ≥ 2.0 runs its fused
// scaled_dot_product_attention (except a causal mask together with a key mask), and 1.13 the
// written-out matmul/softmax/matmul.
torch::Tensor scaled_dot_attention(const torch::Tensor& q, const torch::Tensor& k,
                                   const torch::Tensor& v, const torch::Tensor& key_mask,
                                   bool causal, double dropout, bool training);

// RoPE self-attention over packed words, forward only (float CPU, no gradient): qkv [R,3D] is
// the qkv projection of the valid rows of a batch whose word b holds rows
// [offsets[b], offsets[b+1]) in position order (positions 0..len-1, as in the padded [B,T]
// layout with each word's valid positions a prefix); q and k get `rope` at their positions, each
// word attends over its own rows only. Returns the heads' outputs [R,D] (before proj), equal to
// the padded path's up to float rounding.
torch::Tensor packed_rope_attention(const torch::Tensor& qkv, const std::vector<int64_t>& offsets,
                                    const RopeImpl& rope, int64_t num_heads);

// One RoPE self-attention block without the residual/norm: x [B,T,D] -> [B,T,D] (after proj),
// rows = ValidRows(mask) (built once per forward by the caller, shared by its layers).
torch::Tensor rope_attention_block(const torch::Tensor& x, const torch::Tensor& mask,
                                   const ValidRows& rows, Linear& qkv, Linear& proj,
                                   const Rope& rope, int64_t num_heads, double dropout,
                                   bool training);

// Pre-norm FFN: Sequential(0 LayerNorm(D), 1 Linear(D,hidden), 2 GELU, 3 Dropout, 4
// Linear(hidden,D), 5 Dropout); the caller adds the residual. Index layout matches the reference
// state keys.
torch::nn::Sequential make_ffn(int64_t dim, int64_t hidden, double dropout);

struct RopeSelfAttentionOptions {
  RopeSelfAttentionOptions(int64_t dim, int64_t num_heads, int64_t max_len)
      : dim_(dim), num_heads_(num_heads), max_len_(max_len) {}
  TORCH_ARG(int64_t, dim);           // D
  TORCH_ARG(int64_t, num_heads);     // H, D % H == 0, Dh even
  TORCH_ARG(int64_t, max_len);       // RoPE cache positions
  TORCH_ARG(double, dropout) = 0.0;  // attention-weight and output dropout
  TORCH_ARG(double, rope_base) = 10000;
};

class RopeSelfAttentionImpl : public torch::nn::Cloneable<RopeSelfAttentionImpl> {
 public:
  explicit RopeSelfAttentionImpl(const RopeSelfAttentionOptions& options);
  void reset() override;
  // x [B,T,D], mask [B,T] bool true=valid -> LayerNorm(x + proj(attn(x))) [B,T,D], zero at padding.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask);
  // The same with rows = ValidRows(mask) already built (one per stack of layers).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask, const ValidRows& rows);

  RopeSelfAttentionOptions options;
  Linear qkv{nullptr}, proj{nullptr};
  torch::nn::LayerNorm norm{nullptr};
  Rope rope{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(RopeSelfAttention);

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t dim, int64_t num_heads) : dim_(dim), num_heads_(num_heads) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(int64_t, num_heads);
  TORCH_ARG(double, dropout) = 0.0;  // on attention weights
};

class MultiheadAttentionImpl : public torch::nn::Cloneable<MultiheadAttentionImpl> {
 public:
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  void reset() override;
  // query [B,Tq,D], memory [B,Tk,D], key_mask [B,Tk] bool true=valid (or undefined)
  // -> [B,Tq,D].
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& memory,
                        const torch::Tensor& key_mask = {}, bool causal = false);

  MultiheadAttentionOptions options;
  torch::Tensor in_proj_weight, in_proj_bias;  // [3D,D], [3D]; chunk order q,k,v
  Linear out_proj{nullptr};
};
TORCH_MODULE(MultiheadAttention);

}  // namespace morpheus::model
