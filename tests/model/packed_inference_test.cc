// SPDX-License-Identifier: MIT
// Packed forward-only boundary logits against the padded path of the training modules.
#include "model/packed_inference.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "config/model_config.h"
#include "tests/model/model_test_util.h"

namespace morpheus::model {
namespace {

// Random char ids [B,T] for words of the given lengths (BOS/EOS included), padded with 0.
torch::Tensor random_words(const std::vector<int64_t>& lengths, int64_t vocab) {
  int64_t t = 0;
  for (int64_t len : lengths) t = std::max(t, len);
  torch::Tensor ids = torch::zeros({static_cast<int64_t>(lengths.size()), t}, torch::kLong);
  for (size_t b = 0; b < lengths.size(); ++b) {
    ids[static_cast<int64_t>(b)].slice(0, 0, lengths[b]) =
        torch::randint(3, vocab, {lengths[b]}, torch::kLong);
  }
  return ids;
}

// The padded path: the modules' own forward.
torch::Tensor padded_logits(Morpheus& m, const torch::Tensor& ids, const torch::Tensor& mask) {
  const torch::Tensor hidden = m->char_encoder(ids, torch::zeros_like(ids), mask);
  return m->boundary_detector(hidden, mask).logits;
}

void expect_packed_equals_padded(const ModelConfig& config, const std::vector<int64_t>& lengths) {
  torch::manual_seed(3);
  Morpheus m(config);
  m->eval();
  const torch::Tensor ids = random_words(lengths, config.char_vocab_size);
  const torch::Tensor mask = ids.ne(0);
  c10::InferenceMode inference;
  ASSERT_TRUE(PackedWords::from_prefix_mask(mask).has_value());
  const torch::Tensor packed = boundary_logits(m, ids, mask);
  const torch::Tensor padded = padded_logits(m, ids, mask);
  ASSERT_EQ(packed.sizes(), padded.sizes());
  EXPECT_LT((packed - padded).abs().max().item<double>(), 1e-4);
  EXPECT_EQ(packed.masked_select(gap_mask(mask).logical_not()).abs().sum().item<double>(), 0.0);
}

TEST(PackedInferenceTest, LogitsEqualThePaddedPathOnTheTestModel) {
  expect_packed_equals_padded(testing::tiny_test_config(), {5, 12, 2, 9, 12, 3});
}

TEST(PackedInferenceTest, LogitsEqualThePaddedPathAtTheTinyShippedShape) {
  ModelConfig c = testing::tiny_test_config();
  c.char_dim = 64;
  c.num_heads = 2;
  c.cnn_channels = 16;
  c.cnn_kernels = {2, 3, 4, 5};
  ASSERT_TRUE(c.validate().ok());
  expect_packed_equals_padded(c, {14, 3, 30, 7, 7, 22, 11});
}

TEST(PackedInferenceTest, LogitsEqualThePaddedPathWithWideHeads) {
  ModelConfig c = testing::tiny_test_config();
  c.char_dim = 128;
  c.num_heads = 2;  // Dh = 64, the paper model's head size
  c.cnn_channels = 32;
  c.cnn_kernels = {2, 3, 4, 5};
  ASSERT_TRUE(c.validate().ok());
  expect_packed_equals_padded(c, {10, 4, 18});
}

TEST(PackedWordsTest, NonPrefixMaskIsRefusedAndThePaddedPathAnswers) {
  torch::manual_seed(4);
  Morpheus m(testing::tiny_test_config());
  m->eval();
  const torch::Tensor ids = torch::tensor({{1, 5, 0, 6, 2}, {1, 7, 8, 9, 2}}, torch::kLong);
  const torch::Tensor mask = ids.ne(0);
  EXPECT_FALSE(PackedWords::from_prefix_mask(mask).has_value());
  c10::InferenceMode inference;
  EXPECT_TRUE(boundary_logits(m, ids, mask).equal(padded_logits(m, ids, mask)));
}

TEST(PackedWordsTest, OffsetsRowsAndGapsFollowTheMask) {
  const torch::Tensor mask =
      torch::tensor({{1, 1, 1, 0}, {1, 1, 0, 0}, {1, 1, 1, 1}}, torch::kLong).to(torch::kBool);
  const std::optional<PackedWords> words = PackedWords::from_prefix_mask(mask);
  ASSERT_TRUE(words.has_value());
  EXPECT_EQ(words->offsets, (std::vector<int64_t>{0, 3, 5, 9}));
  EXPECT_TRUE(words->rows.equal(torch::tensor({0, 1, 2, 4, 5, 8, 9, 10, 11}, torch::kLong)));
  EXPECT_TRUE(words->gaps.equal(torch::tensor({0, 1, 3, 5, 6, 7}, torch::kLong)));
  EXPECT_TRUE(words->gap_slots.equal(torch::tensor({0, 1, 3, 6, 7, 8}, torch::kLong)));
}

TEST(PackedInferenceTest, RecordingGradientsTakesThePaddedPath) {
  const torch::Tensor mask = torch::ones({2, 4}, torch::kBool);
  EXPECT_TRUE(packed_inference_applies(mask) == !torch::GradMode::is_enabled());
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(packed_inference_applies(mask));
}

}  // namespace
}  // namespace morpheus::model
