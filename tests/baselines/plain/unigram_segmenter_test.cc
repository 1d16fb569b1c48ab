// SPDX-License-Identifier: MIT
// The Unigram segmenter on hand-made models: the most likely cut, unknown code points, ties,
// pieces.json and its errors. Its parity with SentencePiece is in spm_unigram_test.cc.
#include "baselines/plain/unigram_segmenter.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <map>
#include <random>

#include "core/file_util.h"
#include "core/utf8.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer::unigram_segmenter_test {
namespace {

using Pieces = std::vector<std::string>;

std::shared_ptr<const UnigramSegmenter> make(const std::map<std::string, float>& scores) {
  UnigramPieces model;
  for (const auto& [piece, score] : scores) {
    model.pieces.push_back(piece);
    model.log_probs.push_back(score);
  }
  StatusOr<std::shared_ptr<const UnigramSegmenter>> made = UnigramSegmenter::create(model);
  EXPECT_TRUE(made.ok()) << made.status().to_string();
  return made.value();
}

// The score of a cut as the segmenter adds it: piece scores in float, left to right; a piece
// that is not in `scores` counts as unknown.
float score_of(const Pieces& cut, const std::map<std::string, float>& scores, float unknown) {
  float total = 0.0f;
  for (const std::string& p : cut) {
    const auto it = scores.find(p);
    total = (it == scores.end() ? unknown : it->second) + total;
  }
  return total;
}

// The best score over every cut of `word` into pieces of `scores` or single code points that no
// one-code-point piece covers (unknown), and the cuts that reach it.
float best_by_enumeration(const std::string& word, const std::map<std::string, float>& scores,
                          float unknown, std::vector<Pieces>* best_cuts) {
  const std::u32string cps = utf8::decode(word).value();
  float best = -1e30f;
  Pieces cut;
  std::function<void(size_t)> walk = [&](size_t pos) {
    if (pos == cps.size()) {
      const float s = score_of(cut, scores, unknown);
      if (s > best) best_cuts->clear();
      if (s >= best) {
        best_cuts->push_back(cut);
        best = s;
      }
      return;
    }
    for (size_t end = pos + 1; end <= cps.size(); ++end) {
      const std::string piece = utf8::encode(cps.substr(pos, end - pos));
      if (scores.count(piece) == 0 && end > pos + 1) continue;
      cut.push_back(piece);
      walk(end);
      cut.pop_back();
    }
  };
  walk(0);
  return best;
}

std::string write_temp(const std::string& name, const std::string& content) {
  const std::string path = testing::make_temp_dir("unigram") + "/" + name;
  EXPECT_TRUE(write_file_atomic(path, content).ok());
  return path;
}

const std::map<std::string, float> kTurkish = {
    {"k", -6.0f},    {"i", -5.0f},        {"t", -5.5f},     {"a", -4.5f},       {"p", -6.5f},
    {"l", -5.0f},    {"r", -5.0f},        {"ı", -5.0f},     {"m", -5.5f},       {"z", -6.0f},
    {"d", -5.5f},    {"n", -5.0f},        {"ki", -7.0f},    {"ta", -7.5f},      {"ap", -8.0f},
    {"kit", -8.5f},  {"kitap", -9.0f},    {"lar", -6.0f},   {"la", -6.5f},      {"ar", -7.0f},
    {"ımız", -7.5f}, {"ım", -6.5f},       {"ız", -6.75f},   {"dan", -6.25f},    {"da", -6.0f},
    {"an", -7.25f},  {"kitapla", -13.0f}, {"rımız", -9.5f}, {"larımız", -12.5f}};

TEST(UnigramSegmenterTest, PicksTheMostLikelyCut) {
  const auto seg = make(kTurkish);
  for (const std::string word : {"kitaplarımızdan", "kitap", "larımızda", "kitaplar", "dan",
                                 "ıkıtap", "daradan", "pakita"}) {
    std::vector<Pieces> best_cuts;
    const float best = best_by_enumeration(word, kTurkish, seg->unknown_log_prob(), &best_cuts);
    const Pieces got = seg->cut(word);
    EXPECT_EQ(score_of(got, kTurkish, seg->unknown_log_prob()), best) << word;
    if (best_cuts.size() == 1) {
      EXPECT_EQ(got, best_cuts[0]) << word;
    }
  }
  EXPECT_EQ(seg->cut("kitaplarımızdan"), (Pieces{"kitap", "larımız", "dan"}));
}

TEST(UnigramSegmenterTest, LongerPieceWinsOnlyWhenMoreLikely) {
  EXPECT_EQ(make({{"a", -1.0f}, {"b", -1.0f}, {"ab", -1.5f}})->cut("abab"), (Pieces{"ab", "ab"}));
  EXPECT_EQ(make({{"a", -1.0f}, {"b", -1.0f}, {"ab", -2.5f}})->cut("abab"),
            (Pieces{"a", "b", "a", "b"}));
}

TEST(UnigramSegmenterTest, UnknownCodePointsStandAloneWithPenalty) {
  const auto seg = make({{"ev", -1.0f}, {"e", -2.0f}, {"v", -2.5f}, {"ler", -1.5f}});
  EXPECT_FLOAT_EQ(seg->unknown_log_prob(), -12.5f);
  EXPECT_EQ(seg->cut("evxler"), (Pieces{"ev", "x", "ler"}));
  EXPECT_EQ(seg->cut("xyz"), (Pieces{"x", "y", "z"}));
  EXPECT_EQ(seg->cut("ev😀ş"), (Pieces{"ev", "😀", "ş"}));
}

TEST(UnigramSegmenterTest, CodePointOnlyInsideLongerPiecesIsUnknownAlone) {
  const auto seg = make({{"ab", -1.0f}, {"a", -1.0f}});
  EXPECT_EQ(seg->cut("ab"), (Pieces{"ab"}));
  EXPECT_EQ(seg->cut("b"), (Pieces{"b"}));
  EXPECT_EQ(seg->cut("abb"), (Pieces{"ab", "b"}));
}

TEST(UnigramSegmenterTest, TiesGoToTheLongestLastPiece) {
  EXPECT_EQ(make({{"a", -1.0f}, {"b", -1.0f}, {"ab", -2.0f}})->cut("ab"), (Pieces{"ab"}));
  // a b c, ab c and a bc all score -3: the last piece "bc" starts first.
  EXPECT_EQ(
      make({{"a", -1.0f}, {"b", -1.0f}, {"c", -1.0f}, {"ab", -2.0f}, {"bc", -2.0f}})->cut("abc"),
      (Pieces{"a", "bc"}));
  // x yw and x y(unknown) w both score -32: "yw" starts first.
  EXPECT_EQ(make({{"x", -1.0f}, {"w", -1.0f}, {"z", -20.0f}, {"yw", -31.0f}})->cut("xyw"),
            (Pieces{"x", "yw"}));
}

TEST(UnigramSegmenterTest, PiecesConcatenateToAnyInput) {
  const auto seg = make(kTurkish);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const std::string s = i % 2 ? testing::random_text(rng, 30) : testing::random_bytes(rng, 24);
    std::string joined;
    for (const std::string& p : seg->cut(s)) {
      EXPECT_FALSE(p.empty());
      joined += p;
    }
    ASSERT_EQ(joined, s) << "case " << i;
  }
  EXPECT_TRUE(seg->cut("").empty());
}

