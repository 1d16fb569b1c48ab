// SPDX-License-Identifier: MIT
// Training heads: the sentence layout of packed rows, the SGNS negative distribution and loss
// (against a brute-force loop over the window pairs), the root-family InfoNCE (hand-computed and
// brute force), the pre-LN layers' masks, and which targets and inputs the MLM loss reads.
#include "model/heads.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

namespace morpheus::model {
namespace {

constexpr double kHeadsLossTol = 1e-5;
constexpr double kHeadsUnchangedTol = 1e-6;

TEST(SentenceLayoutTest, GathersRowsIntoSlotsAndZeroesEmptySlots) {
  const torch::Tensor rows = torch::tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}).view({3, 2});
  const torch::Tensor word_index = torch::tensor({2, -1, 0, 1, -1, -1}, torch::kLong).view({2, 3});
  const torch::Tensor out = to_sentence_layout(rows, word_index);
  const torch::Tensor expected =
      torch::tensor({5.0, 6.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0}).view({2, 3, 2});
  EXPECT_TRUE(torch::equal(out, expected));
  // One value per row (word ids): [B,W].
  const torch::Tensor ids = torch::tensor({7, 8, 9}, torch::kLong);
  EXPECT_TRUE(torch::equal(to_sentence_layout(ids, word_index),
                           torch::tensor({9, 0, 7, 8, 0, 0}, torch::kLong).view({2, 3})));
}

TEST(SentenceLayoutTest, RejectsNonInt64Index) {
  EXPECT_THROW(to_sentence_layout(torch::zeros({2, 2}), torch::zeros({1, 2}, torch::kInt)),
               c10::Error);
}

TEST(SgnsHeadTest, NegativeDistributionIsCountsToTheThreeQuartersWithoutUnk) {
  SgnsHead sgns(SgnsHeadOptions().vocab_size(4).dim(2));
  // Default: uniform over the non-UNK ids.
  EXPECT_TRUE(torch::allclose(sgns->neg_dist, torch::tensor({0.0f, 1.0f / 3, 1.0f / 3, 1.0f / 3})));
  // 1^0.75 = 1, 16^0.75 = 8, 81^0.75 = 27; UNK's count is dropped; sum 36.
  sgns->set_unigram_counts(torch::tensor({100, 1, 16, 81}, torch::kLong));
  const std::vector<double> expected{0.0, 1.0 / 36, 8.0 / 36, 27.0 / 36};
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(sgns->neg_dist[i].item<double>(), expected[static_cast<size_t>(i)], 1e-7) << i;
  }
}

TEST(SgnsHeadTest, CountsMustCoverTheVocabularyAndNotBeAllUnk) {
  SgnsHead sgns(SgnsHeadOptions().vocab_size(4).dim(2));
  EXPECT_THROW(sgns->set_unigram_counts(torch::ones({3})), c10::Error);
  EXPECT_THROW(sgns->set_unigram_counts(torch::tensor({5.0, 0.0, 0.0, 0.0})), c10::Error);
}

// Brute-force SGNS loss when every negative is id `neg`: mean over the valid (centre, context)
// pairs of −log σ(c·u) − log σ(−c·n).
double sgns_brute_force(const torch::Tensor& centre, const torch::Tensor& word_ids,
                        const torch::Tensor& word_index, const torch::Tensor& table, int64_t window,
                        int64_t neg) {
  auto log_sigmoid = [](double z) { return -std::log1p(std::exp(-z)); };
  const auto dot = [&](int64_t word, int64_t id) {
    return (centre[word].to(torch::kDouble) * table[id].to(torch::kDouble)).sum().item<double>();
  };
  double sum = 0.0;
  int64_t pairs = 0;
  const int64_t w = word_index.size(1);
  for (int64_t b = 0; b < word_index.size(0); ++b) {
    for (int64_t t = 0; t < w; ++t) {
      const int64_t c = word_index[b][t].item<int64_t>();
      if (c < 0) continue;
      for (int64_t d = -window; d <= window; ++d) {
        const int64_t s = t + d;
        if (d == 0 || s < 0 || s >= w) continue;
        const int64_t ctx_word = word_index[b][s].item<int64_t>();
        if (ctx_word < 0) continue;
        const int64_t ctx = word_ids[ctx_word].item<int64_t>();
        if (ctx == 0) continue;
        sum += -log_sigmoid(dot(c, ctx)) - log_sigmoid(-dot(c, neg));
        ++pairs;
      }
    }
  }
  return pairs == 0 ? 0.0 : sum / static_cast<double>(pairs);
}

