// SPDX-License-Identifier: MIT
// The root snap (morph/root_snap.h): cuts at the root end and nowhere inside the root, the
// suffix cuts kept, pieces that still spell the word.
#include "morph/root_snap.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/morph/small_lexicon.h"

namespace morpheus::morph {
namespace {

using testing::small_lexicon;

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

TEST(RootSnapTest, VoiceSuffixesAreCutBetweenAVerbRootAndTheChain) {
  RootLexicon lex;
  lex.add_root(U"kat", kRootIsVerb);
  lex.add_root(U"katıl", kRootIsVerb);
  lex.add_root(U"dol", kRootIsVerb);
  lex.add_suffix_chain(U"mıyorum");
  lex.add_suffix_chain(U"mayı");
  const RootAnalysis katil = lex.snap_root(U"katılmıyorum");
  EXPECT_EQ(katil.root, 3u);  // kat|ıl|mıyorum: passive ıl
  EXPECT_EQ(katil.voice_cuts, (Cuts{5}));
  const RootAnalysis doldur = lex.snap_root(U"doldurulmayı");
  EXPECT_EQ(doldur.root, 3u);  // dol|dur|ul|mayı: causative dur, passive ul
  EXPECT_EQ(doldur.voice_cuts, (Cuts{6, 8}));
  Cuts cuts = {5, 10};  // katıl|mıyor|um from the model
  EXPECT_TRUE(snap_to_root(lex, U"katılmıyorum", &cuts));
  EXPECT_EQ(cuts, (Cuts{3, 5, 10}));
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

}  // namespace
}  // namespace morpheus::morph