TEST(UnigramSegmenterTest, SegmentsABatchThroughTheSegmenterInterface) {
  const std::shared_ptr<const Segmenter> seg = make(kTurkish);
  StatusOr<Segmentation> out = seg->segment({"kitap", "dan"});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, (Segmentation{{"kitap"}, {"dan"}}));
  EXPECT_EQ(seg->name(), "unigram");
}

TEST(UnigramSegmenterTest, LoadsWhatItWritesExactly) {
  UnigramPieces model;
  model.pieces = {"ev", "ler", "e", "v", "l", "r"};
  model.log_probs = {-1.2345678f, -2.0000002f, -3.3f, -4.4f, -5.5f, -6.6f};
  model.trained_on_types = 12;
  model.trained_on_tokens = 345;
  model.vocab_size = 8;
  const std::string path = write_temp("pieces.json", unigram_pieces_json(model));
  StatusOr<std::shared_ptr<const UnigramSegmenter>> loaded = UnigramSegmenter::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ((*loaded)->pieces(), model.pieces);
  EXPECT_EQ((*loaded)->log_probs(), model.log_probs);  // bit for bit
  EXPECT_EQ((*loaded)->model().trained_on_types, 12u);
  EXPECT_EQ((*loaded)->model().trained_on_tokens, 345u);
  EXPECT_EQ((*loaded)->model().vocab_size, 8);
  EXPECT_EQ((*loaded)->cut("evler"), (Pieces{"ev", "ler"}));
}

