// SPDX-License-Identifier: MIT
// BoundaryDetector: the gap mask, output shapes with one logit set per layer, zeros at invalid
// gaps, independence from padding, locality of the pair scorer, default depth weights, and
// finite-difference gradients in double.
#include "model/boundary_detector.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "tests/model/model_test_util.h"

namespace morpheus::model {
namespace {

constexpr double kDetectorPadTol = 1e-5;
constexpr double kDetectorGradTol = 1e-6;
constexpr double kDetectorUnchangedTol = 1e-7;
constexpr double kDetectorChangedMin = 1e-4;

BoundaryDetectorOptions tiny_detector_options(int64_t layers) {
  return BoundaryDetectorOptions()
      .dim(8)
      .num_layers(layers)
      .num_heads(2)
      .ffn_mult(2)
      .max_len(16)
      .dropout(0.0);
}

torch::Tensor detector_length_mask(const std::vector<int64_t>& lengths, int64_t t) {
  return torch::arange(t).unsqueeze(0) < torch::tensor(lengths).unsqueeze(1);
}

TEST(GapMaskTest, GapIsValidWhenBothNeighboursAre) {
  const torch::Tensor mask =
      torch::tensor({1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 0}, torch::kBool).view({3, 4});
  const torch::Tensor expected =
      torch::tensor({1, 1, 0, 0, 0, 1, 0, 0, 0}, torch::kBool).view({3, 3});
  EXPECT_TRUE(torch::equal(gap_mask(mask), expected));
}

TEST(GapMaskTest, RejectsNonBoolMasksAndSinglePositions) {
  EXPECT_THROW(gap_mask(torch::ones({2, 3}, torch::kLong)), c10::Error);
  EXPECT_THROW(gap_mask(torch::ones({2, 1}, torch::kBool)), c10::Error);
  EXPECT_THROW(gap_mask(torch::ones({3}, torch::kBool)), c10::Error);
}

TEST(BoundaryDetectorTest, OneGapLogitSetPerLayerAndFinalIsTheLast) {
  torch::manual_seed(61);
  BoundaryDetector det(tiny_detector_options(3));
  det->eval();
  const torch::Tensor mask = detector_length_mask({6, 3}, 6);
  const torch::Tensor hidden = torch::randn({2, 6, 8}) * mask.unsqueeze(-1);
  const DetectorOutput out = det->forward(hidden, mask);
  EXPECT_EQ(out.logits.sizes(), (std::vector<int64_t>{2, 5}));
  ASSERT_EQ(out.layer_logits.size(), 3u);
  for (const auto& l : out.layer_logits) EXPECT_EQ(l.sizes(), (std::vector<int64_t>{2, 5}));
  EXPECT_TRUE(torch::equal(out.layer_logits.back(), out.logits));
  // Deep supervision: the layers' logits differ from each other.
  EXPECT_FALSE(torch::allclose(out.layer_logits[0], out.layer_logits[2]));
}

TEST(BoundaryDetectorTest, LogitsAreZeroAtInvalidGapsInEveryLayer) {
  torch::manual_seed(62);
  BoundaryDetector det(tiny_detector_options(2));
  det->eval();
  const torch::Tensor mask = detector_length_mask({7, 4, 2}, 7);
  const torch::Tensor hidden = torch::randn({3, 7, 8}) * mask.unsqueeze(-1);
  const DetectorOutput out = det->forward(hidden, mask);
  const torch::Tensor invalid = gap_mask(mask).logical_not();
  for (const auto& l : out.layer_logits) {
    EXPECT_EQ(l.masked_select(invalid).abs().max().item<double>(), 0.0);
    EXPECT_GT(l.masked_select(invalid.logical_not()).abs().min().item<double>(), 0.0);
  }
}

TEST(BoundaryDetectorTest, PaddingDoesNotChangeValidLogits) {
  torch::manual_seed(63);
  BoundaryDetector det(tiny_detector_options(2));
  det->eval();
  const torch::Tensor mask = detector_length_mask({5, 3}, 5);
  const torch::Tensor hidden = torch::randn({2, 5, 8}) * mask.unsqueeze(-1);
  const torch::Tensor wide_mask = detector_length_mask({5, 3}, 9);
  torch::Tensor wide = torch::randn({2, 9, 8}) * 50;  // garbage at every padded position
  wide.slice(1, 0, 5).copy_(hidden);
  wide[1].slice(0, 3, 5).copy_(torch::randn({2, 8}) * 50);
  const DetectorOutput a = det->forward(hidden, mask);
  const DetectorOutput b = det->forward(wide, wide_mask);
  for (size_t l = 0; l < a.layer_logits.size(); ++l) {
    EXPECT_LT((a.layer_logits[l] - b.layer_logits[l].slice(1, 0, 4)).abs().max().item<double>(),
              kDetectorPadTol)
        << "layer " << l;
  }
}

TEST(DetectorLayerTest, GapScoreReadsOnlyItsTwoNeighbours) {
  torch::manual_seed(64);
  DetectorLayer layer(DetectorLayerOptions(8, 2, 16));
  layer->eval();
  const torch::Tensor mask = torch::ones({1, 7}, torch::kBool);
  const ValidRows gaps(gap_mask(mask));
  const torch::Tensor h = torch::randn({1, 7, 8});
  torch::Tensor h2 = h.clone();
  const int64_t p = 3;
  h2[0][p] += 1.0;
  const torch::Tensor diff = (layer->score(h, gaps) - layer->score(h2, gaps)).abs()[0];
  for (int64_t g = 0; g < 6; ++g) {
    if (g == p - 1 || g == p) {
      EXPECT_GT(diff[g].item<double>(), kDetectorChangedMin) << "gap " << g;
    } else {
      EXPECT_LT(diff[g].item<double>(), kDetectorUnchangedTol) << "gap " << g;
    }
  }
}

TEST(BoundaryDetectorTest, DefaultDepthWeightsRiseToOne) {
  // 0.85 + 0.15·(l+1)/M for M = 4: the paper configuration's weights.
  BoundaryDetector det(tiny_detector_options(4).pos_weight(3.5));
  const std::vector<double> expected{0.8875, 0.925, 0.9625, 1.0};
  ASSERT_EQ(det->depth_weights.numel(), 4);
  for (int64_t l = 0; l < 4; ++l) {
    EXPECT_NEAR(det->depth_weights[l].item<double>(), expected[static_cast<size_t>(l)], 1e-7);
  }
  EXPECT_EQ(det->pos_weight.sizes(), (std::vector<int64_t>{1}));
  EXPECT_EQ(det->pos_weight.item<double>(), 3.5);
  const auto buffers = det->named_buffers(/*recurse=*/false);
  EXPECT_TRUE(buffers.contains("depth_weights"));
  EXPECT_TRUE(buffers.contains("pos_weight"));
}

TEST(BoundaryDetectorTest, DepthWeightsMustMatchTheLayerCount) {
  EXPECT_THROW(BoundaryDetector(tiny_detector_options(3).depth_weights({1.0, 1.0})), c10::Error);
  BoundaryDetector det(tiny_detector_options(2).depth_weights({0.25, 0.5}));
  EXPECT_EQ(det->depth_weights[0].item<double>(), 0.25);
  EXPECT_EQ(det->depth_weights[1].item<double>(), 0.5);
}

TEST(BoundaryDetectorTest, RejectsHiddenAndMaskOfDifferentShapes) {
  BoundaryDetector det(tiny_detector_options(1));
  const torch::Tensor mask = torch::ones({2, 5}, torch::kBool);
  EXPECT_THROW(det->forward(torch::zeros({2, 5, 6}), mask), c10::Error);
  EXPECT_THROW(det->forward(torch::zeros({2, 4, 8}), mask), c10::Error);
  EXPECT_THROW(det->forward(torch::zeros({2, 5, 8}), mask.to(torch::kFloat)), c10::Error);
}

TEST(BoundaryDetectorTest, FiniteDifferenceGradientInDouble) {
  torch::manual_seed(65);
  BoundaryDetector det(tiny_detector_options(2));
  det->to(torch::kDouble);
  det->eval();
  const torch::Tensor mask = detector_length_mask({4, 3}, 4);
  const torch::Tensor hidden = torch::randn({2, 4, 8}, torch::kDouble) * mask.unsqueeze(-1);
  auto f = [&](const torch::Tensor& in) {
    const DetectorOutput out = det->forward(in, mask);
    return torch::cat({out.layer_logits[0], out.logits}, 1);
  };
  EXPECT_LT(testing::max_gradient_error(f, hidden), kDetectorGradTol);
}

}  // namespace
}  // namespace morpheus::model