TEST(SgnsHeadTest, LossEqualsBruteForceOverWindowPairs) {
  torch::manual_seed(71);
  SgnsHead sgns(SgnsHeadOptions().vocab_size(6).dim(4).n_negatives(3).window(2));
  {
    torch::NoGradGuard no_grad;
    sgns->context_embedding->weight.normal_();
  }
  // Every negative is id 4: the loss is deterministic.
  sgns->set_unigram_counts(torch::tensor({0, 0, 0, 0, 9, 0}, torch::kLong));
  // Empty slots inside a row, a UNK word (packed 2) and pairs beyond the window (slots 0 and 4).
  const torch::Tensor word_index =
      torch::tensor({0, 1, -1, 2, 3, 4, 5, -1, -1, -1}, torch::kLong).view({2, 5});
  const torch::Tensor word_ids = torch::tensor({1, 2, 0, 3, 4, 1}, torch::kLong);
  const torch::Tensor centre = torch::randn({6, 4});
  const double loss = sgns->forward(centre, word_ids, word_index).item<double>();
  const double expected = sgns_brute_force(centre, word_ids, word_index,
                                           sgns->context_embedding->weight.detach(), 2, 4);
  EXPECT_NEAR(loss, expected, kHeadsLossTol);
}

TEST(SgnsHeadTest, LossIsZeroWhenNoPairIsValid) {
  torch::manual_seed(72);
  SgnsHead sgns(SgnsHeadOptions().vocab_size(5).dim(3).n_negatives(2).window(1));
  // Single-word rows, and a row whose only neighbour is UNK.
  const torch::Tensor word_index = torch::tensor({0, -1, 1, -1, 2, 3}, torch::kLong).view({3, 2});
  const torch::Tensor word_ids = torch::tensor({2, 3, 0, 0}, torch::kLong);
  const torch::Tensor loss = sgns->forward(torch::randn({4, 3}), word_ids, word_index);
  EXPECT_EQ(loss.item<double>(), 0.0);
}

TEST(RootFamilyInfoNceTest, HandComputedValueForOneFamily) {
  // Anchors 0 and 1 share root 7 (cosine 1 after normalisation), word 2 is orthogonal and alone
  // in its family (no anchor). Per anchor: −log(e^{1/τ} / (e^{1/τ} + e^0)) with τ = 0.5.
  const torch::Tensor e = torch::tensor({1.0, 0.0, 3.0, 0.0, 0.0, 2.0}).view({3, 2});
  const torch::Tensor roots = torch::tensor({7, 7, 5}, torch::kLong);
  const double expected = std::log1p(std::exp(2.0)) - 2.0;
  EXPECT_NEAR(root_family_infonce(e, roots, 0.5).item<double>(), expected, kHeadsLossTol);
}

TEST(RootFamilyInfoNceTest, EqualsBruteForceSupConAverage) {
  torch::manual_seed(73);
  const int64_t n = 7;
  const double tau = 0.3;
  const torch::Tensor e = torch::randn({n, 5}, torch::kDouble);
  const torch::Tensor roots = torch::tensor({1, 2, 1, 0, 0, 2, 1}, torch::kLong);
  const torch::Tensor u = e / e.norm(2, {1}, /*keepdim=*/true);
  double total = 0.0;
  int anchors = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ri = roots[i].item<int64_t>();
    if (ri == 0) continue;
    double denom = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      if (j != i) denom += std::exp((u[i] * u[j]).sum().item<double>() / tau);
    }
    double sum = 0.0;
    int positives = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (j == i || roots[j].item<int64_t>() != ri) continue;
      sum += -((u[i] * u[j]).sum().item<double>() / tau - std::log(denom));
      ++positives;
    }
    if (positives == 0) continue;
    total += sum / positives;
    ++anchors;
  }
  EXPECT_NEAR(root_family_infonce(e, roots, tau).item<double>(), total / anchors, 1e-9);
}

