// SPDX-License-Identifier: MIT
// CharEncoder and MultiScaleCnn: output shapes and exact zeros at padding, valid outputs
// independent of padding (amount and content) and of batch-mates, the receptive field of each
// kernel width (even widths left-biased), and the input contract.
#include "model/char_encoder.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

namespace morpheus::model {
namespace {

constexpr double kEncoderPadTol = 1e-5;
constexpr double kCnnUnchangedTol = 1e-12;
constexpr double kCnnChangedMin = 1e-6;

CharEncoderOptions tiny_encoder_options() {
  return CharEncoderOptions()
      .vocab_size(12)
      .char_embed_dim(6)
      .case_embed_dim(2)
      .dim(16)
      .num_layers(2)
      .num_heads(2)
      .ffn_mult(2)
      .max_len(12)
      .kernels({2, 3, 4, 5})
      .cnn_channels(4)
      .dropout(0.0);
}

// Words [BOS, chars…, EOS, PAD…] of the given lengths (characters), T = max length + 2 + extra.
struct EncoderInput {
  torch::Tensor ids, cases, mask;
};

EncoderInput encoder_words(const std::vector<int64_t>& lengths, int64_t extra_pad) {
  int64_t longest = 0;
  for (int64_t len : lengths) longest = std::max(longest, len);
  const auto n = static_cast<int64_t>(lengths.size());
  const int64_t t = longest + 2 + extra_pad;
  EncoderInput in{torch::zeros({n, t}, torch::kLong), torch::zeros({n, t}, torch::kLong), {}};
  for (int64_t w = 0; w < n; ++w) {
    const int64_t len = lengths[static_cast<size_t>(w)];
    in.ids[w][0] = 2;
    for (int64_t j = 1; j <= len; ++j) in.ids[w][j] = 4 + (3 * w + 5 * j) % 8;
    in.ids[w][len + 1] = 3;
    in.cases[w][1] = w % 2;
  }
  in.mask = in.ids.ne(0);
  return in;
}

TEST(CharEncoderTest, OutputIsBatchByPositionsByDimAndZeroAtPadding) {
  torch::manual_seed(51);
  CharEncoder enc(tiny_encoder_options());
  enc->eval();
  const EncoderInput in = encoder_words({5, 2, 7}, 0);
  const torch::Tensor h = enc->forward(in.ids, in.cases, in.mask);
  EXPECT_EQ(h.sizes(), (std::vector<int64_t>{3, 9, 16}));
  EXPECT_EQ(h.dtype(), torch::kFloat);
  EXPECT_EQ(h.masked_select(in.mask.logical_not().unsqueeze(-1)).abs().sum().item<double>(), 0.0);
  // Every valid position carries a LayerNorm output: non-zero.
  EXPECT_GT(h.norm(2, {2}).masked_select(in.mask).min().item<double>(), 0.0);
}

TEST(CharEncoderTest, PaddingAmountAndContentDoNotChangeValidPositions) {
  torch::manual_seed(52);
  CharEncoder enc(tiny_encoder_options());
  enc->eval();
  const EncoderInput tight = encoder_words({5, 2, 7}, 0);
  const EncoderInput wide = encoder_words({5, 2, 7}, 3);
  // Garbage ids and case flags where the mask is false must not matter either.
  torch::Tensor ids = wide.ids.clone(), cases = wide.cases.clone();
  ids.masked_fill_(wide.mask.logical_not(), 7);
  cases.masked_fill_(wide.mask.logical_not(), 1);
  const torch::Tensor a = enc->forward(tight.ids, tight.cases, tight.mask);
  const torch::Tensor b = enc->forward(ids, cases, wide.mask);
  const int64_t t = tight.ids.size(1);
  EXPECT_LT((a - b.slice(1, 0, t)).abs().max().item<double>(), kEncoderPadTol);
  EXPECT_EQ(b.slice(1, t).abs().max().item<double>(), 0.0);
}

TEST(CharEncoderTest, EachWordIsEncodedIndependentlyOfItsBatchMates) {
  torch::manual_seed(53);
  CharEncoder enc(tiny_encoder_options());
  enc->eval();
  const EncoderInput in = encoder_words({6, 3, 8, 1}, 0);
  const torch::Tensor all = enc->forward(in.ids, in.cases, in.mask);
  for (int64_t w = 0; w < 4; ++w) {
    const torch::Tensor one = enc->forward(in.ids.slice(0, w, w + 1), in.cases.slice(0, w, w + 1),
                                           in.mask.slice(0, w, w + 1));
    EXPECT_LT((one[0] - all[w]).abs().max().item<double>(), kEncoderPadTol) << "word " << w;
  }
}

TEST(CharEncoderTest, CaseFlagsChangeTheEncoding) {
  torch::manual_seed(54);
  CharEncoder enc(tiny_encoder_options());
  enc->eval();
  const EncoderInput in = encoder_words({5}, 0);
  torch::Tensor upper = in.cases.clone();
  upper[0][3] = 1;
  const torch::Tensor a = enc->forward(in.ids, in.cases, in.mask);
  const torch::Tensor b = enc->forward(in.ids, upper, in.mask);
  EXPECT_GT((a - b).abs().max().item<double>(), kCnnChangedMin);
}

TEST(CharEncoderTest, RejectsWrongDtypesShapesAndTooLongWords) {
  CharEncoder enc(tiny_encoder_options());
  const EncoderInput in = encoder_words({4}, 0);
  EXPECT_THROW(enc->forward(in.ids.to(torch::kInt), in.cases, in.mask), c10::Error);
  EXPECT_THROW(enc->forward(in.ids, in.cases.slice(1, 0, 3), in.mask), c10::Error);
  EXPECT_THROW(enc->forward(in.ids, in.cases, in.mask.to(torch::kLong)), c10::Error);
  const EncoderInput long_words = encoder_words({11}, 0);  // T = 13 > max_len 12
  EXPECT_THROW(enc->forward(long_words.ids, long_words.cases, long_words.mask), c10::Error);
  EXPECT_NO_THROW(enc->forward(in.ids, in.cases, in.mask));
}

TEST(MultiScaleCnnTest, EachKernelWidthSeesItsLeftBiasedWindow) {
  // Width k with padding ⌊k/2⌋, first T outputs kept: output t reads inputs
  // t−⌊k/2⌋ … t−⌊k/2⌋+k−1, so input p reaches outputs p+⌊k/2⌋−k+1 … p+⌊k/2⌋.
  const int64_t t = 11, p = 5;
  for (const int64_t k : {2, 3, 4, 5}) {
    torch::manual_seed(55 + k);
    MultiScaleCnn cnn(MultiScaleCnnOptions(4, {k}, 4));
    cnn->to(torch::kDouble);
    const torch::Tensor mask = torch::ones({1, t}, torch::kBool);
    const torch::Tensor x = torch::randn({1, t, 4}, torch::kDouble);
    torch::Tensor x2 = x.clone();
    x2[0][p] += 1.0;
    const torch::Tensor diff = (cnn->forward(x, mask) - cnn->forward(x2, mask)).abs().amax(2)[0];
    const int64_t lo = p + k / 2 - k + 1, hi = p + k / 2;
    for (int64_t o = 0; o < t; ++o) {
      if (o >= lo && o <= hi) {
        EXPECT_GT(diff[o].item<double>(), kCnnChangedMin) << "k " << k << " output " << o;
      } else {
        EXPECT_LT(diff[o].item<double>(), kCnnUnchangedTol) << "k " << k << " output " << o;
      }
    }
  }
}

TEST(MultiScaleCnnTest, InputAtPaddingIsIgnoredAndOutputThereIsZero) {
  torch::manual_seed(60);
  MultiScaleCnn cnn(MultiScaleCnnOptions(6, {2, 3, 4}, 2));
  cnn->to(torch::kDouble);
  const torch::Tensor mask = torch::arange(8).unsqueeze(0) < torch::tensor({5, 8}).unsqueeze(1);
  const torch::Tensor x = torch::randn({2, 8, 6}, torch::kDouble);
  torch::Tensor x2 = x.clone();
  x2[0].slice(0, 5) = torch::randn({3, 6}, torch::kDouble) * 100;
  const torch::Tensor y = cnn->forward(x, mask);
  const torch::Tensor y2 = cnn->forward(x2, mask);
  EXPECT_LT((y - y2).abs().max().item<double>(), kCnnUnchangedTol);
  EXPECT_EQ(y[0].slice(0, 5).abs().max().item<double>(), 0.0);
  EXPECT_EQ(y.sizes(), x.sizes());
}

TEST(MultiScaleCnnTest, KernelsTimesChannelsMustEqualDim) {
  EXPECT_THROW(MultiScaleCnn(MultiScaleCnnOptions(10, {2, 3}, 4)), c10::Error);
  EXPECT_NO_THROW(MultiScaleCnn(MultiScaleCnnOptions(8, {2, 3}, 4)));
}

}  // namespace
}  // namespace morpheus::model
