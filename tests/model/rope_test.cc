// SPDX-License-Identifier: MIT
// Rope: hand-computed rotations, norm preservation per rotated pair, the relative-offset property
// of q(m)·k(n), position 0 as identity, buffer shapes and the shape contract.
#include "model/rope.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

namespace morpheus::model {
namespace {

constexpr double kRopeFloatTol = 1e-5;

TEST(RopeTest, RotatesPairsByPositionTimesFrequency) {
  // Dh = 4, base 100: pair (0,2) turns by m·1 rad, pair (1,3) by m·100^(−1/2) = m·0.1 rad.
  Rope rope(RopeOptions(4, 8).base(100));
  torch::Tensor x = torch::zeros({1, 1, 8, 4});
  x[0][0][2][0] = 1.0;  // e0 at position 2
  x[0][0][5][3] = 1.0;  // e3 at position 5
  const torch::Tensor y = rope->forward(x);
  const std::vector<double> at2{std::cos(2.0), 0.0, std::sin(2.0), 0.0};
  const std::vector<double> at5{0.0, -std::sin(0.5), 0.0, std::cos(0.5)};
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(y[0][0][2][i].item<double>(), at2[static_cast<size_t>(i)], kRopeFloatTol) << i;
    EXPECT_NEAR(y[0][0][5][i].item<double>(), at5[static_cast<size_t>(i)], kRopeFloatTol) << i;
  }
  // Positions holding zeros stay zero.
  EXPECT_EQ(y[0][0][3].abs().sum().item<double>(), 0.0);
}

TEST(RopeTest, PositionZeroIsIdentity) {
  torch::manual_seed(41);
  Rope rope(RopeOptions(8, 6));
  const torch::Tensor x = torch::randn({2, 3, 6, 8});
  const torch::Tensor y = rope->forward(x);
  EXPECT_TRUE(torch::equal(y.select(2, 0), x.select(2, 0)));
  EXPECT_FALSE(torch::allclose(y.select(2, 1), x.select(2, 1)));
}

TEST(RopeTest, RotationPreservesTheNormOfEveryPair) {
  torch::manual_seed(42);
  const int64_t dh = 12, half = dh / 2;
  Rope rope(RopeOptions(dh, 20));
  const torch::Tensor x = torch::randn({2, 2, 20, dh});
  const torch::Tensor y = rope->forward(x);
  auto pair_norms = [&](const torch::Tensor& v) {
    return (v.slice(3, 0, half).pow(2) + v.slice(3, half).pow(2)).sqrt();
  };
  EXPECT_LT((pair_norms(y) - pair_norms(x)).abs().max().item<double>(), kRopeFloatTol);
  EXPECT_LT((y.norm(2, {3}) - x.norm(2, {3})).abs().max().item<double>(), kRopeFloatTol);
}

TEST(RopeTest, DotProductDependsOnlyOnOffset) {
  Rope rope(RopeOptions(8, 16));
  torch::manual_seed(7);
  torch::Tensor q = torch::randn({1, 1, 1, 8}).expand({1, 1, 16, 8}).contiguous();
  torch::Tensor k = torch::randn({1, 1, 1, 8}).expand({1, 1, 16, 8}).contiguous();
  torch::Tensor rq = rope->forward(q), rk = rope->forward(k);
  auto dot = [&](int64_t i, int64_t j) { return (rq[0][0][i] * rk[0][0][j]).sum().item<double>(); };
  EXPECT_NEAR(dot(3, 1), dot(10, 8), 1e-5);
  EXPECT_NEAR(dot(0, 5), dot(7, 12), 1e-5);
  // Position 0 for both is the unrotated dot product.
  EXPECT_NEAR(dot(4, 4), (q[0][0][0] * k[0][0][0]).sum().item<double>(), 1e-5);
}

TEST(RopeTest, OutputOfAPrefixIsThePrefixOfTheOutput) {
  torch::manual_seed(43);
  Rope rope(RopeOptions(6, 10));
  const torch::Tensor x = torch::randn({1, 2, 10, 6});
  const torch::Tensor full = rope->forward(x);
  const torch::Tensor prefix = rope->forward(x.slice(2, 0, 4));
  EXPECT_TRUE(torch::equal(prefix, full.slice(2, 0, 4)));
}

TEST(RopeTest, KeepsShapeAndDtype) {
  Rope rope(RopeOptions(4, 5));
  const torch::Tensor x = torch::randn({3, 2, 5, 4}, torch::kDouble);
  const torch::Tensor y = rope->forward(x);
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_EQ(y.dtype(), torch::kDouble);
}

TEST(RopeTest, CachesAreBuffersOfTheDocumentedShapes) {
  Rope rope(RopeOptions(8, 7));
  EXPECT_TRUE(rope->parameters().empty());
  const auto buffers = rope->named_buffers();
  ASSERT_EQ(buffers.size(), 3u);
  EXPECT_EQ(buffers["inv_freq"].sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(buffers["cos_cache"].sizes(), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(buffers["sin_cache"].sizes(), (std::vector<int64_t>{7, 8}));
  // inv_freq[i] = 10000^(−2i/8): 1, 0.1, 0.01, 0.001.
  const std::vector<double> expected{1.0, 0.1, 0.01, 0.001};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(buffers["inv_freq"][static_cast<int64_t>(i)].item<double>(), expected[i],
                1e-6 * expected[i]);
  }
}

TEST(RopeTest, OddHeadDimIsRejected) {
  EXPECT_THROW(Rope(RopeOptions(5, 8)), c10::Error);
  EXPECT_THROW(Rope(RopeOptions(0, 8)), c10::Error);
}

TEST(RopeTest, InputLongerThanTheCacheOrOfWrongWidthIsRejected) {
  Rope rope(RopeOptions(4, 6));
  EXPECT_THROW(rope->forward(torch::zeros({1, 1, 7, 4})), c10::Error);
  EXPECT_THROW(rope->forward(torch::zeros({1, 1, 6, 6})), c10::Error);
  EXPECT_THROW(rope->forward(torch::zeros({1, 6, 4})), c10::Error);
  EXPECT_NO_THROW(rope->forward(torch::zeros({1, 1, 6, 4})));
}

}  // namespace
}  // namespace morpheus::model
