// SPDX-License-Identifier: MIT
// Tests for eval/gold_sets.h on the tiny gold files of tests/data/eval: the configured part,
// case folding, the evaluation text, seen words, and the word lists the systems are run on.
#include "eval/gold_sets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

// The tiny gold files by absolute path (no lexicon: it lives in the shared data).
EvalConfig tiny_config(const std::string& split = "all") {
  const std::string d = path_join(testing::source_dir(), "tests/data/eval");
  EvalConfig c;
  c.gold.mc2010 = path_join(d, "mc2010.tsv");
  c.gold.ud_stem_boundary = path_join(d, "ud_stem.tsv");
  c.gold.morphscore_v1 = path_join(d, "morphscore.csv");
  c.gold.ud_types = path_join(d, "ud_types.tsv");
  c.gold.penn = path_join(d, "penn.tsv");
  c.gold.sigmorphon = path_join(d, "sigmorphon.gold");
  c.gold.ud_dir = path_join(d, "ud");
  c.gold.hybrid_lexicon = "";
  c.gold.sentences = path_join(d, "sentences.txt");
  c.split = split;
  c.embeddings.probe_min_class = 2;
  return c;
}

GoldSets load(const EvalConfig& c) {
  StatusOr<GoldSets> g = load_gold_sets(c);
  EXPECT_TRUE(g.ok()) << g.status().to_string();
  return g.ok() ? std::move(*g) : GoldSets();
}

TEST(GoldSetsTest, TuneAndReportPartsPartitionEverySet) {
  const GoldSets all = load(tiny_config("all"));
  const GoldSets tune = load(tiny_config("tune"));
  const GoldSets report = load(tiny_config("report"));
  EXPECT_EQ(all.mc2010.size(), 3u);
  EXPECT_EQ(tune.mc2010.size() + report.mc2010.size(), all.mc2010.size());
  EXPECT_EQ(tune.ud_unique.size() + report.ud_unique.size(), all.ud_unique.size());
  EXPECT_EQ(tune.penn.size() + report.penn.size(), all.penn.size());
  EXPECT_EQ(tune.ud_stem.size() + report.ud_stem.size(), all.ud_stem.size());
  EXPECT_EQ(tune.family_words.size() + report.family_words.size(), all.family_words.size());
  EXPECT_GT(all.family_words.size(), 0u);
  // The evaluation text and the round-trip words are not split.
  EXPECT_EQ(tune.sentences, all.sentences);
  EXPECT_EQ(report.roundtrip_words, all.roundtrip_words);
}

TEST(GoldSetsTest, ScoringWordsAreCaseFoldedAndRoundTripWordsKeptAsWritten) {
  const std::string dir = testing::make_temp_dir("gold_sets_case");
  const std::string ud_stem = path_join(dir, "ud_stem.tsv");
  ASSERT_TRUE(write_file_atomic(ud_stem,
                                "form\tlemma\tupos\tfeats\tstem\trest\ttreebank\tfile\n"
                                "KİTAPLAR\tKİTAP\tNOUN\t_\tKİTAP\tLAR\tT\tf\n")
                  .ok());
  EvalConfig c = tiny_config();
  c.gold.ud_stem_boundary = ud_stem;
  const GoldSets g = load(c);
  ASSERT_EQ(g.ud_stem.size(), 1u);
  EXPECT_EQ(g.ud_stem[0].word, "kitaplar");
  EXPECT_EQ(g.ud_stem[0].gold, (Pieces{"kitap", "lar"}));
  EXPECT_EQ(g.roundtrip_words, std::vector<std::string>{"KİTAPLAR"});
}

TEST(GoldSetsTest, TextIsCutAtMaxCharsAndItsLetterRunsCounted) {
  EvalConfig c = tiny_config();
  const GoldSets whole = load(c);
  ASSERT_EQ(whole.sentences.size(), 2u);
  // "Evlerde kitaplar var." and "Kitaplar evlerde, geldiler!": 22 + 28 characters with newlines.
  EXPECT_EQ(whole.text_chars, 50u);
  EXPECT_EQ(whole.letter_words.at("Kitaplar"), 1u);
  EXPECT_EQ(whole.letter_words.at("evlerde"), 1u);
  EXPECT_EQ(whole.text_words, 9u);  // 6 letter runs + 3 punctuation spans
  c.speed.max_chars = 30;           // the first sentence fits, the second does not
  const GoldSets cut = load(c);
  EXPECT_EQ(cut.sentences, std::vector<std::string>{"Evlerde kitaplar var."});
  EXPECT_EQ(cut.text_chars, 22u);
}

TEST(GoldSetsTest, TrainingTextAndMc2010TuneWordsAreSeen) {
  const std::string dir = testing::make_temp_dir("gold_sets_seen");
  const std::string text = path_join(dir, "corpus.txt");
  ASSERT_TRUE(write_file_atomic(text, "Kitap yok.\n").ok());
  EvalConfig c = tiny_config();
  EXPECT_FALSE(load(c).seen.has_value());
  EXPECT_FALSE(unseen_text_share(load(c)).has_value());
  c.training_text = text;
  const GoldSets g = load(c);
  ASSERT_TRUE(g.seen.has_value());
  EXPECT_TRUE(g.seen->seen("YOK"));
  EXPECT_FALSE(g.seen->seen("kitaplar"));
  EXPECT_EQ(g.training_checksum.rfind("fnv1a64:", 0), 0u);
  // evlerde is the one MC2010 tune word of the tiny file: seen without being in the text.
  const GoldSets tune = load(tiny_config("tune"));
  ASSERT_EQ(tune.mc2010.size(), 1u);
  EXPECT_EQ(tune.mc2010[0].word, "evlerde");
  EXPECT_TRUE(g.seen->seen("Evlerde"));
  // Letter runs of the text (scoring form): evlerde kitaplar var geldiler; 3 of 4 unseen.
  EXPECT_EQ(unseen_text_share(g), 0.75);
}

