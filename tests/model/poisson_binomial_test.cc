// SPDX-License-Identifier: MIT
// Poisson–binomial segmentation: brute-force enumeration, row sums, hard one-hot rows, fused vs
// tensor-op vs naive autograd, finite-difference gradients in double.
#include "model/poisson_binomial.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <set>
#include <vector>

#include "tests/model/model_test_util.h"

namespace morpheus::model {
namespace {

constexpr double kPbExactTol = 1e-12;  // double DP vs enumeration
constexpr double kPbKernelTol = 1e-6;  // fused vs tensor ops (float)
constexpr double kPbGradTol = 1e-7;    // finite differences in double

// M[j,k] by enumerating all 2^(T-1) boundary patterns of one word.
torch::Tensor brute_force_membership(const torch::Tensor& p, int64_t s) {
  const int64_t gaps = p.size(0), t = gaps + 1;
  torch::Tensor m = torch::zeros({t, s}, torch::kDouble);
  auto pa = p.accessor<double, 1>();
  auto ma = m.accessor<double, 2>();
  for (int64_t pattern = 0; pattern < (int64_t{1} << gaps); ++pattern) {
    double prob = 1.0;
    for (int64_t g = 0; g < gaps; ++g) prob *= ((pattern >> g) & 1) ? pa[g] : 1.0 - pa[g];
    int64_t count = 0;
    for (int64_t j = 0; j < t; ++j) {
      if (j > 0) count += (pattern >> (j - 1)) & 1;
      ma[j][std::min(count, s - 1)] += prob;
    }
  }
  return m;
}

TEST(PoissonBinomialTest, MatchesBruteForceEnumeration) {
  torch::manual_seed(1);
  for (int64_t t : {2, 5, 12}) {
    for (int64_t s : {2, 4, 12}) {
      torch::Tensor probs = torch::rand({3, t - 1}, torch::kDouble);
      torch::Tensor mask = torch::ones({3, t}, torch::kBool);
      for (auto kernel : {SegmentationKernel::kFused, SegmentationKernel::kTensorOps}) {
        torch::Tensor m = soft_membership(probs, mask, s, kernel);
        for (int64_t w = 0; w < 3; ++w) {
          torch::Tensor expected = brute_force_membership(probs[w], s);
          EXPECT_LT((m[w] - expected).abs().max().item<double>(), kPbExactTol)
              << "T=" << t << " S=" << s;
        }
      }
    }
  }
}

TEST(PoissonBinomialTest, ValidRowsSumToOnePaddedRowsAreZero) {
  torch::manual_seed(2);
  torch::Tensor probs = torch::rand({4, 11}, torch::kDouble);
  torch::Tensor lengths = torch::tensor({12, 7, 3, 2});
  torch::Tensor mask = torch::arange(12).unsqueeze(0) < lengths.unsqueeze(1);
  torch::Tensor m = soft_membership(probs, mask, 5);
  torch::Tensor sums = m.sum(-1);
  EXPECT_LT((sums - mask.to(torch::kDouble)).abs().max().item<double>(), kPbExactTol);
}

TEST(PoissonBinomialTest, HardProbabilitiesGiveOneHotRows) {
  torch::manual_seed(3);
  torch::Tensor hard = (torch::rand({16, 20}) > 0.6).to(torch::kFloat);
  torch::Tensor mask = torch::ones({16, 21}, torch::kBool);
  torch::Tensor m = soft_membership(hard, mask, 12);
  torch::Tensor counts = torch::cat({torch::zeros({16, 1}), hard.cumsum(1)}, 1).clamp_max(11);
  torch::Tensor expected =
      torch::nn::functional::one_hot(counts.to(torch::kLong), 12).to(torch::kFloat);
  EXPECT_TRUE(torch::equal(m, expected));
}

TEST(PoissonBinomialTest, FusedEqualsTensorOpsForwardAndBackward) {
  torch::manual_seed(4);
  for (auto dtype : {torch::kFloat, torch::kDouble}) {
    torch::Tensor probs = torch::rand({256, 31}, dtype);
    torch::Tensor mask = torch::arange(32).unsqueeze(0) < torch::randint(2, 33, {256, 1});
    torch::Tensor upstream = torch::randn({256, 32, 12}, dtype);
    std::vector<torch::Tensor> outs, grads;
    for (auto kernel : {SegmentationKernel::kFused, SegmentationKernel::kTensorOps}) {
      torch::Tensor p = probs.clone().requires_grad_(true);
      torch::Tensor m = soft_membership(p, mask, 12, kernel);
      (m * upstream).sum().backward();
      outs.push_back(m.detach());
      grads.push_back(p.grad());
    }
    const double tol = dtype == torch::kFloat ? kPbKernelTol : kPbExactTol;
    EXPECT_LT((outs[0] - outs[1]).abs().max().item<double>(), tol);
    // Gradients reach |g| ~ 10 here: compare relative to the largest one (float32 rounding).
    const double scale = std::max(1.0, grads[1].abs().max().item<double>());
    EXPECT_LT((grads[0] - grads[1]).abs().max().item<double>() / scale, tol);
  }
}

TEST(PoissonBinomialTest, AnalyticBackwardEqualsNaiveAutograd) {
  torch::manual_seed(5);
  torch::Tensor probs = torch::rand({8, 15}, torch::kDouble);
  torch::Tensor mask = torch::arange(16).unsqueeze(0) < torch::randint(2, 17, {8, 1});
  torch::Tensor upstream = torch::randn({8, 16, 4}, torch::kDouble);
  torch::Tensor p1 = probs.clone().requires_grad_(true);
  torch::Tensor p2 = probs.clone().requires_grad_(true);
  torch::Tensor fast = soft_membership(p1, mask, 4);
  torch::Tensor slow = soft_membership_naive(p2, mask, 4);
  (fast * upstream).sum().backward();
  (slow * upstream).sum().backward();
  EXPECT_LT((fast - slow).abs().max().item<double>(), kPbExactTol);
  EXPECT_LT((p1.grad() - p2.grad()).abs().max().item<double>(), kPbExactTol);
}

TEST(PoissonBinomialTest, NonPrefixMaskMatchesNaiveAutograd) {
  torch::manual_seed(17);
  // S = 12 runs the fused kernel's vector path, S = 5 its generic loops.
  for (int64_t s : {5, 12}) {
    torch::Tensor probs = torch::rand({6, 15}, torch::kDouble);
    torch::Tensor mask = torch::rand({6, 16}) > 0.3;  // holes: not a prefix of valid positions
    torch::Tensor upstream = torch::randn({6, 16, s}, torch::kDouble);
    for (auto kernel : {SegmentationKernel::kFused, SegmentationKernel::kTensorOps}) {
      torch::Tensor p1 = probs.clone().requires_grad_(true);
      torch::Tensor p2 = probs.clone().requires_grad_(true);
      torch::Tensor fast = soft_membership(p1, mask, s, kernel);
      torch::Tensor slow = soft_membership_naive(p2, mask, s);
      (fast * upstream).sum().backward();
      (slow * upstream).sum().backward();
      EXPECT_LT((fast - slow).abs().max().item<double>(), kPbExactTol) << "S=" << s;
      EXPECT_LT((p1.grad() - p2.grad()).abs().max().item<double>(), kPbExactTol) << "S=" << s;
    }
  }
}

TEST(PoissonBinomialTest, BackwardIgnoresUpstreamOfMaskedPositions) {
  torch::manual_seed(18);
  for (auto kernel : {SegmentationKernel::kFused, SegmentationKernel::kTensorOps}) {
    for (int64_t s : {5, 12}) {
      const auto dtype = s == 5 ? torch::kDouble : torch::kFloat;
      torch::Tensor probs = torch::rand({16, 19}, dtype);
      torch::Tensor mask = torch::rand({16, 20}) > 0.4;
      torch::Tensor upstream = torch::randn({16, 20, s}, dtype);
      // Non-finite values where the output is masked must not reach the gradient.
      torch::Tensor poisoned = upstream.masked_fill(mask.logical_not().unsqueeze(-1),
                                                    std::numeric_limits<double>::infinity());
      std::vector<torch::Tensor> grads;
      for (const torch::Tensor& g : {upstream * mask.unsqueeze(-1), poisoned}) {
        torch::Tensor p = probs.clone().requires_grad_(true);
        soft_membership(p, mask, s, kernel).backward(g);
        grads.push_back(p.grad());
      }
      EXPECT_TRUE(torch::isfinite(grads[1]).all().item<bool>()) << "S=" << s;
      EXPECT_TRUE(torch::equal(grads[0], grads[1])) << "S=" << s;
    }
  }
}

TEST(PoissonBinomialTest, FusedKernelParallelForUsesIntraOpThreads) {
  // at::parallel_for is a header template: without OpenMP flags on our targets its `omp
  // parallel` pragma is dropped and the fused kernel runs on one thread whatever the setting.
  const int saved = torch::get_num_threads();
  torch::set_num_threads(2);
  std::mutex mu;
  std::set<int> threads;
  at::parallel_for(0, 1024, 1, [&](int64_t, int64_t) {
    std::lock_guard<std::mutex> lock(mu);
    threads.insert(at::get_thread_num());
  });
  torch::set_num_threads(saved);
  EXPECT_EQ(threads.size(), 2u);
}

TEST(PoissonBinomialTest, FiniteDifferenceGradientBothKernels) {
  torch::manual_seed(6);
  torch::Tensor probs = torch::rand({3, 9}, torch::kDouble) * 0.9 + 0.05;
  torch::Tensor mask = torch::arange(10).unsqueeze(0) < torch::tensor({10, 6, 3}).unsqueeze(1);
  for (auto kernel : {SegmentationKernel::kFused, SegmentationKernel::kTensorOps}) {
    auto f = [&](const torch::Tensor& p) { return soft_membership(p, mask, 4, kernel); };
    EXPECT_LT(testing::max_gradient_error(f, probs), kPbGradTol);
  }
}

TEST(PoissonBinomialTest, RejectsBadShapes) {
  torch::Tensor probs = torch::rand({2, 5});
  EXPECT_THROW(soft_membership(probs, torch::ones({2, 5}, torch::kBool), 4), c10::Error);
  EXPECT_THROW(soft_membership(probs, torch::ones({2, 6}, torch::kLong), 4), c10::Error);
  EXPECT_THROW(soft_membership(probs, torch::ones({2, 6}, torch::kBool), 1), c10::Error);
}

}  // namespace
}  // namespace morpheus::model
