// SPDX-License-Identifier: MIT
// MorphScore, SIGMORPHON, surface fidelity and lexicon metrics against hand-computed cases.
#include "eval/morph_metrics.h"

#include <gtest/gtest.h>

#include <map>

namespace morpheus::eval {
namespace {

// A lookup over a fixed word → pieces map.
SegmentationLookup lookup(const std::map<std::string, Pieces>& table) {
  return [table](const std::string& w) -> const Pieces* {
    auto it = table.find(w);
    return it == table.end() ? nullptr : &it->second;
  };
}

std::vector<MorphScoreItem> three_items() {
  return {{"evler", {"ev", "ler"}, 1},
          {"kitaplar", {"kitap", "lar"}, 3},
          {"gözlük", {"göz", "lük"}, 1}};
}

TEST(MorphScoreTest, MacroF1IsF1OfMeanPrecisionAndMeanRecall) {
  // evler: R=P=1; kitaplar: cuts {3,5} vs {5}: R=1, P=1/2; gözlük single token: R=P=0.
  const auto seg = lookup(
      {{"evler", {"ev", "ler"}}, {"kitaplar", {"kit", "ap", "lar"}}, {"gözlük", {"gözlük"}}});
  const MorphScoreResult r = morphscore(three_items(), seg);
  EXPECT_EQ(r.words, 3u);
  EXPECT_NEAR(r.mean_recall, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.mean_precision, 0.5, 1e-12);
  EXPECT_NEAR(r.macro_f1, 4.0 / 7.0, 1e-12);  // not the mean per-word F1 (5/9)
  EXPECT_NEAR(r.micro_precision, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.micro_recall, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.single_token_rate, 1.0 / 3.0, 1e-12);
  // freq weights 1, 3, 1: fw_R = (1 + 3) / 5, fw_P = (1 + 1.5) / 5.
  EXPECT_NEAR(r.fw_recall, 0.8, 1e-12);
  EXPECT_NEAR(r.fw_precision, 0.5, 1e-12);
  EXPECT_EQ(r.length_mismatch_rate, 0.0);
}

TEST(MorphScoreTest, MissingWordsAreCountedNotScored) {
  const auto seg = lookup({{"evler", {"ev", "ler"}}});
  const MorphScoreResult r = morphscore(three_items(), seg);
  EXPECT_EQ(r.words, 1u);
  EXPECT_EQ(r.missing, 2u);
  EXPECT_DOUBLE_EQ(r.macro_f1, 1.0);
}

TEST(MorphScoreTest, LengthMismatchCountsPiecesThatDoNotSpellTheWordLength) {
  const auto seg = lookup({{"evler", {"ev", "le"}}, {"kitaplar", {"kitap", "lar"}}});
  const MorphScoreResult r = morphscore(three_items(), seg);
  EXPECT_NEAR(r.length_mismatch_rate, 0.5, 1e-12);
}

TEST(SigmorphonTest, FiltersAndDerivesRoots) {
  const std::vector<SigmorphonEntry> entries = {
      {"kitap", "kitabı", {"N", "ACC", "SG"}},
      {"gelmek", "geldim", {"V", "PST", "1", "SG", "IND", "POS"}},
      {"ev", "evler", {"N", "NOM", "PL"}},
      {"ev", "ev", {"N", "NOM", "SG"}},           // too short
      {"gelmek", "gelmiş olmalı", {"V", "PRF"}},  // multi-word
  };
  const std::vector<SigmorphonItem> items = sigmorphon_items(entries);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[1].root, "gel");
  EXPECT_EQ(items[0].expected_suffixes, 2u);
  EXPECT_EQ(items[1].expected_suffixes, 3u);
}

TEST(SigmorphonTest, LemmaPrefixAndRootInSegmentsRates) {
  const std::vector<SigmorphonItem> items = sigmorphon_items({
      {"kitap", "kitabı", {"N", "ACC", "SG"}},
      {"gelmek", "geldim", {"V", "PST", "1", "SG"}},
      {"ev", "evler", {"N", "NOM", "PL"}},
  });
  const auto seg =
      lookup({{"kitabı", {"kitab", "ı"}}, {"geldim", {"gel", "di", "m"}}, {"evler", {"evler"}}});
  const SigmorphonResult r = sigmorphon(items, seg);
  EXPECT_EQ(r.words, 3u);
  EXPECT_NEAR(r.lemma_prefix, 2.0 / 3.0, 1e-12);  // kitab → canon kitap
  EXPECT_NEAR(r.root_in_segments, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.mean_diff, -4.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.mean_abs_diff, 4.0 / 3.0, 1e-12);
  EXPECT_EQ(r.exact_suffix_count, 0.0);
  EXPECT_EQ(r.verb_lemma_prefix, 1.0);
  EXPECT_EQ(r.noun_lemma_prefix, 0.5);
}

TEST(SigmorphonTest, CanonHardensFinalConsonantAfterTurkishLowering) {
  EXPECT_EQ(sigmorphon_canon("KİTAB"), "kitap");
  EXPECT_EQ(sigmorphon_canon("ağaç"), "ağaç");
  EXPECT_EQ(sigmorphon_canon("köpeğ"), "köpek");
  EXPECT_EQ(sigmorphon_canon("ağac"), "ağaç");
}

TEST(SurfaceFidelityTest, RootCountLengthExactPercentages) {
  const std::vector<CuratedWord> words = {
      {"rare_root", {"fonksiyon", "lar"}},
      {"softening", {"yaprağ", "ın"}},
      {"derivation", {"demir", "ci", "lik"}},
  };
  const auto seg = lookup({{"fonksiyonlar", {"Fonksiyon", "lar"}},
                           {"yaprağın", {"yap", "rağın"}},
                           {"demircilik", {"demir", "cilik"}}});
  const SurfaceFidelityResult r = surface_fidelity(words, seg);
  EXPECT_EQ(r.words, 3u);
  EXPECT_NEAR(r.root_pct, 200.0 / 3.0, 1e-9);
  EXPECT_NEAR(r.count_pct, 200.0 / 3.0, 1e-9);
  EXPECT_NEAR(r.len_pct, 100.0 / 3.0, 1e-9);
  EXPECT_NEAR(r.exact_pct, 100.0 / 3.0, 1e-9);
}

TEST(SurfaceFidelityTest, CuratedListHasFiftyWordsInFiveCategories) {
  const auto& words = curated_surface_words();
  ASSERT_EQ(words.size(), 50u);
  EXPECT_EQ(words.front().word(), "fonksiyonlar");
  EXPECT_EQ(words.back().word(), "kalplerin");
  std::map<std::string, int> per;
  for (const auto& w : words) ++per[w.category];
  EXPECT_EQ(per["rare_root"], 20);
  EXPECT_EQ(per["derivation"], 10);
  EXPECT_EQ(per["softening"], 7);
  EXPECT_EQ(per["vowel_drop"], 6);
  EXPECT_EQ(per["loanword_exc"], 7);
}

TurkishLexicon tiny_lexicon() {
  TurkishLexicon lex;
  lex.roots = {"ev", "kitap"};
  lex.suffixes = {"ler", "de", "i", "m"};
  return lex;
}

TEST(LexiconTest, ClassifiesPureAndTurkishTokens) {
  const TurkishLexicon lex = tiny_lexicon();
  EXPECT_TRUE(classify_token("ev", lex).pure);
  EXPECT_TRUE(classify_token("LER", lex).pure);
  EXPECT_FALSE(classify_token("evler", lex).pure);
  EXPECT_TRUE(classify_token("evler", lex).turkish);    // root + suffix
  EXPECT_TRUE(classify_token("evlerde", lex).turkish);  // root + chain
  EXPECT_TRUE(classify_token("lerde", lex).turkish);    // chain of two suffixes
  EXPECT_FALSE(classify_token("xyz", lex).turkish);
  EXPECT_FALSE(classify_token("evxyz", lex).turkish);
  EXPECT_FALSE(classify_token("", lex).turkish);
}

TEST(LexiconTest, FertilityAndUniqueVersusWeightedShares) {
  const auto seg = lookup({{"evler", {"ev", "ler"}}, {"kitabım", {"kitab", "ım"}}});
  const LexiconResult r =
      lexicon_metrics({{"evler", 2}, {"kitabım", 1}, {"yok", 4}}, seg, tiny_lexicon());
  EXPECT_EQ(r.word_occurrences, 3u);
  EXPECT_EQ(r.missing, 1u);
  EXPECT_EQ(r.tokens, 6u);
  EXPECT_EQ(r.distinct_tokens, 4u);
  EXPECT_DOUBLE_EQ(r.fertility, 2.0);
  EXPECT_DOUBLE_EQ(r.tr_pct, 50.0);
  EXPECT_DOUBLE_EQ(r.pure_pct, 50.0);
  EXPECT_NEAR(r.tr_pct_fw, 400.0 / 6.0, 1e-9);
  EXPECT_NEAR(r.chars_per_token, (2.0 * 5 + 7) / 6.0, 1e-9);
}

TEST(BoundaryScoresTest, SkipsWordsWithoutPrediction) {
  const std::vector<GoldSegmentation> gold = {{"evler", {{"ev", "ler"}}}, {"evde", {{"ev", "de"}}}};
  size_t missing = 0;
  const BoundaryScores s = boundary_scores(gold, lookup({{"evler", {"e", "vler"}}}), &missing);
  EXPECT_EQ(missing, 1u);
  EXPECT_EQ(s.words, 1u);
  EXPECT_EQ(s.precision, 0.0);
}

}  // namespace
}  // namespace morpheus::eval
