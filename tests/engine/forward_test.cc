// SPDX-License-Identifier: MIT
// The engine's float forward pass (engine/forward.h) and its double-precision path
// (engine/reference.h) on small random models: words are independent of their block, the two
// paths agree, and a close call follows the double-precision value.
#include "engine/forward.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "engine/kernels.h"
#include "engine/reference.h"
#include "tests/engine/engine_test_util.h"

namespace morpheus::engine {
namespace {

// Random words of 1..max_word_len − 2 characters (ids of the small vocabulary), some upper-case.
std::vector<WordIds> random_words(const model::ModelConfig& config, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<WordIds> words(n);
  for (WordIds& w : words) {
    const size_t len = 1 + rng() % static_cast<size_t>(config.max_word_len - 2);
    w.ids.push_back(kBosId);
    w.cases.push_back(0);
    for (size_t i = 0; i < len; ++i) {
      w.ids.push_back(
          static_cast<int32_t>(4 + rng() % static_cast<uint64_t>(config.char_vocab_size - 4)));
      w.cases.push_back(rng() % 5 == 0 ? 1 : 0);
    }
    w.ids.push_back(kEosId);
    w.cases.push_back(0);
  }
  return words;
}

std::vector<const WordIds*> pointers(const std::vector<WordIds>& words) {
  std::vector<const WordIds*> out;
  for (const WordIds& w : words) out.push_back(&w);
  return out;
}

TEST(EngineForwardTest, WordLogitsDoNotDependOnTheBlock) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 11);
  const std::vector<WordIds> words = random_words(config, 40, 1);
  Forward forward(*model);
  std::vector<float> together;
  forward.gap_logits(pointers(words), &together);
  size_t gap = 0;
  for (const WordIds& w : words) {
    std::vector<float> alone;
    forward.gap_logits({&w}, &alone);
    ASSERT_EQ(alone.size(), w.positions() - 1);
    for (size_t g = 0; g < alone.size(); ++g, ++gap) {
      // Every product is row-stable and attention runs per word: the same bits alone or not.
      EXPECT_EQ(alone[g], together[gap]);
    }
  }
  EXPECT_EQ(gap, together.size());
}

TEST(EngineForwardTest, DoublePathAgreesWithTheFloatPath) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 12);
  const std::vector<WordIds> words = random_words(config, 60, 2);
  Forward forward(*model);
  std::vector<float> logits;
  forward.gap_logits(pointers(words), &logits);
  size_t gap = 0;
  double worst = 0;
  for (const WordIds& w : words) {
    const std::vector<double> exact = reference_gap_logits(*model, w);
    ASSERT_EQ(exact.size(), w.positions() - 1);
    for (double v : exact) {
      worst = std::max(worst, std::fabs(v - logits[gap++]) / std::max(1.0, std::fabs(v)));
    }
  }
  EXPECT_LT(worst, kCloseCallMargin / 10);
}

TEST(EngineForwardTest, DoublePathIsTheSameOnEveryCall) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 13);
  const std::vector<WordIds> words = random_words(config, 5, 3);
  for (const WordIds& w : words) {
    EXPECT_EQ(reference_gap_logits(*model, w), reference_gap_logits(*model, w));
  }
}

TEST(EngineForwardTest, ReferenceExpAndErfAreAccurate) {
  double exp_error = 0, erf_error = 0;
  for (double x = -700; x < 700; x += 0.37) {
    exp_error = std::max(exp_error, std::fabs(reference_exp(x) - std::exp(x)) / std::exp(x));
  }
  for (double x = -7; x < 7; x += 0.0013) {
    erf_error = std::max(erf_error, std::fabs(reference_erf(x) - std::erf(x)));
  }
  EXPECT_LT(exp_error, 3e-16);
  EXPECT_LT(erf_error, 5e-15);
  EXPECT_EQ(reference_exp(0), 1.0);
  EXPECT_EQ(reference_exp(-800), 0.0);
  EXPECT_EQ(reference_erf(0), 0.0);
  EXPECT_EQ(reference_erf(9), 1.0);
  EXPECT_EQ(reference_erf(-9), -1.0);
}

TEST(EngineForwardTest, CloseCallFollowsTheDoublePrecisionValue) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 14);
  const std::vector<WordIds> words = random_words(config, 30, 4);
  Forward forward(*model);
  size_t split = 0;
  for (const WordIds& w : words) {
    std::vector<float> logits;
    forward.gap_logits({&w}, &logits);
    const std::vector<double> exact = reference_gap_logits(*model, w);
    const size_t g = logits.size() / 2;
    if (static_cast<double>(logits[g]) == exact[g]) continue;
    // A threshold between the two values: the float and double paths disagree on the cut.
    const double threshold = (static_cast<double>(logits[g]) + exact[g]) / 2;
    std::vector<uint8_t> cuts(logits.size());
    EXPECT_TRUE(decide_gaps(*model, w, logits.data(), 0, logits.size(), threshold, cuts.data()));
    EXPECT_EQ(cuts[g], exact[g] > threshold ? 1 : 0);
    ++split;
  }
  EXPECT_GT(split, 0u);
}

