// SPDX-License-Identifier: MIT
#include "eval/boundary_metrics.h"

#include <gtest/gtest.h>

namespace morpheus::eval {
namespace {

TEST(BoundaryMetricsTest, BoundariesAreCodePointOffsets) {
  EXPECT_EQ(boundaries_of({"ev", "ler", "de"}), (std::vector<size_t>{2, 5}));
  EXPECT_EQ(boundaries_of({"çöğ", "üş"}), (std::vector<size_t>{3}));
  EXPECT_TRUE(boundaries_of({"kitap"}).empty());
}

TEST(BoundaryMetricsTest, HandComputedMicroAndMacro) {
  BoundaryScorer scorer;
  // word 1: pred {2,5}, gold {2,5}: 2 hits / 2 pred / 2 gold
  scorer.add({"ev", "ler", "de"}, {{"ev", "ler", "de"}});
  // word 2: pred {3}, gold {5}: 0 hits / 1 pred / 1 gold
  scorer.add({"kit", "aplar"}, {{"kitap", "lar"}});
  // word 3: pred {}, gold {2}: 0 / 0 / 1
  scorer.add({"gözlük"}, {{"gö", "zlük"}});
  const BoundaryScores s = scorer.scores();
  EXPECT_EQ(s.words, 3u);
  EXPECT_DOUBLE_EQ(s.precision, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.recall, 2.0 / 4.0);
  EXPECT_DOUBLE_EQ(s.f1, 2 * (2.0 / 3) * 0.5 / (2.0 / 3 + 0.5));
  // macro P over words with predictions: (1 + 0) / 2; macro R over words with gold: (1+0+0)/3
  EXPECT_DOUBLE_EQ(s.macro_precision, 0.5);
  EXPECT_DOUBLE_EQ(s.macro_recall, 1.0 / 3.0);
}

TEST(BoundaryMetricsTest, BestGoldAlternativeCounts) {
  const BoundaryCounts c = score_word({"kitap", "lar"}, {{"ki", "tap", "lar"}, {"kitap", "lar"}});
  EXPECT_EQ(c.hits, 1u);
  EXPECT_EQ(c.gold, 1u);  // tie on hits → fewer gold boundaries
}

}  // namespace
}  // namespace morpheus::eval
