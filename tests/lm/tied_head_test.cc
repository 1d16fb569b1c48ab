// SPDX-License-Identifier: MIT
// The fused tied head against logits → cross-entropy: loss, both gradients and the NLL sum, with
// chunks that do not divide the rows.
#include "lm/tied_head.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace morpheus::lm {
namespace {

constexpr double kDoubleTol = 1e-10;  // double precision

TEST(TiedHeadTest, LossAndGradientsEqualTheUnfusedCrossEntropy) {
  torch::manual_seed(7);
  const auto opt = torch::TensorOptions().dtype(torch::kDouble);
  const torch::Tensor h0 = torch::randn({10, 6}, opt), w0 = torch::randn({13, 6}, opt);
  const torch::Tensor targets = torch::randint(0, 13, {10}, torch::kLong);
  for (int64_t chunk : {1, 3, 10, 64}) {
    const torch::Tensor h = h0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
    const torch::Tensor hr = h0.clone().requires_grad_(true), wr = w0.clone().requires_grad_(true);
    const torch::Tensor fused = tied_head_cross_entropy(h, w, targets, chunk) * 2.5;
    const torch::Tensor plain =
        torch::nn::functional::cross_entropy(torch::mm(hr, wr.t()), targets) * 2.5;
    fused.backward();
    plain.backward();
    EXPECT_NEAR(fused.item<double>(), plain.item<double>(), kDoubleTol) << "chunk " << chunk;
    EXPECT_TRUE(torch::allclose(h.grad(), hr.grad(), kDoubleTol, kDoubleTol)) << "chunk " << chunk;
    EXPECT_TRUE(torch::allclose(w.grad(), wr.grad(), kDoubleTol, kDoubleTol)) << "chunk " << chunk;
    EXPECT_NEAR(tied_head_nll(h0, w0, targets, chunk), plain.item<double>() / 2.5 * 10, 1e-9);
  }
}

TEST(TiedHeadTest, ChunksHoldAboutEightMebibytesOfLogitsButAtLeastFourWidthsOfRows) {
  EXPECT_EQ(head_chunk_rows(8193, 16, torch::kCPU), (int64_t{1} << 21) / 8193);
  EXPECT_EQ(head_chunk_rows(8193, 128, torch::kCPU), 512);
  EXPECT_EQ(head_chunk_rows(int64_t{1} << 30, 1, torch::kCPU), 4);
}

TEST(TiedHeadTest, BadShapesThrow) {
  const torch::Tensor h = torch::randn({4, 3}), w = torch::randn({5, 3});
  EXPECT_THROW(tied_head_cross_entropy(h, torch::randn({5, 2}), torch::zeros({4}, torch::kLong)),
               c10::Error);
  EXPECT_THROW(tied_head_nll(h, w, torch::zeros({3}, torch::kLong)), c10::Error);
  EXPECT_THROW(tied_head_nll(h, w, torch::zeros({4})), c10::Error);
}

}  // namespace
}  // namespace morpheus::lm