TEST(RootFamilyInfoNceTest, ZeroWhenNoAnchorHasAPositive) {
  const torch::Tensor e = torch::randn({4, 3});
  EXPECT_EQ(root_family_infonce(e, torch::tensor({0, 0, 3, 4}, torch::kLong), 0.1).item<double>(),
            0.0);
}

TEST(PreLnEncoderLayerTest, MaskedSlotsDoNotChangeValidOutputs) {
  torch::manual_seed(74);
  PreLnEncoderLayer layer(PreLnLayerOptions(8, 2, 16));
  layer->eval();
  const torch::Tensor mask = torch::tensor({1, 1, 0, 1, 0}, torch::kBool).view({1, 5});
  const torch::Tensor x = torch::randn({1, 5, 8});
  torch::Tensor x2 = x.clone();
  x2[0][2] = torch::randn({8}) * 30;
  x2[0][4] = torch::randn({8}) * 30;
  const torch::Tensor y = layer->forward(x, mask), y2 = layer->forward(x2, mask);
  for (const int64_t t : {0, 1, 3}) {
    EXPECT_LT((y[0][t] - y2[0][t]).abs().max().item<double>(), kHeadsUnchangedTol) << t;
  }
}

TEST(PreLnDecoderLayerTest, OutputsDoNotDependOnLaterPositions) {
  torch::manual_seed(75);
  PreLnDecoderLayer layer(PreLnLayerOptions(8, 2, 16));
  layer->eval();
  const torch::Tensor x = torch::randn({2, 6, 8}), memory = torch::randn({2, 1, 8});
  torch::Tensor x2 = x.clone();
  x2.slice(1, 3) = torch::randn({2, 3, 8});
  const torch::Tensor y = layer->forward(x, memory), y2 = layer->forward(x2, memory);
  EXPECT_LT((y.slice(1, 0, 3) - y2.slice(1, 0, 3)).abs().max().item<double>(), kHeadsUnchangedTol);
  EXPECT_GT((y.slice(1, 3) - y2.slice(1, 3)).abs().max().item<double>(), kHeadsUnchangedTol);
  // The memory (the masked word's context vector) reaches every position.
  const torch::Tensor y3 = layer->forward(x, memory * -2.0);
  EXPECT_GT((y.select(1, 0) - y3.select(1, 0)).abs().max().item<double>(), kHeadsUnchangedTol);
}

MlmHeadOptions tiny_mlm_options() {
  return MlmHeadOptions()
      .dim(8)
      .num_heads(2)
      .char_vocab_size(8)
      .max_word_len(6)
      .max_sent_len(4)
      .ctx_layers(1)
      .dec_layers(1)
      .ctx_ffn(16)
      .dec_ffn(16)
      .dropout(0.0)
      .mask_rate(0.5);
}

// Three words [BOS, chars…, EOS, PAD…] in two sentence rows: (0, 1) and (2).
struct MlmInput {
  torch::Tensor words, char_ids, word_index;
};

MlmInput mlm_input() {
  return {torch::randn({3, 8}),
          torch::tensor({2, 5, 6, 3, 0, 0, 2, 4, 3, 0, 0, 0, 2, 7, 7, 7, 3, 0}, torch::kLong)
              .view({3, 6}),
          torch::tensor({0, 1, -1, 2, -1, -1}, torch::kLong).view({2, 3})};
}

// The masked [2,3] slots with words 0, 1 and 2 masked as given.
torch::Tensor mlm_slots(bool w0, bool w1, bool w2) {
  torch::Tensor m = torch::zeros({2, 3}, torch::kBool);
  m[0][0] = w0;
  m[0][1] = w1;
  m[1][0] = w2;
  return m;
}

