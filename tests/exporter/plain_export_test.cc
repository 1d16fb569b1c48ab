// SPDX-License-Identifier: MIT
// The plain tokenizer directories (exporter/plain_export.h) on the word types of real text: the
// vocabulary size asked for, the same case ids and pre-tokenizer as a Morpheus directory, exact
// round trips with new words cut by the directory's own segmenter at encode time (runtime:
// tokenizer/cbpe/plain_segmenters.h), and the writer's refusals.
#include "exporter/plain_export.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "core/utf8.h"
#include "exporter/tokenizer_writer.h"
#include "tests/support/test_support.h"
#include "tokenizer/cbpe/plain_segmenters.h"
#include "tokenizer/piece_codec.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::exporter {
namespace {

using nlohmann::json;

// Word types (word<TAB>count) of the first `lines` lines of `text`, split at spaces.
std::string write_types(const std::string& text, size_t lines, const std::string& dir) {
  LineReader reader;
  EXPECT_TRUE(reader.open(text).ok());
  std::map<std::string, uint64_t> counts;
  std::string line;
  for (size_t n = 0; n < lines && reader.next(&line); ++n) {
    size_t start = 0;
    while (start < line.size()) {
      size_t end = line.find(' ', start);
      if (end == std::string::npos) end = line.size();
      if (end > start) ++counts[line.substr(start, end - start)];
      start = end + 1;
    }
  }
  std::string out;
  for (const auto& [w, c] : counts) out += w + "\t" + std::to_string(c) + "\n";
  const std::string path = path_join(dir, "types.tsv");
  EXPECT_TRUE(write_file_atomic(path, out).ok());
  return path;
}

class PlainExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    corpus_ = testing::npm_file("nlptoolkit-corpus/corpus.txt");
    MORPHEUS_REQUIRE_DATA(corpus_, "node_modules/nlptoolkit-corpus (scripts/setup.sh)");
    dir_ = testing::make_temp_dir("plain_export");
    types_ = write_types(corpus_, 2000, dir_);
    tokenizer::cbpe::register_plain_segmenters();
  }

  // A plain directory of `segmenter` at `vocab_size` ids.
  std::string export_plain(const std::string& segmenter, size_t vocab_size,
                           const std::string& pieces = "") {
    WriterOptions writer;
    writer.words = types_;
    writer.vocab_size = vocab_size;
    writer.out = path_join(dir_, segmenter);
    PlainOptions plain;
    plain.segmenter = segmenter;
    plain.pieces = pieces;
    StatusOr<std::unique_ptr<RunSegmenter>> seg = make_plain_segmenter(writer, plain);
    EXPECT_TRUE(seg.ok()) << seg.status().to_string();
    if (!seg.ok()) return "";
    const Status s = write_tokenizer_dir(writer, **seg);
    EXPECT_TRUE(s.ok()) << s.to_string();
    return writer.out;
  }

  // Unigram pieces: every letter of the runs and the 400 most frequent runs, scored by count.
  std::string unigram_pieces() {
    StatusOr<std::vector<std::pair<std::string, uint64_t>>> runs = plain_runs(types_);
    EXPECT_TRUE(runs.ok());
    std::map<std::string, double> counts;
    for (size_t i = 0; i < runs->size(); ++i) {
      const auto& [run, count] = (*runs)[i];
      if (i < 400) counts[run] += static_cast<double>(count);
      for (size_t pos = 0; pos < run.size();) {
        const size_t n = utf8::decode_one(run, pos).length;
        counts[run.substr(pos, n)] += static_cast<double>(count);
        pos += n;
      }
    }
    json j = {{"format_version", 1}, {"kind", "unigram-pieces"}, {"vocab_size", counts.size()}};
    for (const auto& [p, c] : counts) {
      j["pieces"].push_back(p);
      j["log_probs"].push_back(std::log(c / 1e6));
    }
    const std::string path = path_join(dir_, "pieces.json");
    EXPECT_TRUE(write_file_atomic(path, j.dump()).ok());
    return path;
  }

  std::string corpus_, dir_, types_;
};

