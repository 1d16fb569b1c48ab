// SPDX-License-Identifier: MIT
// Tests for eval/system_runs.h: command templates, the artifact check, and one system run through
// its commands (a failing command, a `cat` codec), a ready file and a built-in segmenter.
#include "eval/system_runs.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

TEST(ExpandCommandTest, QuotesValuesAndRejectsUnknownPlaceholders) {
  auto cmd = expand_command("seg {input} -o {output}", {{"input", "a b.txt"}, {"output", "it's"}});
  ASSERT_TRUE(cmd.ok());
  EXPECT_EQ(*cmd, "seg 'a b.txt' -o 'it'\\''s'");
  auto bad = expand_command("seg {inptu}", {{"input", "x"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("{inptu}"), std::string::npos);
}

TEST(SystemRunsTest, MissingArtifactStopsTheEvaluationNamingItAndMainSh) {
  const std::string dir = testing::make_temp_dir("artifacts");
  const std::string present = path_join(dir, "morpheus.json");
  ASSERT_TRUE(write_file_atomic(present, "{}\n").ok());
  EvalConfig c;
  c.systems = {{}, {}, {}};
  c.systems[0].name = "ready";
  c.systems[0].artifact = present;
  c.systems[1].name = "no-artifact";
  EXPECT_TRUE(check_artifacts(c).ok());
  c.systems[2].name = "unexported";
  c.systems[2].artifact = path_join(dir, "tokenizer-warm/morpheus.json");
  const Status s = check_artifacts(c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("unexported needs " + c.systems[2].artifact), std::string::npos);
  EXPECT_EQ(s.message().find("ready"), std::string::npos);
  EXPECT_NE(s.hint().find("run scripts/main.sh first"), std::string::npos);
}

// A system run on `words` (and the gold sets `g`) in a fresh work directory.
SystemResult run(const SystemSpec& spec, const std::vector<std::string>& words,
                 const GoldSets& g = GoldSets(), const EvalConfig& c = EvalConfig()) {
  const std::string work = testing::make_temp_dir("system_runs");
  const std::string words_file = path_join(work, "words.txt");
  const std::string sentences_file = path_join(work, "sentences.txt");
  std::string text, sentences;
  for (const std::string& w : words) text += w + "\n";
  for (const std::string& s : g.sentences) sentences += s + "\n";
  EXPECT_TRUE(write_file_atomic(words_file, text).ok());
  EXPECT_TRUE(write_file_atomic(sentences_file, sentences).ok());
  return run_system(c, spec, work, words, words_file, words_file, sentences_file, g);
}

TEST(SystemRunsTest, BuiltinCharactersSegmenterSplitsCodePoints) {
  SystemSpec spec;
  spec.name = "characters";
  spec.builtin = "characters";
  const SystemResult r = run(spec, {"çay", "ev"});
  ASSERT_TRUE(r.has_seg);
  EXPECT_EQ(r.seg.at("çay"), (Pieces{"ç", "a", "y"}));
  EXPECT_EQ(r.seg_lines, 2u);
  EXPECT_EQ(r.codec_note, "no encode/decode commands");
  EXPECT_EQ(r.emb_note, "no embeddings");
  EXPECT_FALSE(r.emb.has_value());
}

TEST(SystemRunsTest, FailingCommandLeavesANoteNotAnError) {
  SystemSpec spec;
  spec.name = "broken";
  spec.segment = "exit 3";
  const SystemResult r = run(spec, {"ev"});
  EXPECT_FALSE(r.has_seg);
  EXPECT_NE(r.seg_note.find("segment failed (exit 3)"), std::string::npos);
  EXPECT_NE(r.seg_note.find("broken.log"), std::string::npos);
}

TEST(SystemRunsTest, ReadyFileLinesThatDoNotSpellTheWordAreCounted) {
  const std::string dir = testing::make_temp_dir("ready_seg");
  SystemSpec spec;
  spec.name = "ready";
  spec.segmentations = path_join(dir, "seg.tsv");
  ASSERT_TRUE(write_file_atomic(spec.segmentations, "evler\tev ler\nkitap\tkit ab\n").ok());
  const SystemResult r = run(spec, {"evler", "kitap"});
  ASSERT_TRUE(r.has_seg) << r.seg_note;
  EXPECT_EQ(r.seg_lines, 2u);
  EXPECT_EQ(r.non_spelling, 1u);
  EXPECT_EQ(r.seg.at("kitap"), (Pieces{"kit", "ab"}));
  ASSERT_TRUE(write_file_atomic(spec.segmentations, "evler\tev ler\nkitap\n").ok());
  const SystemResult bad = run(spec, {"evler", "kitap"});
  EXPECT_FALSE(bad.has_seg);
  EXPECT_NE(bad.seg_note.find("line 2"), std::string::npos);
}

TEST(SystemRunsTest, CatCodecRoundTripsWordsAndTimedSentences) {
  SystemSpec spec;
  spec.name = "cat";
  spec.encode = "cat {input} > {output}";
  spec.decode = "cat {input}";
  GoldSets g;
  g.roundtrip_words = {"Evlerde", "kitaplar"};
  g.sentences = {"Evlerde kitaplar var.", "Geldiler!"};
  EvalConfig c;
  c.speed.warm_runs = 2;
  const SystemResult r = run(spec, {}, g, c);
  EXPECT_EQ(r.codec_note, "");
  EXPECT_EQ(r.rt_words, 1.0);
  EXPECT_EQ(r.rt_sentences, 1.0);
  EXPECT_EQ(r.rt_word_n, 2u);
  EXPECT_EQ(r.rt_sentence_n, 2u);
  EXPECT_TRUE(r.enc_cold && r.enc_warm && r.dec_cold && r.dec_warm);
  // A decoder that loses a line: half the sentences come back.
  spec.decode = "head -n 1 {input}";
  const SystemResult lossy = run(spec, {}, g, c);
  EXPECT_EQ(lossy.rt_sentences, 0.5);
}

}  // namespace
}  // namespace morpheus::eval
