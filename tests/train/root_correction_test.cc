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
  EXPECT_EQ(lex.root_split(U"kaldırdı"), 6u);      // the paper's rule: kaldır + dı
  EXPECT_EQ(lex.snap_root(U"kaldırdı").root, 3u);  // kal + dırdı, not k + aldırdı
  EXPECT_EQ(lex.root_split(U"yapıyor"), 4u);       // yapı + yor
  EXPECT_EQ(lex.snap_root(U"yapıyor").root, 3u);   // yap + ıyor
  EXPECT_EQ(lex.snap_root(U"olar").root, 1u);      // a one-letter root when it is the only one
  EXPECT_EQ(lex.snap_root(U"xyz").root, 0u);
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

TEST(RootSnapTest, VoiceSuffixesFollowVerbsOnly) {
  RootLexicon lex;
  lex.add_root(U"kat");  // not flagged as a verb
  lex.add_root(U"katıl", kRootIsVerb);
  lex.add_suffix_chain(U"mıyorum");
  const RootAnalysis a = lex.snap_root(U"katılmıyorum");
  EXPECT_EQ(a.root, 5u);
  EXPECT_TRUE(a.voice_cuts.empty());
}

TEST(RootSnapTest, ConsonantAssimilationRejectsAJunction) {
  RootLexicon lex;
  lex.add_root(U"bile");  // "bile" + "tin": t after a vowel, and bile is no verb (no causative t)
  lex.add_root(U"bilet");
  lex.add_suffix_chain(U"tin");
  lex.add_suffix_chain(U"in");
  lex.add_suffix_chain(U"da");
  EXPECT_EQ(lex.snap_root(U"biletin").root, 5u);
  lex.add_root(U"kitap");
  EXPECT_EQ(lex.snap_root(U"kitapda").root, 0u);  // d after voiceless p: no junction
}

TEST(RootSnapTest, VowelHarmonyRejectsAJunction) {
  RootLexicon lex;
  lex.add_root(U"kal");
  lex.add_root(U"kalem");
  lex.add_suffix_chain(U"em");
  lex.add_suffix_chain(U"i");
  lex.add_suffix_chain(U"ken");
  EXPECT_EQ(lex.snap_root(U"kalem").root, 5u);   // kal + em breaks backness: the whole word
  EXPECT_EQ(lex.snap_root(U"kalken").root, 3u);  // ken does not harmonize: kal + ken stays
  EXPECT_EQ(lex.snap_root(U"saati").root, 0u);
  lex.add_root(U"saat", kRootIgnoresHarmony);  // IS_UU: saat takes front suffixes
  EXPECT_EQ(lex.snap_root(U"saati").root, 4u);
}

TEST(RootSnapTest, ADesoftenedRootMustSoftenBeforeAVowel) {
  RootLexicon lex;
  lex.add_root(U"top");  // top -> topu: does not soften
  lex.add_root(U"kitap", kRootSoftens);
  lex.add_suffix_chain(U"u");
  lex.add_suffix_chain(U"ı");
  EXPECT_EQ(lex.snap_root(U"tobu").root, 0u);
  EXPECT_EQ(lex.snap_root(U"kitabı").root, 5u);
}

TEST(RootSnapTest, RootFormIsTheDictionaryEntry) {
  RootLexicon lex;
  lex.add_root(U"kitap", kRootSoftens);
  lex.add_root(U"kal", kRootIsVerb);
  lex.add_suffix_chain(U"ı");
  lex.add_suffix_chain(U"dı");
  EXPECT_EQ(lex.snap_root_form(U"kitabı"), U"kitap");  // de-softened back to the entry
  EXPECT_EQ(lex.snap_root_form(U"kitap"), U"kitap");
  EXPECT_EQ(lex.snap_root_form(U"kaldırdı"), U"kal");  // the causative dır is cut off
  EXPECT_EQ(lex.snap_root_form(U"xyzı"), U"");
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
  ASSERT_TRUE(
      write_file_atomic(roots, "KİTAP CL_ISIM IS_SD\nev CL_ISIM IS_OA\ngel CL_FIIL\n\n").ok());
  ASSERT_TRUE(write_file_atomic(suffixes, "lar\nı\n").ok());
  StatusOr<RootLexicon> lex = RootLexicon::load(roots, suffixes);
  ASSERT_TRUE(lex.ok()) << lex.status().to_string();
  EXPECT_EQ(lex->num_roots(), 3u);
  EXPECT_EQ(lex->root_split(U"kitabı"), 5u);
  EXPECT_EQ(lex->roots().at(U"kitap"), kRootSoftens);
  EXPECT_EQ(lex->roots().at(U"ev"), 0);
  EXPECT_EQ(lex->roots().at(U"gel"), kRootIsVerb);
  EXPECT_FALSE(RootLexicon::load(path_join(dir, "missing.txt"), suffixes).ok());
}

}  // namespace
}  // namespace morpheus::train