// Lines of the corpus past the ones the types came from: many of their words are new.
std::vector<std::string> later_lines(const std::string& corpus) {
  LineReader reader;
  EXPECT_TRUE(reader.open(corpus).ok());
  std::vector<std::string> lines;
  std::string line;
  for (size_t n = 0; n < 2400 && reader.next(&line); ++n) {
    if (n >= 2000) lines.push_back(line);
  }
  return lines;
}

void expect_round_trips(const std::string& dir, const std::vector<std::string>& texts) {
  StatusOr<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::load(dir, true, {});
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  for (const std::string& text : texts) {
    std::vector<int32_t> ids;
    ASSERT_TRUE((*tok)->encode(text, &ids, false).ok()) << text;
    std::string back;
    ASSERT_TRUE((*tok)->decode(ids, &back).ok());
    EXPECT_EQ(back, text);
  }
  EXPECT_GT((*tok)->model_runs(), 100u);  // new words went to the directory's own segmenter
}

TEST_F(PlainExportTest, BpeDirectoryHasTheAskedVocabularyAndRoundTripsNewWords) {
  const std::string dir = export_plain("bpe", 2000);
  const json config = json::parse(read_file(path_join(dir, "morpheus.json")).value());
  EXPECT_EQ(config["vocab_size"], 2000);
  EXPECT_EQ(config["segmenter"]["name"], "bpe");
  std::vector<std::string> texts = later_lines(corpus_);
  texts.push_back("KİTAPLARIMIZDAN Birini İstanbul'da OKUDUM 😀 3,5");
  expect_round_trips(dir, texts);
}

TEST_F(PlainExportTest, UnigramDirectoryRoundTripsNewWords) {
  // Fewer pieces come out of the types than the budget holds: the model's other pieces fill it.
  const std::string dir = export_plain("unigram", 600, unigram_pieces());
  const json config = json::parse(read_file(path_join(dir, "morpheus.json")).value());
  EXPECT_EQ(config["vocab_size"], 600);
  EXPECT_EQ(config["segmenter"]["name"], "unigram");
  expect_round_trips(dir, later_lines(corpus_));
}

TEST_F(PlainExportTest, CaseComesBackThroughTheMorpheusCaseIds) {
  const std::string dir = export_plain("bpe", 2000);
  const auto tok = tokenizer::Tokenizer::load(dir, true, {});
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  std::vector<int32_t> lower, cap, upper;
  ASSERT_TRUE((*tok)->encode("ve", &lower, false).ok());
  ASSERT_TRUE((*tok)->encode("Ve", &cap, false).ok());
  ASSERT_TRUE((*tok)->encode("VE BU", &upper, false).ok());
  ASSERT_EQ(lower.size(), 1u);
  EXPECT_EQ(cap, (std::vector<int32_t>{tokenizer::PieceCodec::kCapId, lower[0]}));
  EXPECT_EQ(upper.front(), tokenizer::PieceCodec::kUpperId);
  EXPECT_EQ((*tok)->id_to_piece(tokenizer::PieceCodec::kUpperWordId), "<upper_word>");
}

TEST_F(PlainExportTest, UnigramWithoutPiecesAndUnknownSegmenterAreRefused) {
  WriterOptions writer;
  writer.words = types_;
  PlainOptions plain;
  plain.segmenter = "unigram";
  EXPECT_EQ(make_plain_segmenter(writer, plain).status().code(), StatusCode::kInvalidArgument);
  plain.segmenter = "wordpiece";
  const Status s = make_plain_segmenter(writer, plain).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.hint().find("bpe or unigram"), std::string::npos);
}

TEST_F(PlainExportTest, PlainRunsAreTheFoldedLetterRunsWithSummedCounts) {
  const std::string words = path_join(dir_, "few.tsv");
  ASSERT_TRUE(write_file_atomic(words, "Evde\t2\nevde\t3\nİstanbul'da\t1\n42\t9\n").ok());
  const auto runs = plain_runs(words);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(*runs, (std::vector<std::pair<std::string, uint64_t>>{
                       {"evde", 5}, {"da", 1}, {"istanbul", 1}}));
}

}  // namespace
}  // namespace morpheus::exporter