TEST(EngineForwardTest, FarFromTheThresholdNoWordIsRecomputed) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 15);
  const std::vector<WordIds> words = random_words(config, 10, 5);
  Forward forward(*model);
  for (const WordIds& w : words) {
    std::vector<float> logits;
    forward.gap_logits({&w}, &logits);
    std::vector<uint8_t> cuts(logits.size());
    EXPECT_FALSE(decide_gaps(*model, w, logits.data(), 0, logits.size(), 1e6, cuts.data()));
    EXPECT_EQ(std::count(cuts.begin(), cuts.end(), 1), 0);
  }
}

TEST(EngineForwardTest, TraceHoldsEveryStage) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 16);
  const std::vector<WordIds> words = random_words(config, 3, 6);
  size_t rows = 0;
  for (const WordIds& w : words) rows += w.positions();
  Forward forward(*model);
  Trace trace;
  std::vector<float> out(words.size() * model->dim);
  forward.embeddings(pointers(words), 0.0, EmbeddingPooling::kMean, out.data(), &trace);
  for (const char* name :
       {"embed_proj", "cnn", "encoder.0", "final_norm", "detector.0", "detector.1"}) {
    const Trace::Stage* stage = trace.find(name);
    ASSERT_NE(stage, nullptr) << name;
    EXPECT_EQ(stage->rows, rows) << name;
    EXPECT_EQ(stage->cols, model->dim) << name;
  }
  ASSERT_NE(trace.find("logits"), nullptr);
  EXPECT_EQ(trace.find("logits")->rows, rows - words.size());
  ASSERT_NE(trace.find("embeddings"), nullptr);
  EXPECT_EQ(trace.find("embeddings")->values, out);
}

TEST(EngineForwardTest, EmbeddingsDoNotDependOnTheBlock) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 17);
  const std::vector<WordIds> words = random_words(config, 20, 7);
  Forward forward(*model);
  for (const EmbeddingPooling pooling :
       {EmbeddingPooling::kMean, EmbeddingPooling::kRootInflection}) {
    const size_t width = (pooling == EmbeddingPooling::kMean ? 1 : 3) * model->dim;
    std::vector<float> together(words.size() * width), alone(width);
    forward.embeddings(pointers(words), 0.0, pooling, together.data());
    for (size_t i = 0; i < words.size(); ++i) {
      forward.embeddings({&words[i]}, 0.0, pooling, alone.data());
      for (size_t e = 0; e < width; ++e) ASSERT_EQ(alone[e], together[i * width + e]) << i;
    }
  }
}

TEST(EngineForwardTest, RootInflectionOfAnUncutWordIsItsMeanVectorAndFuseOfZero) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 18);
  const std::vector<WordIds> words = random_words(config, 5, 8);
  const size_t d = model->dim;
  Forward forward(*model);
  const double no_cut = 1e6;  // one segment: s_0 is the whole word, no suffix
  std::vector<float> mean(words.size() * d), parts(words.size() * 3 * d);
  forward.embeddings(pointers(words), no_cut, EmbeddingPooling::kMean, mean.data());
  forward.embeddings(pointers(words), no_cut, EmbeddingPooling::kRootInflection, parts.data());
  for (size_t i = 0; i < words.size(); ++i) {
    const float* row = &parts[i * 3 * d];
    for (size_t e = 0; e < d; ++e) {
      EXPECT_EQ(row[e], mean[i * d + e]) << i << " " << e;
      EXPECT_EQ(row[d + e], row[2 * d + e]) << i << " " << e;                // both fuse(0)
      EXPECT_EQ(row[d + e], parts[(i + 1) % words.size() * 3 * d + d + e]);  // the same for all
    }
  }
}

TEST(EngineForwardTest, RootInflectionSeparatesTheFirstAndLastSegments) {
  const model::ModelConfig config = testing::small_engine_config();
  const auto model = testing::random_model(config, 19);
  const std::vector<WordIds> words = random_words(config, 6, 9);
  const size_t d = model->dim;
  Forward forward(*model);
  std::vector<float> parts(words.size() * 3 * d);
  const double cut_all = -1e6;  // every position a segment: s_0 = BOS, the last = EOS
  forward.embeddings(pointers(words), cut_all, EmbeddingPooling::kRootInflection, parts.data());
  for (size_t i = 0; i < words.size(); ++i) {
    double root_vs_last = 0;
    for (size_t e = 0; e < d; ++e) {
      root_vs_last += std::abs(parts[i * 3 * d + e] - parts[i * 3 * d + 2 * d + e]);
    }
    EXPECT_GT(root_vs_last, 1e-3) << i;
  }
}