TEST(MlmHeadTest, LossAveragesTheTargetsAfterBosAndSkipsPad) {
  // With a zero output weight and bias b_c = c every position predicts the same logits, so the
  // cross-entropy of target c is logsumexp(0..7) − c, and the loss is logsumexp − mean(targets).
  torch::manual_seed(76);
  MlmHead mlm(tiny_mlm_options());
  mlm->eval();
  {
    torch::NoGradGuard no_grad;
    mlm->char_out_proj->weight.zero_();
    mlm->char_out_proj->bias.copy_(torch::arange(8, torch::kFloat));
  }
  const double lse = torch::logsumexp(torch::arange(8, torch::kDouble), 0).item<double>();
  const MlmInput in = mlm_input();
  // Words 0 and 1 masked: targets 5 6 3 and 4 3 (BOS and PAD excluded), mean 4.2.
  const MlmOutput a =
      mlm->forward(in.words, in.char_ids, in.word_index, mlm_slots(true, true, false));
  EXPECT_NEAR(a.loss.item<double>(), lse - 4.2, kHeadsLossTol);
  EXPECT_EQ(a.num_masked.item<int64_t>(), 2);
  // Word 2 only: targets 7 7 7 3, mean 6.
  const MlmOutput b =
      mlm->forward(in.words, in.char_ids, in.word_index, mlm_slots(false, false, true));
  EXPECT_NEAR(b.loss.item<double>(), lse - 6.0, kHeadsLossTol);
}

TEST(MlmHeadTest, MaskedWordsOwnEmbeddingDoesNotReachTheLoss) {
  torch::manual_seed(77);
  MlmHead mlm(tiny_mlm_options());
  mlm->eval();
  const MlmInput in = mlm_input();
  const torch::Tensor masked = mlm_slots(true, false, false);  // word 0; word 1 is its context
  const double base =
      mlm->forward(in.words, in.char_ids, in.word_index, masked).loss.item<double>();
  torch::Tensor own = in.words.clone();
  own[0] = torch::randn({8}) * 10;
  EXPECT_NEAR(mlm->forward(own, in.char_ids, in.word_index, masked).loss.item<double>(), base,
              kHeadsUnchangedTol);
  torch::Tensor context = in.words.clone();
  context[1] = torch::randn({8}) * 10;
  EXPECT_GT(std::abs(mlm->forward(context, in.char_ids, in.word_index, masked).loss.item<double>() -
                     base),
            kHeadsUnchangedTol);
}

TEST(MlmHeadTest, MasksOnlyValidSlots) {
  torch::manual_seed(78);
  MlmHead mlm(tiny_mlm_options());
  const MlmInput in = mlm_input();
  const MlmOutput all =
      mlm->forward(in.words, in.char_ids, in.word_index, torch::ones({2, 3}, torch::kBool));
  EXPECT_TRUE(torch::equal(all.masked, in.word_index.ge(0)));
  EXPECT_EQ(all.num_masked.item<int64_t>(), 3);
  // Drawn masks (mask_rate 0.5) never pick an empty slot.
  for (int k = 0; k < 20; ++k) {
    const MlmOutput drawn = mlm->forward(in.words, in.char_ids, in.word_index);
    EXPECT_FALSE(drawn.masked.logical_and(in.word_index.lt(0)).any().item<bool>());
  }
}

TEST(MlmHeadTest, NoMaskedSlotGivesAZeroLossThatStillBackPropagates) {
  torch::manual_seed(79);
  MlmHead mlm(tiny_mlm_options());
  const MlmInput in = mlm_input();
  const torch::Tensor words = in.words.clone().requires_grad_(true);
  const MlmOutput out =
      mlm->forward(words, in.char_ids, in.word_index, torch::zeros({2, 3}, torch::kBool));
  EXPECT_EQ(out.loss.item<double>(), 0.0);
  EXPECT_EQ(out.num_masked.item<int64_t>(), 0);
  ASSERT_TRUE(out.loss.requires_grad());
  out.loss.backward();
  EXPECT_EQ(words.grad().abs().sum().item<double>(), 0.0);
}

TEST(MlmHeadTest, RejectsTooLongWordsAndSentences) {
  MlmHead mlm(tiny_mlm_options());
  const MlmInput in = mlm_input();
  EXPECT_THROW(mlm->forward(in.words, torch::zeros({3, 7}, torch::kLong), in.word_index),
               c10::Error);
  EXPECT_THROW(mlm->forward(in.words, in.char_ids, torch::full({1, 5}, -1, torch::kLong)),
               c10::Error);
}

}  // namespace
}  // namespace morpheus::model
