// SPDX-License-Identifier: MIT
// The plain tokenizer directories (baselines/plain/plain_export.h) on the word types of real text:
// the vocabulary size asked for, the same case ids and pre-tokenizer as a Morpheus directory, exact
// round trips with new words cut by the directory's own segmenter at encode time (runtime:
// baselines/plain/plain_segmenters.h), and the writer's refusals.
#include "baselines/plain/plain_export.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "baselines/plain/plain_segmenters.h"
#include "core/file_util.h"
#include "core/utf8.h"
#include "exporter/tokenizer_writer.h"
#include "tests/support/test_support.h"
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
                           const std::string& pieces = "", StreamOptions stream = {},
                           const std::string& tag = "") {
    WriterOptions writer;
    writer.words = types_;
    writer.vocab_size = vocab_size;
    writer.stream = stream;
    writer.out = path_join(dir_, segmenter + tag);
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

// Ids of `texts` (all of them) through the directory `dir`, and its pieces.
struct Encoded {
  size_t ids = 0;
  size_t chars = 0;
  std::vector<std::string> pieces;
};
Encoded encode_all(const std::string& dir, const std::vector<std::string>& texts) {
  Encoded out;
  const auto tok = tokenizer::Tokenizer::load(dir, true, {});
  EXPECT_TRUE(tok.ok()) << tok.status().to_string();
  if (!tok.ok()) return out;
  for (const std::string& text : texts) {
    std::vector<int32_t> ids;
    EXPECT_TRUE((*tok)->encode(text, &ids, false).ok());
    out.ids += ids.size();
    out.chars += utf8::length(text);
  }
  const json pieces = json::parse(read_file(path_join(dir, "pieces.json")).value());
  out.pieces = pieces["pieces"].get<std::vector<std::string>>();
  return out;
}

size_t count_spaced(const std::vector<std::string>& pieces) {
  size_t n = 0;
  for (const std::string& p : pieces) n += p.size() > 1 && p[0] == ' ' ? 1 : 0;
  return n;
}

TEST_F(PlainExportTest, WordInitialPiecesTakeTheirShareAndCutTheTokensPerCharacter) {
  StreamOptions spaces;  // the layout of format 3: every space an id of its own
  spaces.word_initial = false;
  const std::string old_layout = export_plain("bpe", 2000, "", spaces, "-spaces");
  const std::string dir = export_plain("bpe", 2000);
  const json config = json::parse(read_file(path_join(dir, "morpheus.json")).value());
  EXPECT_EQ(config["format_version"], 4);
  EXPECT_EQ(config["stream"]["word_initial"], true);
  EXPECT_EQ(config["stream"]["line_start_prefix"], true);
  EXPECT_EQ(config["vocab_size"], 2000);
  const std::vector<std::string> texts = later_lines(corpus_);
  const Encoded initial = encode_all(dir, texts);
  const Encoded plain = encode_all(old_layout, texts);
  const size_t budget = 2000 - tokenizer::PieceCodec::kFirstPieceId - 4;
  EXPECT_GT(count_spaced(initial.pieces), budget / 5);
  EXPECT_LE(count_spaced(initial.pieces), budget / 4);
  EXPECT_EQ(config["stream"]["word_initial_pieces"], count_spaced(initial.pieces));
  EXPECT_EQ(count_spaced(plain.pieces), 0u);
  // Most words follow a single space: the word-initial stream needs far fewer ids.
  EXPECT_LT(static_cast<double>(initial.ids), 0.85 * static_cast<double>(plain.ids));
  expect_round_trips(dir, texts);
}

TEST_F(PlainExportTest, MergesTakeAtMostTheirShareAndCutTheIds) {
  // Unigram cuts a run it lacks into letters: joins of its pieces are what merges can take.
  const std::string pieces = unigram_pieces();
  StreamOptions merges;
  merges.merge_share = 0.2;
  const std::string merged = export_plain("unigram", 600, pieces, merges, "-merged");
  StreamOptions no_merges;
  no_merges.merge_share = 0;
  const std::string dir = export_plain("unigram", 600, pieces, no_merges);
  const json config = json::parse(read_file(path_join(merged, "morpheus.json")).value());
  EXPECT_EQ(config["stream"]["merge_pieces"], true);
  const size_t budget = 600 - tokenizer::PieceCodec::kFirstPieceId - 4;
  EXPECT_GT(config["stream"]["merged_pieces"].get<size_t>(), 0u);
  EXPECT_LE(config["stream"]["merged_pieces"].get<size_t>(), budget / 5);
  const json plain = json::parse(read_file(path_join(dir, "morpheus.json")).value());
  EXPECT_EQ(plain["stream"]["merged_pieces"], 0);
  const std::vector<std::string> texts = later_lines(corpus_);
  EXPECT_LT(encode_all(merged, texts).ids, encode_all(dir, texts).ids);
  expect_round_trips(merged, texts);
}

TEST_F(PlainExportTest, SharesThatLeaveNoRoomForPiecesAreRefused) {
  WriterOptions writer;
  writer.words = types_;
  writer.stream.word_initial_share = 0.6;
  writer.stream.merge_share = 0.5;
  EXPECT_EQ(check_writer_options(writer).code(), StatusCode::kInvalidArgument);
  writer.stream.word_initial = false;  // the word-initial share is not taken then
  EXPECT_TRUE(check_writer_options(writer).ok());
}

// A directory exported before the stream layout (format 3, every space an id): it loads and
// encodes to the ids it gave then (tests/data/format3_bpe, made by export-plain at format 3).
TEST(Format3DirectoryTest, EncodesAsItDidWhenItWasExported) {
  tokenizer::cbpe::register_plain_segmenters();
  const std::string data = path_join(testing::source_dir(), "tests/data");
  const auto tok = tokenizer::Tokenizer::load(path_join(data, "format3_bpe"), true, {});
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  EXPECT_EQ((*tok)->config()["format_version"], 3);
  LineReader texts;
  LineReader want;
  ASSERT_TRUE(texts.open(path_join(data, "format3_bpe_text.txt")).ok());
  ASSERT_TRUE(want.open(path_join(data, "format3_bpe_ids.txt")).ok());
  std::string text;
  std::string ids_line;
  size_t lines = 0;
  while (texts.next(&text)) {
    ASSERT_TRUE(want.next(&ids_line));
    std::vector<int32_t> ids;
    ASSERT_TRUE((*tok)->encode(text, &ids, false).ok());
    std::string shown;
    for (int32_t id : ids) shown += (shown.empty() ? "" : " ") + std::to_string(id);
    EXPECT_EQ(shown, ids_line) << text;
    std::string back;
    ASSERT_TRUE((*tok)->decode(ids, &back).ok());
    EXPECT_EQ(back, text);
    ++lines;
  }
  EXPECT_GE(lines, 20u);
  EXPECT_GT((*tok)->model_runs(), 0u);  // new words too, cut by the directory's BPE
}

}  // namespace
}  // namespace morpheus::exporter