// A treebank of 60 lemmas with three inflected NOUN forms each (ler, de, den), in a new ud_dir.
EvalConfig many_lemmas_config(const std::string& split) {
  EvalConfig c = tiny_config(split);
  const std::string dir = path_join(testing::make_temp_dir("gold_sets_lemmas"), "ud");
  std::string conllu = "# text = x\n";
  const std::string letters = "bcdfgklmnprstvyz";
  for (size_t i = 0; i < 60; ++i) {
    const std::string lemma = "a" + letters.substr(i % 16, 1) + "e" + letters.substr(i / 16, 1);
    for (const char* suffix : {"ler", "de", "den"}) {
      conllu += "1\t" + lemma + suffix + "\t" + lemma + "\tNOUN\t_\t_\t0\troot\t_\t_\n";
    }
  }
  EXPECT_TRUE(make_dirs(dir).ok());
  EXPECT_TRUE(write_file_atomic(path_join(dir, "many.conllu"), conllu + "\n").ok());
  c.gold.ud_dir = dir;
  return c;
}

TEST(GoldSetsTest, LemmaPartSplitKeepsALemmasFormsTogether) {
  const GoldSets all = load(many_lemmas_config("all"));
  const GoldSets tune = load(many_lemmas_config("tune"));
  const GoldSets report = load(many_lemmas_config("report"));
  ASSERT_EQ(all.lemma_items.size(), 180u);
  EXPECT_EQ(all.lemma_candidates.size(), 60u);
  ASSERT_GT(tune.lemma_candidates.size(), 0u);
  EXPECT_EQ(tune.lemma_candidates.size() + report.lemma_candidates.size(), 60u);
  // Every lemma of a part comes with all three of its forms, and only there.
  EXPECT_EQ(tune.lemma_items.size(), 3 * tune.lemma_candidates.size());
  EXPECT_EQ(report.lemma_items.size(), 3 * report.lemma_candidates.size());
  const double fraction = *tune_fraction("lemmas");
  for (const LemmaItem& x : tune.lemma_items) EXPECT_TRUE(is_tune(x.lemma, fraction)) << x.word;
  for (const LemmaItem& x : report.lemma_items) EXPECT_FALSE(is_tune(x.lemma, fraction)) << x.word;
}

TEST(GoldSetsTest, LemmaQueriesAreSampledButCandidatesKeptWhole) {
  EvalConfig c = many_lemmas_config("all");
  c.embeddings.lemma_max_queries = 7;
  const GoldSets g = load(c);
  EXPECT_EQ(g.lemma_items.size(), 7u);
  EXPECT_EQ(g.lemma_items_total, 180u);
  EXPECT_EQ(g.lemma_candidates.size(), 60u);
  const std::vector<std::string> words = embedding_words(g);
  for (const LemmaItem& x : g.lemma_items) {
    EXPECT_TRUE(std::binary_search(words.begin(), words.end(), x.word)) << x.word;
  }
  for (const std::string& lemma : g.lemma_candidates) {
    EXPECT_TRUE(std::binary_search(words.begin(), words.end(), lemma)) << lemma;
  }
  EXPECT_EQ(load(c).lemma_items[0].word, g.lemma_items[0].word);  // seeded
}

TEST(GoldSetsTest, SegmentationWordsAreTheSortedUnionWithoutWhitespace) {
  GoldSets g;
  g.mc2010 = {{"evler", {}}, {"iki kelime", {}}};
  g.penn = {{"evler", {}}, {"kitap", {}}};
  g.sigmorphon = {{"geldi", "gel", "V"}};
  g.letter_words = {{"Ankara", 2}, {"", 1}};
  g.curated = {curated_surface_words().front()};
  std::vector<std::string> expected = {"Ankara", "evler", "geldi", "kitap", g.curated[0].word()};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(segmentation_words(g), expected);
  g.family_words = {"evde", "ev"};
  g.number_items = {{"evler", "Plur"}};
  EXPECT_EQ(embedding_words(g), (std::vector<std::string>{"ev", "evde", "evler"}));
  g.inflection_items = {{"evlerde", "Loc|Plur"}};
  g.lemma_items = {{"kitaplar", "kitap"}};
  g.lemma_candidates = {"kitap", "göz"};
  EXPECT_EQ(embedding_words(g), (std::vector<std::string>{"ev", "evde", "evler", "evlerde", "göz",
                                                          "kitap", "kitaplar"}));
}

TEST(GoldSetsTest, MissingGoldFileIsAnErrorNamingIt) {
  EvalConfig c = tiny_config();
  c.gold.penn = path_join(testing::make_temp_dir("gold_sets_missing"), "no_such.tsv");
  StatusOr<GoldSets> g = load_gold_sets(c);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("no_such.tsv"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::eval
