// SPDX-License-Identifier: MIT
// Attention: masking, finite-difference gradients in double, packed rows, the fused kernel.
#include "model/attention.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/model/model_test_util.h"

namespace morpheus::model {
namespace {

constexpr double kAttentionGradTol = 1e-6;

TEST(RopeSelfAttentionTest, FiniteDifferenceGradientInDouble) {
  torch::manual_seed(8);
  RopeSelfAttention attn(RopeSelfAttentionOptions(8, 2, 8));
  attn->to(torch::kDouble);
  attn->eval();
  torch::Tensor mask = torch::arange(6).unsqueeze(0) < torch::tensor({6, 4}).unsqueeze(1);
  torch::Tensor x = torch::randn({2, 6, 8}, torch::kDouble) * mask.unsqueeze(-1);
  auto f = [&](const torch::Tensor& in) { return attn->forward(in, mask); };
  EXPECT_LT(testing::max_gradient_error(f, x), kAttentionGradTol);
}

TEST(RopeSelfAttentionTest, PaddedKeysDoNotChangeValidOutputs) {
  torch::manual_seed(9);
  RopeSelfAttention attn(RopeSelfAttentionOptions(8, 2, 16));
  attn->eval();
  torch::Tensor x = torch::randn({1, 10, 8});
  torch::Tensor mask = torch::arange(10).unsqueeze(0) < 5;
  torch::Tensor y1 = attn->forward(x, mask);
  torch::Tensor x2 = x.clone();
  x2.slice(1, 5) = torch::randn({1, 5, 8}) * 100;
  torch::Tensor y2 = attn->forward(x2, mask);
  EXPECT_LT((y1 - y2).abs().max().item<double>(), 1e-6);
  EXPECT_EQ(y1.slice(1, 5).abs().max().item<double>(), 0.0);
}

TEST(MultiheadAttentionTest, CausalMaskIgnoresFuture) {
  torch::manual_seed(10);
  MultiheadAttention mha(MultiheadAttentionOptions(8, 2));
  torch::Tensor x = torch::randn({1, 6, 8});
  torch::Tensor y1 = mha->forward(x, x, {}, true);
  torch::Tensor x2 = x.clone();
  x2.slice(1, 3) = torch::randn({1, 3, 8});
  torch::Tensor y2 = mha->forward(x2, x2, {}, true);
  EXPECT_LT((y1.slice(1, 0, 3) - y2.slice(1, 0, 3)).abs().max().item<double>(), 1e-6);
}

TEST(ValidRowsTest, PackedApplyEqualsDenseAndZeroesInvalidRows) {
  torch::manual_seed(31);
  torch::Tensor x = torch::randn({4, 7, 5}, torch::kDouble);
  torch::Tensor mask = torch::arange(7).unsqueeze(0) < torch::tensor({7, 3, 0, 5}).unsqueeze(1);
  torch::nn::Linear lin(5, 6);
  lin->to(torch::kDouble);
  std::vector<torch::Tensor> outs, grads;
  for (bool packing : {true, false}) {
    ValidRows::set_packing_enabled(packing);
    torch::Tensor xi = x.clone().requires_grad_(true);
    const ValidRows rows(mask);
    torch::Tensor y = rows.apply(xi, [&](const torch::Tensor& r) { return lin(r); });
    (y * y).sum().backward();
    outs.push_back(y.detach());
    grads.push_back(xi.grad());
  }
  ValidRows::set_packing_enabled(true);
  EXPECT_EQ(outs[0].sizes(), (std::vector<int64_t>{4, 7, 6}));
  EXPECT_LT((outs[0] - outs[1]).abs().max().item<double>(), 1e-12);
  EXPECT_LT((grads[0] - grads[1]).abs().max().item<double>(), 1e-12);
  torch::Tensor expected = lin(x) * mask.unsqueeze(-1);
  EXPECT_LT((outs[0] - expected).abs().max().item<double>(), 1e-12);
  EXPECT_EQ(outs[0].masked_select(mask.logical_not().unsqueeze(-1)).abs().sum().item<double>(),
            0.0);
}

TEST(ScaledDotAttentionTest, NoGradKernelEqualsTheAutogradPath) {
  torch::manual_seed(32);
  // Keys masked at the end, in the middle, and every key of one sequence masked.
  const torch::Tensor mask =
      torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0},
                    torch::kBool)
          .view({4, 6});
  for (const int64_t dh : {8, 13, 64}) {
    const torch::Tensor q = torch::randn({4, 3, 6, dh}), k = torch::randn({4, 3, 6, dh}),
                        v = torch::randn({4, 3, 6, dh});
    // Inputs that need a gradient take the matmul/softmax path; detached ones the fused kernel.
    const torch::Tensor reference =
        scaled_dot_attention(q.requires_grad_(true), k, v, mask, false, 0.0, false).detach();
    q.requires_grad_(false);
    torch::Tensor fused;
    {
      c10::InferenceMode inference;
      fused = scaled_dot_attention(q, k, v, mask, false, 0.0, false);
    }
    EXPECT_EQ(fused.sizes(), reference.sizes());
    EXPECT_LT((fused - reference).abs().max().item<double>(), 1e-5) << "dh " << dh;
    EXPECT_EQ(fused[3].abs().sum().item<double>(), 0.0);  // no key allowed -> zero output
    const torch::Tensor unmasked = scaled_dot_attention(q, k, v, {}, false, 0.0, false);
    const torch::Tensor unmasked_ref =
        scaled_dot_attention(q.requires_grad_(true), k, v, {}, false, 0.0, false).detach();
    q.requires_grad_(false);
    EXPECT_LT((unmasked - unmasked_ref).abs().max().item<double>(), 1e-5) << "dh " << dh;
  }
}

