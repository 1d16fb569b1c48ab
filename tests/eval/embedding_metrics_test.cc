// SPDX-License-Identifier: MIT
// Embedding readers and metrics against hand-computed cases, including the reference's MAP
// (query counted) and ours (query excluded).
#include "eval/embedding_metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

Matrix from_rows(const std::vector<std::vector<float>>& rows) {
  Matrix m;
  m.rows = rows.size();
  m.cols = rows.empty() ? 0 : rows[0].size();
  for (const auto& r : rows) m.data.insert(m.data.end(), r.begin(), r.end());
  return m;
}

// Four unit vectors at 0°, 60°, 30°, 90°; families {0,1} and {2,3}.
Matrix four_angles() {
  std::vector<std::vector<float>> rows;
  for (double deg : {0.0, 60.0, 30.0, 90.0}) {
    const double a = deg * M_PI / 180.0;
    rows.push_back({static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a))});
  }
  return from_rows(rows);
}

TEST(RetrievalTest, QueryExcludedHandComputed) {
  // Rankings: w0: w2 w1 w3 (hit at 2); w1: w2 w3 w0 (3); w2: w0 w1 w3 (3); w3: w1 w2 w0 (2).
  const RetrievalResult r = family_retrieval(four_angles(), {0, 0, 1, 1}, false);
  EXPECT_EQ(r.queries, 4u);
  EXPECT_EQ(r.families, 2u);
  EXPECT_NEAR(r.map, 5.0 / 12.0, 1e-9);
  EXPECT_NEAR(r.mrr, 5.0 / 12.0, 1e-9);
  EXPECT_EQ(r.recall_at_1, 0.0);
  EXPECT_EQ(r.recall_at_5, 1.0);
  EXPECT_EQ(r.precision_at_r, 0.0);
}

TEST(RetrievalTest, QueryIncludedHandComputed) {
  // The query re-enters last and counts: w0 hits at 2,4 → (1/2 + 2/4)/2; w1 at 3,4 → 5/12; ...
  const RetrievalResult r = family_retrieval(four_angles(), {0, 0, 1, 1}, true);
  EXPECT_NEAR(r.map, 22.0 / 48.0, 1e-9);
}

// 8 families × 6 words, each family around its own axis: perfect retrieval.
Matrix fallback_like(std::vector<int>* labels) {
  std::vector<std::vector<float>> rows;
  for (int f = 0; f < 8; ++f) {
    for (int k = 0; k < 6; ++k) {
      std::vector<float> v(8, 0.0f);
      v[static_cast<size_t>(f)] = 1.0f;
      v[static_cast<size_t>((f + 1) % 8)] = 0.02f * static_cast<float>(k);
      rows.push_back(v);
      labels->push_back(f);
    }
  }
  return from_rows(rows);
}

TEST(RetrievalTest, ReferenceDefinitionCapsPerfectRetrievalAt0854) {
  std::vector<int> labels;
  const Matrix m = fallback_like(&labels);
  const RetrievalResult ref = family_retrieval(m, labels, true);
  EXPECT_NEAR(ref.map, (5.0 + 6.0 / 48.0) / 6.0, 1e-9);  // 0.8542, the paper's Morpheus MAP
  EXPECT_NEAR(ref.precision_at_r, 5.0 / 6.0, 1e-9);
  EXPECT_NEAR(ref.mrr, 1.0, 1e-12);
  const RetrievalResult ours = family_retrieval(m, labels, false);
  EXPECT_NEAR(ours.map, 1.0, 1e-12);
  EXPECT_NEAR(ours.precision_at_r, 1.0, 1e-12);
  EXPECT_EQ(ours.queries, 48u);
}

// Unit vectors at the given angles (degrees), each scaled by `scale` times its index + 1 (cosine
// ignores the norm).
Matrix at_angles(const std::vector<double>& degrees, float scale = 0.0f) {
  std::vector<std::vector<float>> rows;
  for (size_t i = 0; i < degrees.size(); ++i) {
    const double a = degrees[i] * M_PI / 180.0;
    const float norm = 1.0f + scale * static_cast<float>(i);
    rows.push_back(
        {norm * static_cast<float>(std::cos(a)), norm * static_cast<float>(std::sin(a))});
  }
  return from_rows(rows);
}

