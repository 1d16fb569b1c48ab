// SPDX-License-Identifier: MIT
// CharEncoder: char embedding ⊕ case-flag embedding -> projection -> residual multi-scale CNN
// (kernel widths e.g. 2..6, LayerNorm) -> N RoPE self-attention layers (post-norm), each followed
// by a pre-norm FFN -> final LayerNorm.
//   forward(char_ids [B,T] int64, case_flags [B,T] int64 0/1, mask [B,T] bool true=valid)
//     -> hidden [B,T,D] float, exactly 0 at padding. Padding is zeroed before the convolution,
//     so valid outputs do not depend on how much padding a batch carries. Legend: model/README.md.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <vector>

#include "model/attention.h"
#include "model/linear.h"

namespace morpheus::model {

struct ModelConfig;

// Residual multi-scale convolution: LayerNorm(x + concat_k GELU(conv_k(x))) with symmetric
// padding ⌊k/2⌋ and the first T outputs kept (even widths are left-biased, as in the reference).
// forward(x [B,T,D] zero at padding, mask [B,T] bool) -> [B,T,D] zero at padding.
struct MultiScaleCnnOptions {
  MultiScaleCnnOptions(int64_t dim, std::vector<int64_t> kernels, int64_t channels)
      : dim_(dim), kernels_(std::move(kernels)), channels_(channels) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::vector<int64_t>, kernels);
  TORCH_ARG(int64_t, channels);  // per kernel width; kernels.size()·channels == dim
  TORCH_ARG(double, dropout) = 0.0;
};

class MultiScaleCnnImpl : public torch::nn::Cloneable<MultiScaleCnnImpl> {
 public:
  explicit MultiScaleCnnImpl(const MultiScaleCnnOptions& options);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask);

  MultiScaleCnnOptions options;
  torch::nn::ModuleList convs{nullptr};  // convs[i] = Sequential(0 Conv1d, 1 GELU)
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(MultiScaleCnn);

struct CharEncoderOptions {
  TORCH_ARG(int64_t, vocab_size) = 76;
  TORCH_ARG(int64_t, char_embed_dim) = 96;
  TORCH_ARG(int64_t, case_embed_dim) = 16;
  TORCH_ARG(int64_t, dim) = 320;
  TORCH_ARG(int64_t, num_layers) = 3;
  TORCH_ARG(int64_t, num_heads) = 5;
  TORCH_ARG(int64_t, ffn_mult) = 2;
  TORCH_ARG(int64_t, max_len) = 32;
  TORCH_ARG(std::vector<int64_t>, kernels) = std::vector<int64_t>{2, 3, 4, 5, 6};
  TORCH_ARG(int64_t, cnn_channels) = 64;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(double, rope_base) = 10000;
};
CharEncoderOptions make_encoder_options(const ModelConfig& config);

class CharEncoderImpl : public torch::nn::Cloneable<CharEncoderImpl> {
 public:
  explicit CharEncoderImpl(const CharEncoderOptions& options);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& char_ids, const torch::Tensor& case_flags,
                        const torch::Tensor& mask);

  CharEncoderOptions options;
  torch::nn::Embedding char_embedding{nullptr}, case_embedding{nullptr};
  Linear embed_proj{nullptr};
  MultiScaleCnn cnn{nullptr};
  torch::nn::ModuleList attn_layers{nullptr}, ffns{nullptr};
  torch::nn::LayerNorm final_norm{nullptr};
};
TORCH_MODULE(CharEncoder);

}  // namespace morpheus::model
