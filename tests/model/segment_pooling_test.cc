// SPDX-License-Identifier: MIT
// SegmentPooling: hard memberships reproduce a plain per-segment loop; gradients in double.
#include "model/segment_pooling.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/poisson_binomial.h"
#include "tests/model/model_test_util.h"

namespace morpheus::model {
namespace {

constexpr double kPoolingLoopTol = 1e-5;
constexpr double kPoolingGradTol = 1e-6;

TEST(SegmentPoolingTest, HardMembershipEqualsPerSegmentLoop) {
  torch::manual_seed(11);
  const int64_t n = 5, t = 12, s = 4, d = 8;
  SegmentPooling pool(SegmentPoolingOptions().dim(d).dropout(0.0));
  pool->eval();
  torch::Tensor lengths = torch::tensor({12, 9, 5, 3, 2});
  torch::Tensor mask = torch::arange(t).unsqueeze(0) < lengths.unsqueeze(1);
  torch::Tensor hidden = torch::randn({n, t, d}) * mask.unsqueeze(-1);
  torch::Tensor hard = (torch::rand({n, t - 1}) > 0.7).to(torch::kFloat);
  hard = hard * mask.slice(1, 0, t - 1).logical_and(mask.slice(1, 1, t));
  torch::Tensor m = soft_membership(hard, mask, s);
  PoolingOutput out = pool->forward(hidden, m, mask);
  torch::Tensor scores = pool->char_scorer(hidden).squeeze(-1);
  for (int64_t w = 0; w < n; ++w) {
    const int64_t len = lengths[w].item<int64_t>();
    for (int64_t k = 0; k < s; ++k) {
      std::vector<int64_t> members;
      int64_t seg = 0;
      for (int64_t j = 0; j < len; ++j) {
        if (j > 0 && hard[w][j - 1].item<float>() > 0.5) seg = std::min(seg + 1, s - 1);
        if (seg == k) members.push_back(j);
      }
      EXPECT_EQ(out.segment_mask[w][k].item<bool>(), !members.empty());
      if (members.empty()) continue;
      torch::Tensor idx = torch::tensor(members);
      torch::Tensor a = torch::softmax(scores[w].index_select(0, idx), 0);
      torch::Tensor expected = (a.unsqueeze(1) * hidden[w].index_select(0, idx)).sum(0);
      EXPECT_LT((out.segment_embeddings[w][k] - expected).abs().max().item<double>(),
                kPoolingLoopTol);
    }
  }
  torch::Tensor segf = out.segment_mask.to(torch::kFloat).unsqueeze(-1);
  torch::Tensor mean = (out.segment_embeddings * segf).sum(1) / segf.sum(1);
  torch::Tensor word = pool->norm(mean + pool->fusion_ffn->forward(mean));
  EXPECT_LT((out.word_embeddings - word).abs().max().item<double>(), kPoolingLoopTol);
}

TEST(SegmentPoolingTest, FiniteDifferenceGradientInDouble) {
  torch::manual_seed(12);
  const int64_t t = 7, s = 3, d = 4;
  SegmentPooling pool(SegmentPoolingOptions().dim(d).dropout(0.0));
  pool->to(torch::kDouble);
  pool->eval();
  torch::Tensor mask = torch::arange(t).unsqueeze(0) < torch::tensor({7, 5}).unsqueeze(1);
  torch::Tensor hidden = torch::randn({2, t, d}, torch::kDouble) * mask.unsqueeze(-1);
  torch::Tensor probs = torch::rand({2, t - 1}, torch::kDouble) * 0.8 + 0.1;
  // Through the hidden states and through the boundary probabilities (membership).
  auto f_hidden = [&](const torch::Tensor& h) {
    return pool->forward(h, soft_membership(probs, mask, s), mask).word_embeddings;
  };
  auto f_probs = [&](const torch::Tensor& p) {
    PoolingOutput o = pool->forward(hidden, soft_membership(p, mask, s), mask);
    return torch::cat({o.word_embeddings.flatten(), o.segment_embeddings.flatten()});
  };
  EXPECT_LT(testing::max_gradient_error(f_hidden, hidden), kPoolingGradTol);
  EXPECT_LT(testing::max_gradient_error(f_probs, probs), kPoolingGradTol);
}

}  // namespace
}  // namespace morpheus::model