TEST(UnigramSegmenterTest, MissingFileIsNotFoundNamingIt) {
  StatusOr<std::shared_ptr<const UnigramSegmenter>> loaded =
      UnigramSegmenter::load("/nonexistent/pieces.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_NE(loaded.status().message().find("/nonexistent/pieces.json"), std::string::npos);
}

// DATA_LOSS naming the file, with `what` in the message.
void expect_data_loss(const std::string& json, const std::string& what) {
  const std::string path = write_temp("bad.json", json);
  StatusOr<std::shared_ptr<const UnigramSegmenter>> loaded = UnigramSegmenter::load(path);
  ASSERT_FALSE(loaded.ok()) << json;
  EXPECT_EQ(loaded.status().code(), StatusCode::kDataLoss) << json;
  EXPECT_NE(loaded.status().message().find(path), std::string::npos);
  EXPECT_NE(loaded.status().message().find(what), std::string::npos) << loaded.status().message();
  EXPECT_FALSE(loaded.status().hint().empty());
}

std::string pieces_file(const std::string& pieces, const std::string& log_probs) {
  return R"({"format_version": 1, "kind": "unigram-pieces", "pieces": )" + pieces +
         R"(, "log_probs": )" + log_probs + "}";
}

TEST(UnigramSegmenterTest, BadJsonIsDataLoss) {
  expect_data_loss("{\"format_version\": 1, ", "not valid JSON");
  expect_data_loss("", "not valid JSON");
}

TEST(UnigramSegmenterTest, OtherFormatIsDataLoss) {
  expect_data_loss(R"({"format_version": 2, "kind": "unigram-pieces", "pieces": ["a"],
                      "log_probs": [-1]})",
                   "format_version 1");
  expect_data_loss(R"({"format_version": 1, "kind": "bpe", "pieces": ["a"], "log_probs": [-1]})",
                   "unigram-pieces");
  expect_data_loss("[1, 2]", "format_version 1");
  expect_data_loss(pieces_file(R"(["a", 3])", "[-1, -2]"), "pieces[1] is not a string");
  expect_data_loss(pieces_file(R"(["a", "b"])", R"([-1, "x"])"), "log_probs[1] is not a number");
  expect_data_loss(R"({"format_version": 1, "kind": "unigram-pieces", "log_probs": [-1]})",
                   "\"pieces\" is not an array");
}

TEST(UnigramSegmenterTest, DuplicateOrEmptyPiecesAreDataLoss) {
  expect_data_loss(pieces_file(R"(["a", "b", "a"])", "[-1, -2, -3]"),
                   "piece 2 \"a\" repeats piece 0");
  expect_data_loss(pieces_file(R"(["a", ""])", "[-1, -2]"), "piece 1 is empty");
  expect_data_loss(pieces_file("[]", "[]"), "no pieces");
}

TEST(UnigramSegmenterTest, LengthMismatchIsDataLoss) {
  expect_data_loss(pieces_file(R"(["a", "b"])", "[-1]"), "2 pieces but 1 log_probs");
}

TEST(UnigramSegmenterTest, CreateRejectsBadModelsAsInvalidArgument) {
  UnigramPieces model;
  model.pieces = {"a", "\xff"};
  model.log_probs = {-1.0f, -2.0f};
  EXPECT_EQ(UnigramSegmenter::create(model).status().code(), StatusCode::kInvalidArgument);
  model.pieces = {"a", "b"};
  model.log_probs = {-1.0f, std::numeric_limits<float>::infinity()};
  EXPECT_EQ(UnigramSegmenter::create(model).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace morpheus::tokenizer::unigram_segmenter_test
