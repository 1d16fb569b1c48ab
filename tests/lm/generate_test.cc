// SPDX-License-Identifier: MIT
// Sampling with the KV cache: shapes, seeded reproducibility, and the distribution of the first
// token against the full forward's softmax.
#include "lm/generate.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace morpheus::lm {
namespace {

TEST(GenerateTest, SamplesBatchTimesTokensReproduciblyPerSeed) {
  torch::manual_seed(1);
  Gpt gpt(GptOptions{9, 16, 2, 2, 32, 0.0});
  GenerateOptions o;
  o.tokens = 20;
  o.batch = 3;
  const GenerateResult a = generate(*gpt, o, torch::kCPU);
  const GenerateResult b = generate(*gpt, o, torch::kCPU);
  ASSERT_EQ(a.sequences.size(), 3u);
  for (const auto& s : a.sequences) {
    ASSERT_EQ(s.size(), 20u);
    for (int32_t id : s) EXPECT_TRUE(id >= 0 && id < 9);
  }
  EXPECT_EQ(a.sequences, b.sequences);
  o.seed = 2;
  EXPECT_NE(generate(*gpt, o, torch::kCPU).sequences, a.sequences);
  EXPECT_GT(a.tokens_per_second(), 0);
  o.tokens = 32;  // no room: the first position is the start token
  EXPECT_THROW(generate(*gpt, o, torch::kCPU), c10::Error);
}

TEST(GenerateTest, FirstTokenFollowsTheModelsDistribution) {
  torch::manual_seed(2);
  Gpt gpt(GptOptions{5, 8, 1, 2, 8, 0.0});
  for (auto& p : gpt->parameters()) p.data().mul_(20);  // a peaked, non-uniform distribution
  gpt->eval();
  torch::Tensor p;
  {
    torch::NoGradGuard no_grad;
    p = torch::softmax(gpt->forward(torch::full({1, 1}, 4, torch::kLong)), -1).view({5});
  }
  GenerateOptions o;
  o.tokens = 1;
  o.batch = 4000;
  const GenerateResult r = generate(*gpt, o, torch::kCPU);
  std::vector<double> freq(5, 0.0);
  for (const auto& s : r.sequences) freq[static_cast<size_t>(s[0])] += 1.0 / 4000;
  for (int64_t i = 0; i < 5; ++i)
    EXPECT_NEAR(freq[static_cast<size_t>(i)], p[i].item<double>(), 0.03);
}

}  // namespace
}  // namespace morpheus::lm
