// SPDX-License-Identifier: MIT
// Tests for prepare/root_correction.h: the Kalbur rule on a hand-made lexicon.
#include "prepare/root_correction.h"

#include <gtest/gtest.h>

#include "tests/morph/small_lexicon.h"

namespace morpheus::train {
namespace {

using morph::Cuts;
using morph::RootLexicon;
using testing::small_lexicon;

TEST(RootCorrectionTest, RemovesCutsInsideTheRootWhenTheTeacherAgreesOnItsEnd) {
  const RootLexicon lex = small_lexicon();
  Cuts cuts = {2, 5, 6};  // ki|tap|la|r -> wrong root cuts, root end 5 agreed
  EXPECT_EQ(correct_root(lex, U"kitaplar", 30, &cuts), 1u);
  EXPECT_EQ(cuts, (Cuts{5, 6}));
  EXPECT_EQ(root_of(U"kitaplar", cuts), U"kitap");
}

TEST(RootCorrectionTest, LeavesLabelsWhenTheTeacherMissesTheRootEnd) {
  const RootLexicon lex = small_lexicon();
  Cuts cuts = {2, 4};  // ki|ta|plar: no cut at 5
  EXPECT_EQ(correct_root(lex, U"kitaplar", 30, &cuts), 0u);
  EXPECT_EQ(cuts, (Cuts{2, 4}));
}

TEST(RootCorrectionTest, NeverCorrectsABareRoot) {
  const RootLexicon lex = small_lexicon();
  Cuts cuts = {3};  // göz|lük over-split, but the word itself is a root (R == length)
  EXPECT_EQ(correct_root(lex, U"gözlük", 30, &cuts), 0u);
  EXPECT_EQ(cuts, (Cuts{3}));
}

TEST(RootCorrectionTest, RootsLongerThanTheLimitAreLeftAlone) {
  const RootLexicon lex = small_lexicon();
  Cuts cuts = {2, 5};
  EXPECT_EQ(correct_root(lex, U"kitaplar", 4, &cuts), 0u);
  EXPECT_EQ(cuts, (Cuts{2, 5}));
}

}  // namespace
}  // namespace morpheus::train
