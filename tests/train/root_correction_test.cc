// SPDX-License-Identifier: MIT
// Tests for train/root_correction.h: the Kalbur rule on hand-made lexicons.
#include "train/root_correction.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::train {
namespace {

RootLexicon small_lexicon() {
  RootLexicon lex;
  for (const char32_t* r : {U"kitap", U"ev", U"göz", U"gözlük", U"ağaç", U"a"}) lex.add_root(r);
  for (const char32_t* s : {U"lar", U"ı", U"lerde", U"de", U"ler", U"lü", U"çı"}) {
    lex.add_suffix_chain(s);
  }
  return lex;
}

TEST(RootCorrectionTest, DesofteningMatchesTheDictionaryForm) {
  const RootLexicon lex = small_lexicon();
  EXPECT_TRUE(lex.root_match(U"kitab"));  // kitap
  EXPECT_TRUE(lex.root_match(U"ağac"));   // ağaç
  EXPECT_FALSE(lex.root_match(U"kitac"));
  EXPECT_EQ(lex.root_split(U"kitabı"), 5u);
}

TEST(RootCorrectionTest, LongestRootWhoseRemainderIsASuffixChain) {
  const RootLexicon lex = small_lexicon();
  EXPECT_EQ(lex.root_split(U"gözlükler"), 6u);  // gözlük + ler, not göz + lükler
  EXPECT_EQ(lex.root_split(U"gözlü"), 3u);      // "gözlü" is not a root: göz + lü
  EXPECT_EQ(lex.root_split(U"evlerde"), 2u);
  EXPECT_EQ(lex.root_split(U"xyz"), 0u);
  EXPECT_EQ(lex.root_split(U"gözlük"), 6u);
}

TEST(RootCorrectionTest, ShortestRootOfAtLeastTwoLetters) {
  RootLexicon lex;
  for (const char32_t* r : {U"kal", U"kaldır", U"k", U"yap", U"yapı", U"o"}) lex.add_root(r);
  for (const char32_t* s : {U"dı", U"dırdı", U"aldırdı", U"ıyor", U"yor", U"lar"}) {
    lex.add_suffix_chain(s);
  }
  EXPECT_EQ(lex.root_split(U"kaldırdı"), 6u);           // the paper's rule: kaldır + dı
  EXPECT_EQ(lex.shortest_root_split(U"kaldırdı"), 3u);  // kal + dırdı, not k + aldırdı
  EXPECT_EQ(lex.root_split(U"yapıyor"), 4u);            // yapı + yor
  EXPECT_EQ(lex.shortest_root_split(U"yapıyor"), 3u);   // yap + ıyor
  EXPECT_EQ(lex.shortest_root_split(U"olar"), 1u);      // a one-letter root when it is the only one
  EXPECT_EQ(lex.shortest_root_split(U"xyz"), 0u);
}

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

TEST(RootSnapTest, CutsAtTheRootEndAndNowhereInsideTheRoot) {
  const RootLexicon lex = small_lexicon();
  Cuts cuts = {2, 7};  // ki|tapla|r: the model missed the root end 5
  EXPECT_TRUE(snap_to_root(lex, U"kitaplar", &cuts));
  EXPECT_EQ(cuts, (Cuts{5, 7}));
}

TEST(RootSnapTest, SnapsToTheShortestRoot) {
  RootLexicon lex;
  for (const char32_t* r : {U"kal", U"kaldır"}) lex.add_root(r);
  for (const char32_t* s : {U"dı", U"dırdı"}) lex.add_suffix_chain(s);
  Cuts cuts = {6};  // kaldır|dı: the longest root
  EXPECT_TRUE(snap_to_root(lex, U"kaldırdı", &cuts));
  EXPECT_EQ(cuts, (Cuts{3, 6}));  // kal|dır|dı: the model's suffix cut stays
}

TEST(RootSnapTest, LeavesWordsWithoutAKnownRootAndSuffixChain) {
  const RootLexicon lex = small_lexicon();
  Cuts cuts = {1, 2};
  EXPECT_FALSE(snap_to_root(lex, U"xyz", &cuts));
  EXPECT_EQ(cuts, (Cuts{1, 2}));
  Cuts bare = {3};  // the whole word is a root: R == length, unchanged
  EXPECT_FALSE(snap_to_root(lex, U"gözlük", &bare));
  EXPECT_EQ(bare, (Cuts{3}));
}

TEST(RootSnapTest, PiecesStillSpellTheWord) {
  const RootLexicon lex = small_lexicon();
  EXPECT_EQ(snap_pieces(lex, {"ağ", "açlar"}), (std::vector<std::string>{"ağaç", "lar"}));
  EXPECT_EQ(snap_pieces(lex, {"ev", "lerde"}), (std::vector<std::string>{"ev", "lerde"}));
  EXPECT_EQ(snap_pieces(lex, {"e", "v", "ler", "de"}),
            (std::vector<std::string>{"ev", "ler", "de"}));
  EXPECT_EQ(snap_pieces(lex, {"E", "v", "ler", "de"}),  // matched lower-cased, case kept
            (std::vector<std::string>{"Ev", "ler", "de"}));
  EXPECT_EQ(snap_pieces(lex, {"Ağ", "Açlar"}), (std::vector<std::string>{"AğAç", "lar"}));
}

TEST(RootCorrectionTest, LoadsFirstFieldsLowerCased) {
  const std::string dir = testing::make_temp_dir("roots");
  const std::string roots = path_join(dir, "roots.txt");
  const std::string suffixes = path_join(dir, "suffixes.txt");
  ASSERT_TRUE(write_file_atomic(roots, "KİTAP CL_ISIM\nev CL_ISIM IS_OA\n\n").ok());
  ASSERT_TRUE(write_file_atomic(suffixes, "lar\nı\n").ok());
  StatusOr<RootLexicon> lex = RootLexicon::load(roots, suffixes);
  ASSERT_TRUE(lex.ok()) << lex.status().to_string();
  EXPECT_EQ(lex->num_roots(), 2u);
  EXPECT_EQ(lex->root_split(U"kitabı"), 5u);
  EXPECT_FALSE(RootLexicon::load(path_join(dir, "missing.txt"), suffixes).ok());
}

}  // namespace
}  // namespace morpheus::train
