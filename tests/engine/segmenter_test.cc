// SPDX-License-Identifier: MIT
// EngineSegmenter (engine/segmenter.h) on small random models: pieces rebuild the word, a word's
// pieces do not depend on the batch order, its neighbours, the block size or the thread count,
// long runs are chunked, close calls are recomputed, embeddings are chunk means and see case.
#include "engine/segmenter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "tests/engine/engine_test_util.h"
#include "tests/support/test_support.h"

namespace morpheus::engine {
namespace {

using tokenizer::Segmentation;

EngineSegmenter make_segmenter(uint64_t seed, EngineSegmenterOptions options = {}) {
  return EngineSegmenter(testing::random_model(testing::small_engine_config(), seed),
                         testing::engine_chars(), options);
}

Segmentation segment_all(const EngineSegmenter& s, const std::vector<std::string>& words) {
  StatusOr<Segmentation> pieces = s.segment(words);
  EXPECT_TRUE(pieces.ok()) << pieces.status().to_string();
  return pieces.ok() ? *pieces : Segmentation(words.size());
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string out;
  for (const std::string& p : pieces) out += p;
  return out;
}

TEST(EngineSegmenterTest, PiecesRebuildEveryWordAndCutSome) {
  const EngineSegmenter s = make_segmenter(21);
  const std::vector<std::string> words = testing::turkish_like_words(300, 30, 1);
  const Segmentation pieces = segment_all(s, words);
  size_t cut = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    EXPECT_EQ(joined(pieces[i]), words[i]);
    if (pieces[i].size() > 1) ++cut;
  }
  EXPECT_GT(cut, 30u);
  EXPECT_LT(cut, words.size());
}

TEST(EngineSegmenterTest, SamePiecesWhateverTheBatchOrderAndNeighbours) {
  const EngineSegmenter s = make_segmenter(22);
  const std::vector<std::string> words = testing::turkish_like_words(400, 30, 2);
  const Segmentation reference = segment_all(s, words);
  std::vector<std::string> shuffled = words;
  std::mt19937_64 rng(7);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const Segmentation again = segment_all(s, shuffled);
  for (size_t i = 0; i < shuffled.size(); ++i) {
    const size_t at =
        static_cast<size_t>(std::find(words.begin(), words.end(), shuffled[i]) - words.begin());
    EXPECT_EQ(again[i], reference[at]) << shuffled[i];
  }
  // Alone, and in small batches with other words around it.
  for (size_t i = 0; i < words.size(); i += 13) {
    EXPECT_EQ(segment_all(s, {words[i]})[0], reference[i]) << words[i];
    const std::vector<std::string> batch = {words[(i + 5) % words.size()], words[i], words[i]};
    const Segmentation small = segment_all(s, batch);
    EXPECT_EQ(small[1], reference[i]);
    EXPECT_EQ(small[2], reference[i]);
  }
}

TEST(EngineSegmenterTest, SamePiecesForAnyThreadCountAndBlockSize) {
  const std::vector<std::string> words = testing::turkish_like_words(500, 40, 3);
  const Segmentation reference = segment_all(make_segmenter(23), words);
  for (size_t threads : {1, 2, 4}) {
    for (size_t block : {12, 100, 5000}) {
      EngineSegmenterOptions options;
      options.threads = threads;
      options.block_positions = block;
      EXPECT_EQ(segment_all(make_segmenter(23, options), words), reference)
          << threads << " threads, blocks of " << block;
    }
  }
}

TEST(EngineSegmenterTest, LongRunsAreCutIntoChunksOfTheModelLength) {
  const EngineSegmenter s = make_segmenter(24);
  ASSERT_EQ(s.max_chunk_chars(), 10u);
  const std::string word = "kitaplarımızdanmışçasınalardanmış";  // 33 letters
  const Segmentation whole = segment_all(s, {word});
  const Segmentation parts = segment_all(s, {"kitaplarım", "ızdanmışça", "sınalardan", "mış"});
  std::vector<std::string> expected;
  for (const auto& p : parts) expected.insert(expected.end(), p.begin(), p.end());
  EXPECT_EQ(whole[0], expected);
  EXPECT_EQ(joined(whole[0]), word);
}

TEST(EngineSegmenterTest, CloseCallsAreRecomputedAndCounted) {
  // A threshold at the float logit of one gap of a word puts that gap within the margin.
  const auto model = testing::random_model(testing::small_engine_config(), 25);
  const std::vector<std::string> words = testing::turkish_like_words(50, 10, 4);
  Forward forward(*model);
  const tokenizer::CharVocab chars = testing::engine_chars();
  WordIds w;
  w.ids = {kBosId,
           static_cast<int32_t>(chars.id(U'k')),
           static_cast<int32_t>(chars.id(U'e')),
           static_cast<int32_t>(chars.id(U'd')),
           static_cast<int32_t>(chars.id(U'i')),
           kEosId};
  w.cases.assign(w.ids.size(), 0);
  std::vector<float> logits;
  forward.gap_logits({&w}, &logits);
  EngineSegmenterOptions options;
  options.threshold = 1.0 / (1.0 + std::exp(-static_cast<double>(logits[2])));
  for (size_t threads : {1, 3}) {
    options.threads = threads;
    const EngineSegmenter s(model, chars, options);
    std::vector<std::string> batch = words;
    batch.push_back("kedi");
    const Segmentation pieces = segment_all(s, batch);
    EXPECT_GE(s.counters().rechecked, 1u);
    EXPECT_EQ(s.counters().words, batch.size());
    EXPECT_EQ(segment_all(s, {"kedi"})[0], pieces.back());
  }
}

TEST(EngineSegmenterTest, EmptyWordHasNoPiecesAndInvalidUtf8IsAnError) {
  const EngineSegmenter s = make_segmenter(26);
  const Segmentation pieces = segment_all(s, {"", "a", "ev"});
  EXPECT_TRUE(pieces[0].empty());
  EXPECT_EQ(pieces[1], std::vector<std::string>{"a"});
  const StatusOr<Segmentation> bad = s.segment({"ev", "k\xfft"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("word 1"), std::string::npos);
}

TEST(EngineSegmenterTest, EmbeddingOfALongWordIsTheMeanOfItsChunks) {
  const EngineSegmenter s = make_segmenter(27);
  const size_t d = s.embedding_dim();
  const std::vector<float> whole = s.embed({"kitaplarımızdanmış"});  // 18 letters: 10 + 8
  const std::vector<float> parts = s.embed({"kitaplarım", "ızdanmış"});
  ASSERT_EQ(whole.size(), d);
  for (size_t e = 0; e < d; ++e) EXPECT_NEAR(whole[e], (parts[e] + parts[d + e]) / 2, 1e-6);
}

TEST(EngineSegmenterTest, EmbeddingsSeeCaseAndDoNotDependOnTheBatch) {
  EngineSegmenterOptions options;
  options.threads = 2;
  options.block_positions = 40;
  const EngineSegmenter s = make_segmenter(28, options);
  const size_t d = s.embedding_dim();
  const std::vector<std::string> words = {"Kitap", "kitap", "", "EVLER", "k\xff", "İstanbul"};
  const std::vector<float> rows = s.embed(words);
  ASSERT_EQ(rows.size(), words.size() * d);
  const auto row = [&](const std::vector<float>& m, size_t i) {
    return std::vector<float>(m.begin() + static_cast<std::ptrdiff_t>(i * d),
                              m.begin() + static_cast<std::ptrdiff_t>((i + 1) * d));
  };
  EXPECT_NE(row(rows, 0), row(rows, 1));
  EXPECT_EQ(row(rows, 2), std::vector<float>(d, 0.0f));
  EXPECT_EQ(row(rows, 4), std::vector<float>(d, 0.0f));
  for (size_t i : {0, 3, 5}) {
    const std::vector<float> alone = s.embed({words[i]});
    for (size_t e = 0; e < d; ++e) EXPECT_NEAR(alone[e], rows[i * d + e], 1e-5) << words[i];
  }
}

TEST(EngineSegmenterTest, RootInflectionRowsAreUnitRootAndWeightedSuffixBlocks) {
  EngineSegmenter s = make_segmenter(26);
  const size_t d = s.model().dim;
  EXPECT_EQ(s.embedding_dim(), d);  // mean until a layout is set
  ASSERT_TRUE(
      s.set_embedding_layout(EmbeddingLayout(EmbeddingPooling::kRootInflection, d, 0.5)).ok());
  ASSERT_EQ(s.embedding_dim(), 3 * d);
  const std::vector<std::string> words = testing::turkish_like_words(40, 20, 6);
  const std::vector<float> rows = s.embed(words);
  ASSERT_EQ(rows.size(), words.size() * 3 * d);
  for (size_t i = 0; i < words.size(); ++i) {
    for (size_t b = 0; b < 3; ++b) {
      double norm = 0;
      for (size_t e = 0; e < d; ++e) norm += std::pow(rows[(i * 3 + b) * d + e], 2);
      EXPECT_NEAR(std::sqrt(norm), b == 0 ? 1.0 : 0.5, 1e-5) << i << " " << b;
    }
  }
  EXPECT_FALSE(s.set_embedding_layout(EmbeddingLayout(EmbeddingPooling::kMean, d + 1)).ok());
}

TEST(EngineSegmenterTest, LoadChecksTheVocabularyAgainstTheModel) {
  const std::string dir = testing::make_temp_dir("engine_load");
  const std::string weights =
      testing::write_random_weights(dir, testing::small_engine_config(), 29);
  const std::string vocab = path_join(dir, "char_vocab.json");
  ASSERT_TRUE(testing::engine_chars().save(vocab).ok());
  StatusOr<std::unique_ptr<EngineSegmenter>> s = EngineSegmenter::load(weights, vocab);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ((*s)->name(), "morpheus-engine");
  const tokenizer::CharVocab fewer =
      tokenizer::CharVocab::build({{U'a', 5}, {U'b', 3}}, 1.0, 1, U"");
  ASSERT_TRUE(fewer.save(vocab).ok());
  s = EngineSegmenter::load(weights, vocab);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(s.status().message().find(vocab), std::string::npos);
  s = EngineSegmenter::load(path_join(dir, "absent.weights"), vocab);
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace morpheus::engine
