// SPDX-License-Identifier: MIT
#include "eval/gold_policy.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "eval/gold_data.h"
#include "eval/morph_metrics.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

std::vector<std::string> mc2010_words() {
  const std::string path = testing::shared_data_file("gold/mc2010_tur_trainset.tsv");
  if (path.empty()) return {};
  auto gold = load_mc2010(path);
  EXPECT_TRUE(gold.ok()) << gold.status().to_string();
  std::vector<std::string> words;
  for (const auto& g : *gold) words.push_back(g.word);
  return words;
}

TEST(GoldSplitTest, RuleIsDeterministicDisjointAndCovering) {
  const std::vector<std::string> words = mc2010_words();
  MORPHEUS_REQUIRE_DATA(words, "gold/mc2010_tur_trainset.tsv");
  const auto key = [](const std::string& w) { return w; };
  const auto tune = select_part(words, 0.5, GoldPart::kTune, key);
  const auto report = select_part(words, 0.5, GoldPart::kReport, key);
  EXPECT_EQ(select_part(words, 0.5, GoldPart::kTune, key), tune);  // same call, same part
  EXPECT_EQ(tune.size() + report.size(), words.size());
  std::set<std::string> a(tune.begin(), tune.end());
  for (const std::string& w : report) EXPECT_EQ(a.count(w), 0u) << w;
  std::set<std::string> all(tune.begin(), tune.end());
  all.insert(report.begin(), report.end());
  EXPECT_EQ(all, std::set<std::string>(words.begin(), words.end()));
  // Close to the configured shares on 1,000 words.
  EXPECT_NEAR(static_cast<double>(tune.size()) / static_cast<double>(words.size()), 0.5, 0.05);
  const auto tune10 = select_part(words, 0.1, GoldPart::kTune, key);
  EXPECT_NEAR(static_cast<double>(tune10.size()) / static_cast<double>(words.size()), 0.1, 0.03);
  // Nested: the 10 % tune part lies inside the 50 % tune part.
  for (const std::string& w : tune10) EXPECT_EQ(a.count(w), 1u) << w;
}

TEST(GoldSplitTest, CaseDoesNotChangeThePart) {
  for (const char* w : {"İstanbul", "Irmak", "KİTAPLAR", "Ilık"}) {
    EXPECT_EQ(is_tune(w, 0.5), is_tune(scoring_form(w), 0.5)) << w;
  }
}

TEST(GoldSplitTest, TuneFractionsPerSet) {
  EXPECT_DOUBLE_EQ(*tune_fraction("mc2010"), 0.5);
  for (const char* set : {"ud_types", "penn", "ud_stem_boundary", "morphscore_v1", "sigmorphon",
                          "curated", "families", "lemmas", "probes"}) {
    EXPECT_DOUBLE_EQ(*tune_fraction(set), 0.1) << set;
  }
  StatusOr<double> bad = tune_fraction("mc2011");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().hint().find("mc2010"), std::string::npos);
  EXPECT_FALSE(parse_gold_part("dev").ok());
  EXPECT_EQ(*parse_gold_part("tune"), GoldPart::kTune);
}

TEST(GoldSplitTest, GoldFilePartKeepsHeaderAndPartitionsLines) {
  const std::string path = testing::shared_data_file("gold/mc2010_tur_trainset.tsv");
  MORPHEUS_REQUIRE_DATA(path, "gold/mc2010_tur_trainset.tsv");
  auto tune = gold_file_part(path, "mc2010", GoldPart::kTune);
  auto report = gold_file_part(path, "mc2010", GoldPart::kReport);
  ASSERT_TRUE(tune.ok() && report.ok());
  const std::string dir = testing::make_temp_dir("split");
  ASSERT_TRUE(write_file_atomic(path_join(dir, "tune.tsv"), *tune).ok());
  ASSERT_TRUE(write_file_atomic(path_join(dir, "report.tsv"), *report).ok());
  auto t = load_mc2010(path_join(dir, "tune.tsv"));  // header kept: loads as a gold file
  auto r = load_mc2010(path_join(dir, "report.tsv"));
  ASSERT_TRUE(t.ok() && r.ok());
  EXPECT_EQ(t->size() + r->size(), mc2010_words().size());
  for (const auto& g : *t) EXPECT_TRUE(is_tune(g.word, 0.5)) << g.word;
  for (const auto& g : *r) EXPECT_FALSE(is_tune(g.word, 0.5)) << g.word;
  EXPECT_FALSE(gold_file_part(path, "families", GoldPart::kTune).ok());
}