TEST(LemmaRetrievalTest, AccuracyAt1And10SplitSeenAndUnseen) {
  // Twelve candidate lemmas at 0°, 5°, …, 55°: a query at 0° ranks candidate j at j + 1.
  std::vector<double> lemma_angles;
  for (int j = 0; j < 12; ++j) lemma_angles.push_back(5.0 * j);
  const Matrix candidates = at_angles(lemma_angles, 0.5f);
  // Ranks of the gold lemmas: 1 (seen), 10 (seen), 11 (unseen), 1 (unseen).
  const Matrix queries = at_angles({0.0, 0.0, 0.0, 55.0});
  const LemmaRetrievalResult r =
      lemma_retrieval(queries, candidates, {0, 9, 10, 11}, {true, true, false, false});
  EXPECT_EQ(r.candidates, 12u);
  EXPECT_EQ(r.all.queries, 4u);
  EXPECT_DOUBLE_EQ(r.all.at_1, 0.5);
  EXPECT_DOUBLE_EQ(r.all.at_10, 0.75);
  EXPECT_EQ(r.seen.queries, 2u);
  EXPECT_DOUBLE_EQ(r.seen.at_1, 0.5);
  EXPECT_DOUBLE_EQ(r.seen.at_10, 1.0);
  EXPECT_EQ(r.unseen.queries, 2u);
  EXPECT_DOUBLE_EQ(r.unseen.at_1, 0.5);
  EXPECT_DOUBLE_EQ(r.unseen.at_10, 0.5);
}

TEST(LemmaRetrievalTest, TiesRankTheLowerCandidateFirstAndNoFlagsMeanNoSplit) {
  const Matrix candidates = at_angles({30.0, 30.0, 80.0});  // 0 and 1 are the same direction
  const Matrix queries = at_angles({30.0, 30.0});
  const LemmaRetrievalResult r = lemma_retrieval(queries, candidates, {0, 1}, {});
  EXPECT_DOUBLE_EQ(r.all.at_1, 0.5);  // gold 1 ties with 0 and ranks second
  EXPECT_DOUBLE_EQ(r.all.at_10, 1.0);
  EXPECT_EQ(r.seen.queries, 0u);
  EXPECT_EQ(r.unseen.queries, 0u);
}

TEST(SameLabelRetrievalTest, PrecisionAt10ChanceAndMapHandComputed) {
  // Class 0: eight rows at 0°…7°; class 1: four rows at 90°…93°. The 10 nearest of a class-0 row
  // are its 7 classmates and 3 class-1 rows (P@10 0.7); of a class-1 row 3 classmates (0.3).
  const Matrix x = at_angles({0, 1, 2, 3, 4, 5, 6, 7, 90, 91, 92, 93});
  const std::vector<int> labels = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  const NeighbourResult r = same_label_retrieval(x, labels, 10);
  EXPECT_EQ(r.items, 12u);
  EXPECT_EQ(r.classes, 2u);
  EXPECT_EQ(r.k, 10u);
  EXPECT_NEAR(r.precision_at_k, (8 * 0.7 + 4 * 0.3) / 12.0, 1e-12);
  EXPECT_NEAR(r.chance, 4.0 / 9.0 + 1.0 / 9.0, 1e-12);  // (8/12)² + (4/12)²
  EXPECT_DOUBLE_EQ(r.map, 1.0);                         // classmates always come first
}