// softmax(q·kᵀ/√Dh + masks)·v written out in double, zero where no key is allowed.
torch::Tensor reference_attention(const torch::Tensor& q, const torch::Tensor& k,
                                  const torch::Tensor& v, const torch::Tensor& key_mask,
                                  bool causal) {
  const int64_t tq = q.size(2), tk = k.size(2);
  torch::Tensor allowed = torch::ones({q.size(0), 1, tq, tk}, torch::kBool);
  if (key_mask.defined()) allowed = allowed & key_mask.view({q.size(0), 1, 1, tk});
  if (causal) allowed = allowed & torch::ones({tq, tk}, torch::kBool).tril().view({1, 1, tq, tk});
  const torch::Tensor qd = q.to(torch::kDouble), kd = k.to(torch::kDouble);
  torch::Tensor scores = torch::matmul(qd, kd.transpose(-2, -1)) / std::sqrt(double(q.size(3)));
  scores = scores.masked_fill(allowed.logical_not(), -std::numeric_limits<double>::infinity());
  torch::Tensor w = torch::softmax(scores, -1).masked_fill(allowed.logical_not(), 0.0);
  return torch::matmul(w, v.to(torch::kDouble));
}

// The training path (inputs that need a gradient): LibTorch 2.x's fused kernel, or the
// written-out one on 1.13, against the formula in double, with its gradient.
TEST(ScaledDotAttentionTest, TrainingPathMatchesTheFormulaInDouble) {
  torch::manual_seed(33);
  const torch::Tensor mask =
      torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0},
                    torch::kBool)
          .view({4, 6});
  struct Case {
    torch::Tensor key_mask;
    bool causal;
  };
  for (const Case& c : {Case{mask, false}, Case{{}, true}, Case{{}, false}, Case{mask, true}}) {
    const torch::Tensor q = torch::randn({4, 3, 6, 16}).requires_grad_(true);
    const torch::Tensor k = torch::randn({4, 3, 6, 16}).requires_grad_(true);
    const torch::Tensor v = torch::randn({4, 3, 6, 16}).requires_grad_(true);
    const torch::Tensor out = scaled_dot_attention(q, k, v, c.key_mask, c.causal, 0.0, true);
    const torch::Tensor ref = reference_attention(q, k, v, c.key_mask, c.causal);
    EXPECT_LT((out.to(torch::kDouble) - ref).abs().max().item<double>(), 1e-5)
        << "causal " << c.causal << ", key mask " << c.key_mask.defined();
    const torch::Tensor upstream = torch::randn({4, 3, 6, 16});
    const auto grads = torch::autograd::grad({out}, {q, k, v}, {upstream});
    const auto ref_grads = torch::autograd::grad({ref}, {q, k, v}, {upstream.to(torch::kDouble)});
    for (size_t i = 0; i < grads.size(); ++i) {
      EXPECT_TRUE(torch::isfinite(grads[i]).all().item<bool>()) << "input " << i;
      EXPECT_LT((grads[i].to(torch::kDouble) - ref_grads[i]).abs().max().item<double>(), 1e-4)
          << "input " << i << ", causal " << c.causal;
    }
  }
}

}  // namespace
}  // namespace morpheus::model
