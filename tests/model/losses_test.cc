// SPDX-License-Identifier: MIT
// Training objectives: hand-computed aux boundary losses on one- and two-word inputs (masking,
// confidence, clamping, depth weights, zero cases), the batch contract, the loss weights of an
// epoch, and MorpheusWithHeads' total as the weighted sum of its terms.
#include "model/losses.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "model/boundary_detector.h"
#include "tests/model/model_test_util.h"
#include "tests/support/synthetic_batch.h"

namespace morpheus::model {
namespace {

constexpr double kLossHandTol = 1e-6;

// One word, three gaps, teacher labels 0 1 0.
torch::Tensor one_word_labels() { return torch::tensor({0.0f, 1.0f, 0.0f}).view({1, 3}); }
torch::Tensor all_gaps(int64_t n, int64_t g) { return torch::ones({n, g}, torch::kBool); }

TEST(AuxBoundaryLossTest, HandComputedAtZeroLogits) {
  // σ(0) = ½: BCE is ln 2 at a negative gap and pos_weight·ln 2 = 4 ln 2 at the positive one, mean
  // 2 ln 2; count term 0.2·(1.5 − 1)² = 0.05.
  const double per_word = 2.0 * std::log(2.0) + 0.05;
  const torch::Tensor zero = torch::zeros({1, 3});
  const AuxLossOutput out = aux_boundary_loss({zero, zero}, one_word_labels(), torch::ones({1}),
                                              all_gaps(1, 3), {0.5, 2.0}, 4.0, 0.2);
  ASSERT_EQ(out.per_layer.size(), 2u);
  EXPECT_NEAR(out.per_layer[0].item<double>(), per_word, kLossHandTol);
  EXPECT_NEAR(out.per_layer[1].item<double>(), per_word, kLossHandTol);
  // Depth weights are applied as given (not normalised): 0.5 + 2.0.
  EXPECT_NEAR(out.total.item<double>(), 2.5 * per_word, kLossHandTol);
}

TEST(AuxBoundaryLossTest, InvalidGapsAreIgnored) {
  // Gap 2 is invalid: its label and its (extreme) logit are left out. Mean BCE over gaps 0 and 1
  // is (ln 2 + 4 ln 2)/2; the count term compares σ-sum ½+½ with one label: 0.
  const torch::Tensor labels = torch::tensor({0.0f, 1.0f, 1.0f}).view({1, 3});
  const torch::Tensor logits = torch::tensor({0.0f, 0.0f, -50.0f}).view({1, 3});
  const torch::Tensor gaps = torch::tensor({true, true, false}).view({1, 3});
  const AuxLossOutput out =
      aux_boundary_loss({logits}, labels, torch::ones({1}), gaps, {1.0}, 4.0, 0.2);
  EXPECT_NEAR(out.total.item<double>(), 2.5 * std::log(2.0), kLossHandTol);
}

TEST(AuxBoundaryLossTest, ConfidenceScalesTheBceButNotTheCountTerm) {
  const torch::Tensor zero = torch::zeros({1, 3});
  const AuxLossOutput out = aux_boundary_loss({zero}, one_word_labels(), torch::full({1}, 0.5f),
                                              all_gaps(1, 3), {1.0}, 4.0, 0.2);
  EXPECT_NEAR(out.total.item<double>(), 0.5 * 2.0 * std::log(2.0) + 0.05, kLossHandTol);
}

TEST(AuxBoundaryLossTest, AveragesOnlyOverSupervisedWordsWithAValidGap) {
  // Word 0 as in HandComputedAtZeroLogits; word 1 has confidence 0, word 2 no valid gap: both are
  // left out of the sum and of the count of words, whatever their logits.
  const torch::Tensor labels =
      torch::tensor({0, 1, 0, 1, 1, 1, 1, 0, 1}, torch::kFloat).view({3, 3});
  torch::Tensor logits = torch::zeros({3, 3});
  logits[1] = torch::tensor({-20.0f, 7.0f, -9.0f});
  logits[2] = torch::tensor({20.0f, -7.0f, 9.0f});
  torch::Tensor gaps = all_gaps(3, 3);
  gaps[2].fill_(false);
  const torch::Tensor conf = torch::tensor({1.0f, 0.0f, 1.0f});
  const AuxLossOutput out = aux_boundary_loss({logits}, labels, conf, gaps, {1.0}, 4.0, 0.2);
  EXPECT_NEAR(out.total.item<double>(), 2.0 * std::log(2.0) + 0.05, kLossHandTol);
}

TEST(AuxBoundaryLossTest, ZeroWhenNoWordIsSupervised) {
  const torch::Tensor logits = torch::randn({2, 3});
  const torch::Tensor labels = torch::tensor({0, 1, 0, 1, 0, 0}, torch::kFloat).view({2, 3});
  const AuxLossOutput out = aux_boundary_loss({logits, logits}, labels, torch::zeros({2}),
                                              all_gaps(2, 3), {1.0, 1.0}, 4.0, 0.2);
  EXPECT_EQ(out.total.item<double>(), 0.0);
  EXPECT_EQ(out.per_layer[0].item<double>(), 0.0);
}

TEST(AuxBoundaryLossTest, ZeroForPerfectConfidentLogits) {
  torch::Tensor labels = torch::tensor({{0.f, 1.f, 0.f}});
  torch::Tensor logits = (labels * 2 - 1) * 1000;  // clamped to ±30
  torch::Tensor gaps = torch::ones({1, 3}, torch::kBool);
  AuxLossOutput out = aux_boundary_loss({logits}, labels, torch::ones({1}), gaps, {1.0}, 4.0, 0.2);
  EXPECT_LT(out.total.item<double>(), 1e-6);
}

TEST(AuxBoundaryLossTest, LogitsAreClampedAtThirty) {
  // A confidently wrong logit −1000 at a positive gap costs pos_weight·(−log σ(−30)) ≈ 4·30, and
  // the count term (σ(−30) − 1)² ≈ 1.
  const torch::Tensor labels = torch::ones({1, 1});
  const torch::Tensor logits = torch::full({1, 1}, -1000.0f);
  const AuxLossOutput out =
      aux_boundary_loss({logits}, labels, torch::ones({1}), all_gaps(1, 1), {1.0}, 4.0, 0.5);
  EXPECT_NEAR(out.total.item<double>(), 4.0 * (30.0 + std::log1p(std::exp(-30.0))) + 0.5, 1e-4);
}

TEST(AuxBoundaryLossTest, RejectsMismatchedLayersWeightsAndMasks) {
  const torch::Tensor zero = torch::zeros({1, 3});
  EXPECT_THROW(aux_boundary_loss({zero, zero}, one_word_labels(), torch::ones({1}), all_gaps(1, 3),
                                 {1.0}, 4.0, 0.2),
               c10::Error);
  EXPECT_THROW(aux_boundary_loss({zero}, one_word_labels(), torch::ones({1}),
                                 all_gaps(1, 3).to(torch::kFloat), {1.0}, 4.0, 0.2),
               c10::Error);
  EXPECT_THROW(aux_boundary_loss({torch::zeros({1, 2})}, one_word_labels(), torch::ones({1}),
                                 all_gaps(1, 3), {1.0}, 4.0, 0.2),
               c10::Error);
  EXPECT_THROW(aux_boundary_loss({zero}, one_word_labels(), torch::ones({2}), all_gaps(1, 3), {1.0},
                                 4.0, 0.2),
               c10::Error);
}

TEST(MorpheusBatchTest, CheckAcceptsTheDocumentedLayoutOnly) {
  const ModelConfig c = testing::tiny_test_config();
  const MorpheusBatch good = testing::synthetic_batch(c, 2, 3, 6, 81);
  EXPECT_NO_THROW(good.check(c));
  MorpheusBatch labels_too_wide = good;
  labels_too_wide.boundary_labels = torch::zeros_like(good.char_ids, torch::kFloat);
  EXPECT_THROW(labels_too_wide.check(c), c10::Error);
  MorpheusBatch int32_ids = good;
  int32_ids.word_ids = good.word_ids.to(torch::kInt);
  EXPECT_THROW(int32_ids.check(c), c10::Error);
  MorpheusBatch short_confidence = good;
  short_confidence.confidence = good.confidence.slice(0, 1);
  EXPECT_THROW(short_confidence.check(c), c10::Error);
  ModelConfig short_words = c;
  short_words.max_word_len = good.char_ids.size(1) - 1;
  EXPECT_THROW(good.check(short_words), c10::Error);
  ModelConfig short_sentences = c;
  short_sentences.max_sent_len = good.word_index.size(1) - 1;
  EXPECT_THROW(good.check(short_sentences), c10::Error);
}

TEST(MorpheusBatchTest, ToCopiesEveryTensor) {
  const MorpheusBatch b = testing::synthetic_batch(testing::tiny_test_config(), 2, 2, 5, 82);
  const MorpheusBatch c = b.to(torch::Device(torch::kCPU));
  EXPECT_TRUE(torch::equal(b.char_ids, c.char_ids));
  EXPECT_TRUE(torch::equal(b.case_flags, c.case_flags));
  EXPECT_TRUE(torch::equal(b.boundary_labels, c.boundary_labels));
  EXPECT_TRUE(torch::equal(b.confidence, c.confidence));
  EXPECT_TRUE(torch::equal(b.word_ids, c.word_ids));
  EXPECT_TRUE(torch::equal(b.root_ids, c.root_ids));
  EXPECT_TRUE(torch::equal(b.suffix_ids, c.suffix_ids));
  EXPECT_TRUE(torch::equal(b.word_index, c.word_index));
}

TEST(LossWeightsTest, ForEpochUsesTheAuxCurriculumAndDropsMlmWithoutTheHead) {
  ModelConfig c;  // aux 0.5·0.8^epoch, floor 0.08
  c.sgns_weight = 0.6;
  c.ctr_weight = 0.25;
  c.mlm_weight = 0.9;
  const LossWeights first = LossWeights::for_epoch(c, 0);
  EXPECT_DOUBLE_EQ(first.aux, 0.5);
  EXPECT_DOUBLE_EQ(first.sgns, 0.6);
  EXPECT_DOUBLE_EQ(first.ctr, 0.25);
  EXPECT_DOUBLE_EQ(first.mlm, 0.9);
  EXPECT_DOUBLE_EQ(LossWeights::for_epoch(c, 1).aux, 0.4);
  EXPECT_DOUBLE_EQ(LossWeights::for_epoch(c, 12).aux, 0.08);
  c.use_mlm = false;
  EXPECT_EQ(LossWeights::for_epoch(c, 0).mlm, 0.0);
}

TEST(MorpheusWithHeadsTest, TotalIsTheWeightedSumOfTheTerms) {
  torch::manual_seed(83);
  const ModelConfig c = testing::tiny_test_config();
  MorpheusWithHeads all(c);
  const MorpheusBatch b = testing::synthetic_batch(c, 2, 4, 7, 84);
  const LossWeights w{0.5, 0.7, 0.3, 1.5};
  const LossOutput out = all->compute_losses(b, w);
  for (const auto& term : {out.aux, out.sgns, out.ctr, out.mlm}) {
    EXPECT_GT(term.item<double>(), 0.0);
  }
  const double sum = 0.5 * out.aux.item<double>() + 0.7 * out.sgns.item<double>() +
                     0.3 * out.ctr.item<double>() + 1.5 * out.mlm.item<double>();
  EXPECT_NEAR(out.total.item<double>(), sum, 1e-5);
  ASSERT_EQ(static_cast<int64_t>(out.aux_layers.size()), c.n_layers_detector);
  const int64_t t = b.char_ids.size(1);
  EXPECT_EQ(out.boundary_logits.sizes(), (std::vector<int64_t>{8, t - 1}));
  EXPECT_TRUE(torch::equal(out.gap_mask, gap_mask(b.char_ids.ne(0))));
}

TEST(MorpheusWithHeadsTest, SuffixLossPullsTheInflectionPartOfOneSuffixTogether) {
  torch::manual_seed(87);
  const ModelConfig c = testing::tiny_test_config();
  MorpheusWithHeads all(c);
  MorpheusBatch b = testing::synthetic_batch(c, 2, 4, 7, 88);
  b.suffix_ids = torch::tensor({5, 5, 0, 9, 9, 5, 0, 9}, torch::kLong);  // two suffixes, two bare
  LossWeights w{0.0, 0.0, 0.0, 0.0};
  w.sfx = 0.4;
  const LossOutput out = all->compute_losses(b, w);
  ASSERT_TRUE(torch::isfinite(out.sfx).item<bool>());
  EXPECT_GT(out.sfx.item<double>(), 0.0);
  EXPECT_NEAR(out.total.item<double>(), 0.4 * out.sfx.item<double>(), 1e-6);
  out.total.backward();
  const torch::Tensor& g = all->model->segment_encoder->fusion_ffn->parameters()[0].grad();
  ASSERT_TRUE(g.defined());
  EXPECT_GT(g.abs().sum().item<double>(), 0.0);  // the loss trains the fusion of the suffixes
  // Without two words of one suffix there is no positive pair: the loss reads 0.
  b.suffix_ids = torch::tensor({1, 2, 3, 4, 0, 0, 0, 0}, torch::kLong);
  EXPECT_EQ(all->compute_losses(b, w).sfx.item<double>(), 0.0);
  EXPECT_EQ(all->compute_losses(b, LossWeights{1.0, 0.0, 0.0, 0.0}).sfx.item<double>(), 0.0);
}

TEST(MorpheusWithHeadsTest, TermsWithZeroWeightAreSkippedAndReadZero) {
  torch::manual_seed(85);
  ModelConfig c = testing::tiny_test_config();
  c.use_mlm = false;
  MorpheusWithHeads all(c);
  EXPECT_TRUE(all->mlm_head.is_empty());
  for (const auto& p : all->named_parameters()) {
    EXPECT_NE(p.key().rfind("mlm_head.", 0), 0u) << p.key();
  }
  const MorpheusBatch b = testing::synthetic_batch(c, 2, 3, 6, 86);
  // The MLM weight is ignored without the head.
  const LossOutput out = all->compute_losses(b, LossWeights{1.0, 0.0, 0.0, 1.0});
  EXPECT_EQ(out.sgns.item<double>(), 0.0);
  EXPECT_EQ(out.ctr.item<double>(), 0.0);
  EXPECT_EQ(out.mlm.item<double>(), 0.0);
  EXPECT_GT(out.aux.item<double>(), 0.0);
  EXPECT_EQ(out.total.item<double>(), out.aux.item<double>());
  const LossOutput no_aux = all->compute_losses(b, LossWeights{0.0, 0.0, 1.0, 0.0});
  EXPECT_EQ(no_aux.aux.item<double>(), 0.0);
  EXPECT_TRUE(no_aux.aux_layers.empty());
  EXPECT_EQ(no_aux.total.item<double>(), no_aux.ctr.item<double>());
}

}  // namespace
}  // namespace morpheus::model