TEST(SameLabelRetrievalTest, KIsCappedAtTheOtherRows) {
  const Matrix x = at_angles({0, 1, 2, 90, 91, 92});
  const NeighbourResult r = same_label_retrieval(x, {0, 0, 0, 1, 1, 1}, 10);
  EXPECT_EQ(r.k, 5u);
  EXPECT_NEAR(r.precision_at_k, 2.0 / 5.0, 1e-12);
  EXPECT_NEAR(r.chance, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(same_label_retrieval(x, {0, 0, 0, 1, 1, 1}, 2).precision_at_k, 1.0);
  EXPECT_EQ(same_label_retrieval(at_angles({0}), {0}, 10).k, 0u);
}

TEST(RocAucTest, HandComputedWithTies) {
  EXPECT_DOUBLE_EQ(roc_auc({0.9, 0.8, 0.7, 0.6}, {true, false, true, false}), 0.75);
  EXPECT_DOUBLE_EQ(roc_auc({0.5, 0.5}, {true, false}), 0.5);
  EXPECT_DOUBLE_EQ(roc_auc({0.1, 0.9}, {false, true}), 1.0);
}

TEST(RocAucTest, SameRootAucIsOneForSeparatedFamilies) {
  std::vector<int> labels;
  const Matrix m = fallback_like(&labels);
  const PairAucResult r = same_root_auc(m, labels, 1000, 42);
  EXPECT_EQ(r.positives, 8u * 15u);
  EXPECT_EQ(r.negatives, r.positives);
  EXPECT_DOUBLE_EQ(r.auc, 1.0);
}

TEST(ProbeTest, SeparableClassesAreLearned) {
  std::mt19937_64 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  std::vector<std::vector<float>> rows;
  std::vector<int> labels;
  for (int i = 0; i < 90; ++i) {
    const int c = i % 3;
    rows.push_back({static_cast<float>(c) * 3.0f + noise(rng), noise(rng), noise(rng)});
    labels.push_back(c);
  }
  const ProbeResult r = logistic_probe(from_rows(rows), labels, 5, 42);
  EXPECT_EQ(r.items, 90u);
  EXPECT_EQ(r.classes, 3u);
  EXPECT_NEAR(r.majority, 1.0 / 3.0, 1e-12);
  EXPECT_GT(r.accuracy, 0.95);
}

TEST(ProbeTest, NoiseFeaturesStayNearChance) {
  std::mt19937_64 rng(11);
  std::normal_distribution<float> noise;
  std::vector<std::vector<float>> rows;
  std::vector<int> labels;
  for (int i = 0; i < 200; ++i) {
    rows.push_back({noise(rng), noise(rng)});
    labels.push_back(i % 2);
  }
  const ProbeResult r = logistic_probe(from_rows(rows), labels, 5, 42);
  EXPECT_LT(r.accuracy, 0.65);
}

TEST(PcaTest, FirstComponentFollowsTheLine) {
  std::vector<std::vector<float>> rows;
  for (int i = 0; i < 20; ++i) {
    const float t = static_cast<float>(i) - 10.0f;
    rows.push_back({t, 2.0f * t, 0.01f * static_cast<float>(i % 2)});
  }
  const Matrix p = pca_2d(from_rows(rows), 1);
  ASSERT_EQ(p.rows, 20u);
  ASSERT_EQ(p.cols, 2u);
  // pc1 = ±(t − mean t)·√5 with mean t = −0.5; pc2 is tiny.
  EXPECT_NEAR(std::fabs(p.row(0)[0]), 9.5 * std::sqrt(5.0), 1e-3);
  EXPECT_LT(std::fabs(p.row(0)[1]), 0.02);
}

TEST(EmbeddingFileTest, ReadsWord2VecTextWithHeader) {
  const std::string dir = testing::make_temp_dir("vec");
  const std::string path = path_join(dir, "x.vec");
  ASSERT_TRUE(write_file_atomic(path, "2 3\nev 1 0 0\nevler 0.5 0.5 -1e-1\n").ok());
  auto e = load_embeddings(path);
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  EXPECT_EQ(e->vectors.rows, 2u);
  EXPECT_EQ(e->vectors.cols, 3u);
  EXPECT_EQ(e->find("evler"), 1);
  EXPECT_EQ(e->find("yok"), -1);
  EXPECT_FLOAT_EQ(e->vectors.row(1)[2], -0.1f);
}

TEST(EmbeddingFileTest, RejectsRaggedRowsNamingTheLine) {
  const std::string dir = testing::make_temp_dir("vec");
  const std::string path = path_join(dir, "bad.vec");
  ASSERT_TRUE(write_file_atomic(path, "ev 1 0 0\nevler 0.5 0.5\n").ok());
  auto e = load_embeddings(path);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("bad.vec: line 2"), std::string::npos);
}

TEST(EmbeddingFileTest, NpyRoundTripWithVocab) {
  const std::string dir = testing::make_temp_dir("npy");
  const Matrix m = from_rows({{1.0f, 2.0f}, {3.0f, -4.5f}, {0.0f, 1e-3f}});
  ASSERT_TRUE(write_npy(path_join(dir, "e.npy"), m).ok());
  ASSERT_TRUE(write_file_atomic(path_join(dir, "e.vocab"), "ev\nevler\nkitap\n").ok());
  auto e = load_embeddings(path_join(dir, "e.npy"));
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  EXPECT_EQ(e->vectors.data, m.data);
  EXPECT_EQ(e->words[2], "kitap");
}

TEST(EmbeddingFileTest, NpyVocabSizeMismatchIsAnError) {
  const std::string dir = testing::make_temp_dir("npy");
  ASSERT_TRUE(write_npy(path_join(dir, "e.npy"), from_rows({{1.0f}, {2.0f}})).ok());
  ASSERT_TRUE(write_file_atomic(path_join(dir, "e.vocab"), "ev\n").ok());
  auto e = load_embeddings(path_join(dir, "e.npy"));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("1 words for 2 rows"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::eval