TEST(EngineKernelsTest, RowStableGemmRowDoesNotDependOnTheRowsBesideIt) {
  const size_t k = 96, n = 160, rows = 150;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(rows * k), w(n * k);
  for (float& x : a) x = u(rng);
  for (float& x : w) x = u(rng);
  std::vector<float> all(rows * n);
  kernels::gemm_nt_row_stable(rows, n, k, a.data(), k, w.data(), k, all.data(), n);
  for (size_t m : {1, 2, 3, 5, 8, 63, 64, 65, 80}) {
    const size_t first = rows - m - m % 7;  // rows [first, first + m) alone
    std::vector<float> part(m * n);
    kernels::gemm_nt_row_stable(m, n, k, &a[first * k], k, w.data(), k, part.data(), n);
    for (size_t i = 0; i < m * n; ++i) ASSERT_EQ(part[i], all[first * n + i]) << m << " " << i;
  }
}

TEST(EngineKernelsTest, RowStableGemmEqualsTheProductInDouble) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  // Shapes off every block size (rows, columns and k), leading dimensions wider than the rows.
  for (const auto& [m, n, k] : std::vector<std::array<size_t, 3>>{
           {1, 1, 1}, {7, 33, 5}, {13, 70, 129}, {64, 192, 64}, {9, 17, 320}}) {
    const size_t lda = k + 3, ldw = k + 1, ldc = n + 2;
    std::vector<float> a(m * lda), w(n * ldw), c(m * ldc, -7.0f);
    for (float& x : a) x = u(rng);
    for (float& x : w) x = u(rng);
    kernels::gemm_nt_row_stable(m, n, k, a.data(), lda, w.data(), ldw, c.data(), ldc);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        double exact = 0, scale = 0;
        for (size_t p = 0; p < k; ++p) {
          exact += static_cast<double>(a[i * lda + p]) * w[j * ldw + p];
          scale += std::fabs(static_cast<double>(a[i * lda + p]) * w[j * ldw + p]);
        }
        ASSERT_NEAR(c[i * ldc + j], exact, 1e-6 * scale + 1e-30) << m << "x" << n << "x" << k;
      }
      for (size_t j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], -7.0f) << "wrote past column n";
    }
  }
}

// RoPE self-attention of one word computed directly in double: rotate-half RoPE of q and k,
// softmax(q·kᵀ/√dh)·v per head; qkv [t, 3d], out [t, d].
std::vector<double> direct_attention(const std::vector<float>& qkv, size_t t, size_t d,
                                     size_t heads, const std::vector<float>& cos,
                                     const std::vector<float>& sin) {
  const size_t dh = d / heads, half = dh / 2;
  std::vector<double> out(t * d);
  auto rotated = [&](size_t j, size_t col, size_t e) {
    const double x = qkv[j * 3 * d + col + e];
    const double r = e < half ? -qkv[j * 3 * d + col + e + half] : qkv[j * 3 * d + col + e - half];
    return x * cos[j * dh + e] + r * sin[j * dh + e];
  };
  for (size_t h = 0; h < heads; ++h) {
    for (size_t i = 0; i < t; ++i) {
      std::vector<double> p(t);
      double max_score = -HUGE_VAL, sum = 0;
      for (size_t j = 0; j < t; ++j) {
        for (size_t e = 0; e < dh; ++e) p[j] += rotated(i, h * dh, e) * rotated(j, d + h * dh, e);
        p[j] /= std::sqrt(static_cast<double>(dh));
        max_score = std::max(max_score, p[j]);
      }
      for (double& x : p) sum += (x = std::exp(x - max_score));
      for (size_t e = 0; e < dh; ++e) {
        double acc = 0;
        for (size_t j = 0; j < t; ++j) acc += p[j] / sum * qkv[j * 3 * d + 2 * d + h * dh + e];
        out[i * d + h * dh + e] = acc;
      }
    }
  }
  return out;
}

TEST(EngineKernelsTest, RopeAttentionMatchesADirectComputation) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  // Head widths below, at and above one vector of 16 and not a multiple of it; word lengths
  // around every multiple of the four queries computed together.
  for (const size_t dh : {8, 20, 32}) {
    for (size_t t = 1; t <= 13; ++t) {
      const size_t heads = 2, d = heads * dh;
      std::vector<float> qkv(t * 3 * d), cos(t * dh), sin(t * dh), out(t * d);
      for (float& x : qkv) x = normal(rng);
      for (size_t j = 0; j < t; ++j) {
        for (size_t e = 0; e < dh; ++e) {
          const double angle = static_cast<double>(j) / std::pow(100.0, 2.0 * (e % (dh / 2)) / dh);
          cos[j * dh + e] = static_cast<float>(std::cos(angle));
          sin[j * dh + e] = static_cast<float>(std::sin(angle));
        }
      }
      std::vector<float> scratch(kernels::attention_scratch_size(t, dh), NAN);
      kernels::rope_attention(qkv.data(), t, d, heads, cos.data(), sin.data(), scratch.data(),
                              out.data());
      const std::vector<double> want = direct_attention(qkv, t, d, heads, cos, sin);
      for (size_t i = 0; i < t * d; ++i) {
        ASSERT_NEAR(out[i], want[i], 1e-5 * (1.0 + std::fabs(want[i])))
            << dh << " " << t << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace morpheus::engine