TEST(CasePolicyTest, FoldCaseMergesSegmentationsAndKeepsOffsets) {
  const std::vector<GoldSegmentation> gold = {
      {"İstanbul'da", {{"İstanbul", "'", "da"}}},
      {"istanbul'da", {{"istanbul", "'da"}}},
      {"IRMAK", {{"IRMAK"}}},
  };
  const std::vector<GoldSegmentation> folded = fold_case(gold);
  ASSERT_EQ(folded.size(), 2u);
  EXPECT_EQ(folded[0].word, "istanbul'da");
  ASSERT_EQ(folded[0].alternatives.size(), 2u);
  EXPECT_EQ(folded[0].alternatives[0], (Pieces{"istanbul", "'", "da"}));
  EXPECT_EQ(folded[1].word, "ırmak");  // Turkish: I → ı
}

TEST(CasePolicyTest, FoldCaseAddsMorphScoreFrequencies) {
  const std::vector<MorphScoreItem> gold = {{"Evlerde", {"Ev", "lerde"}, 2},
                                            {"evlerde", {"ev", "lerde"}, 3}};
  const std::vector<MorphScoreItem> folded = fold_case(gold);
  ASSERT_EQ(folded.size(), 1u);
  EXPECT_EQ(folded[0].word, "evlerde");
  EXPECT_EQ(folded[0].gold, (Pieces{"ev", "lerde"}));
  EXPECT_DOUBLE_EQ(folded[0].freq, 5.0);
}

// A capitalised gold word scores exactly as its lower-cased form: the folded gold is what a
// system is asked to segment and what it is scored against.
TEST(CasePolicyTest, CapitalisedGoldWordScoresAsItsLowerCaseForm) {
  const std::vector<GoldSegmentation> cased = fold_case(
      std::vector<GoldSegmentation>{{"Kitaplarımızdan", {{"Kitap", "lar", "ımız", "dan"}}}});
  const std::vector<GoldSegmentation> lower = fold_case(
      std::vector<GoldSegmentation>{{"kitaplarımızdan", {{"kitap", "lar", "ımız", "dan"}}}});
  const Pieces prediction = {"kitap", "ları", "mız", "dan"};
  const SegmentationLookup lookup = [&](const std::string& w) -> const Pieces* {
    return w == "kitaplarımızdan" ? &prediction : nullptr;
  };
  size_t missing_cased = 0, missing_lower = 0;
  const BoundaryScores a = boundary_scores(cased, lookup, &missing_cased);
  const BoundaryScores b = boundary_scores(lower, lookup, &missing_lower);
  EXPECT_EQ(missing_cased, 0u);
  EXPECT_EQ(missing_lower, 0u);
  EXPECT_DOUBLE_EQ(a.f1, b.f1);
  EXPECT_GT(a.f1, 0.0);
}

TEST(SeenWordsTest, LetterRunsOfTheTrainingTextAreSeenWhateverTheirCase) {
  const std::string dir = testing::make_temp_dir("seen");
  const std::string text = path_join(dir, "corpus.txt");
  ASSERT_TRUE(write_file_atomic(text, "Kitabı İstanbul'da okudum.\n2 EVDE\n").ok());
  SeenWords seen;
  ASSERT_TRUE(seen.add_text_file(text).ok());
  for (const char* w : {"kitabı", "istanbul", "da", "okudum", "evde", "EVDE"}) {
    EXPECT_TRUE(seen.seen(w)) << w;
  }
  for (const char* w : {"kitap", "istanbul'da", "2", "okudu"}) EXPECT_FALSE(seen.seen(w)) << w;
  EXPECT_EQ(seen.size(), 5u);
}

}  // namespace
}  // namespace morpheus::eval
