// SPDX-License-Identifier: MIT
// The whole model and its losses: padding invariance, gradient paths to the boundary detector,
// overfitting one batch, determinism, parameter counts of the paper configuration.
#include "model/morpheus.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

#include "model/attention.h"
#include "model/boundary_detector.h"
#include "model/losses.h"
#include "tests/model/model_test_util.h"
#include "tests/support/synthetic_batch.h"

namespace morpheus::model {
namespace {

constexpr double kMorpheusPadTol = 1e-5;

TEST(MorpheusTest, PaperConfigParameterCounts) {
  ModelConfig c;  // defaults are the paper configuration
  Morpheus m(c);
  EXPECT_EQ(count_parameters(*m->char_encoder), 2919968);
  EXPECT_EQ(count_parameters(*m->boundary_detector), 4108804);
  EXPECT_EQ(count_parameters(*m->segment_encoder), 411520);
  EXPECT_EQ(count_parameters(*m), 7440292);
  MlmHead mlm(make_mlm_options(c));
  EXPECT_EQ(count_parameters(*mlm), 7469836);
}

TEST(MorpheusTest, AddingPaddingChangesNoOutput) {
  torch::manual_seed(13);
  ModelConfig c = testing::tiny_test_config();
  Morpheus m(c);
  m->eval();
  MorpheusBatch b = testing::synthetic_batch(c, 2, 3, 8, 99);  // T = 10
  const int64_t t = b.char_ids.size(1);
  MorpheusOutput short_out = m->forward(b.char_ids, b.case_flags);
  torch::Tensor wide_ids = torch::zeros({6, 32}, torch::kLong);
  torch::Tensor wide_case = torch::zeros({6, 32}, torch::kLong);
  wide_ids.slice(1, 0, t) = b.char_ids;
  wide_case.slice(1, 0, t) = b.case_flags;
  MorpheusOutput wide_out = m->forward(wide_ids, wide_case);
  // Each word alone (a batch of one, padded to its own length + 3).
  for (int64_t w = 0; w < 6; ++w) {
    MorpheusOutput one = m->forward(b.char_ids.slice(0, w, w + 1), b.case_flags.slice(0, w, w + 1));
    EXPECT_LT((one.word_embeddings[0] - short_out.word_embeddings[w]).abs().max().item<double>(),
              kMorpheusPadTol);
  }
  EXPECT_LT((short_out.word_embeddings - wide_out.word_embeddings).abs().max().item<double>(),
            kMorpheusPadTol);
  EXPECT_LT(
      (short_out.char_hidden - wide_out.char_hidden.slice(1, 0, t)).abs().max().item<double>(),
      kMorpheusPadTol);
  EXPECT_LT((short_out.boundary_probs - wide_out.boundary_probs.slice(1, 0, t - 1))
                .abs()
                .max()
                .item<double>(),
            kMorpheusPadTol);
  EXPECT_LT((short_out.membership - wide_out.membership.slice(1, 0, t)).abs().max().item<double>(),
            kMorpheusPadTol);
  EXPECT_EQ(wide_out.membership.slice(1, t).abs().max().item<double>(), 0.0);
}

TEST(MorpheusTest, RowPackingMatchesDenseForwardAndGradients) {
  // Position-wise layers on the valid rows only (CPU default) vs on every row.
  ModelConfig c = testing::tiny_test_config();
  MorpheusBatch b = testing::synthetic_batch(c, 3, 4, 12, 5);  // lengths 3..12: much padding
  b.char_ids = torch::cat({b.char_ids, torch::zeros({b.char_ids.size(0), 5}, torch::kLong)}, 1);
  b.case_flags = torch::cat({b.case_flags, torch::zeros_like(b.case_flags.slice(1, 0, 5))}, 1);
  auto run = [&](bool packing) {
    ValidRows::set_packing_enabled(packing);
    torch::manual_seed(21);
    Morpheus m(c);
    m->train();  // dropout 0 in the tiny config: deterministic
    MorpheusOutput out = m->forward(b.char_ids, b.case_flags);
    (out.word_embeddings.pow(2).sum() + out.boundary_probs.sum() + out.char_hidden.sum())
        .backward();
    std::vector<torch::Tensor> r{out.word_embeddings.detach(), out.boundary_probs.detach(),
                                 out.char_hidden.detach(), out.boundary_logits.detach()};
    for (const auto& p : m->parameters()) {  // (some heads' parameters get no gradient here)
      r.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
    }
    return r;
  };
  const std::vector<torch::Tensor> packed = run(true);
  const std::vector<torch::Tensor> dense = run(false);
  ValidRows::set_packing_enabled(true);
  ASSERT_EQ(packed.size(), dense.size());
  for (size_t i = 0; i < packed.size(); ++i) {
    const double scale = std::max(1.0, dense[i].abs().max().item<double>());
    EXPECT_LT((packed[i] - dense[i]).abs().max().item<double>() / scale, kMorpheusPadTol)
        << "tensor " << i;
  }
  // Logits of gaps that are not between two valid positions are 0 on both paths.
  const torch::Tensor invalid_gaps = gap_mask(b.char_ids.ne(0)).logical_not();
  EXPECT_EQ(packed[3].masked_select(invalid_gaps).abs().max().item<double>(), 0.0);
  EXPECT_EQ(dense[3].masked_select(invalid_gaps).abs().max().item<double>(), 0.0);
}

TEST(MorpheusTest, HardInferenceGivesOneHotMembership) {
  torch::manual_seed(14);
  ModelConfig c = testing::tiny_test_config();
  Morpheus m(c);
  m->eval();
  MorpheusBatch b = testing::synthetic_batch(c, 1, 4, 10, 5);
  MorpheusOutput out = m->forward(b.char_ids, b.case_flags, /*hard=*/true);
  torch::Tensor maxes = std::get<0>(out.membership.max(-1));
  EXPECT_TRUE(torch::equal(maxes, out.mask.to(torch::kFloat)));
}

// Gradient norm of the final detector layer's scorer after backward of one loss term.
double detector_grad_norm(const LossWeights& weights) {
  torch::manual_seed(15);
  ModelConfig c = testing::tiny_test_config();
  MorpheusWithHeads all(c);
  MorpheusBatch b = testing::synthetic_batch(c, 3, 6, 8, 21);
  LossOutput out = all->compute_losses(b, weights);
  out.total.backward();
  auto* last = all->model->boundary_detector->layers[c.n_layers_detector - 1]->as<DetectorLayer>();
  torch::Tensor g = last->boundary_scorer->parameters().front().grad();
  return g.defined() ? g.norm().item<double>() : 0.0;
}

TEST(MorpheusTest, SgnsGradientReachesBoundaryDetector) {
  EXPECT_GT(detector_grad_norm({0.0, 1.0, 0.0, 0.0}), 0.0);
}

TEST(MorpheusTest, ContrastiveGradientReachesBoundaryDetector) {
  EXPECT_GT(detector_grad_norm({0.0, 0.0, 1.0, 0.0}), 0.0);
}

TEST(MorpheusTest, MlmGradientReachesBoundaryDetector) {
  EXPECT_GT(detector_grad_norm({0.0, 0.0, 0.0, 1.0}), 0.0);
}

struct LossValues {
  double total, aux, sgns, ctr, mlm;
};

LossValues losses_after_training(int64_t steps, uint64_t seed, LossValues* first) {
  torch::manual_seed(seed);
  ModelConfig c = testing::tiny_test_config();
  MorpheusWithHeads all(c);
  MorpheusBatch b = testing::synthetic_batch(c, 4, 6, 8, 33);
  torch::optim::Adam opt(all->parameters(), torch::optim::AdamOptions(3e-3));
  const LossWeights w{0.5, 0.7, 0.3, 1.0};
  LossValues v{};
  for (int64_t s = 0; s < steps; ++s) {
    torch::manual_seed(seed + 1);  // same negatives and MLM masks every step
    opt.zero_grad();
    LossOutput out = all->compute_losses(b, w);
    out.total.backward();
    opt.step();
    v = {out.total.item<double>(), out.aux.item<double>(), out.sgns.item<double>(),
         out.ctr.item<double>(), out.mlm.item<double>()};
    if (s == 0 && first != nullptr) *first = v;
  }
  return v;
}

TEST(MorpheusTest, TinyModelOverfitsOneBatch) {
  LossValues first{};
  LossValues last = losses_after_training(60, 100, &first);
  EXPECT_LT(last.total, 0.5 * first.total);
  EXPECT_LT(last.aux, first.aux);
  EXPECT_LT(last.sgns, first.sgns);
  EXPECT_LT(last.ctr, first.ctr);
  EXPECT_LT(last.mlm, first.mlm);
}

TEST(MorpheusTest, SameSeedSameResult) {
  LossValues a = losses_after_training(3, 7, nullptr);
  LossValues b = losses_after_training(3, 7, nullptr);
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.mlm, b.mlm);
  EXPECT_EQ(a.sgns, b.sgns);
}

}  // namespace
}  // namespace morpheus::model
