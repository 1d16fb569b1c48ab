// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "baselines/cbpe/bpe_trainer.h"
#include "core/file_util.h"
#include "core/utf8.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer::cbpe {
namespace {

std::vector<std::string> read_annotated_entries(const std::string& path) {
  StatusOr<std::string> text = read_file(path);
  EXPECT_TRUE(text.ok()) << text.status().to_string();
  return nlohmann::json::parse(*text).get<std::vector<std::string>>();
}

void expect_golden(size_t vocab_size, const std::string& dir) {
  const std::string entries = testing::shared_data_file("cbpe/golden/annotated_entries.json");
  MORPHEUS_REQUIRE_DATA(entries, "cbpe/golden/annotated_entries.json");
  const std::string golden_merges = testing::shared_data_file("cbpe/golden/" + dir + "/merges.txt");
  const std::string golden_vocab = testing::shared_data_file("cbpe/golden/" + dir + "/vocab.json");
  MORPHEUS_REQUIRE_DATA(golden_merges, "cbpe golden merges");
  TrainerOptions options;
  options.vocab_size = vocab_size;
  options.marker_symbol = true;
  StatusOr<BpeModel> model = train_bpe(count_pretokens(read_annotated_entries(entries)), options);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_EQ(model->merges_text(), read_file(golden_merges).value());
  // vocab.json equal up to JSON whitespace.
  EXPECT_EQ(nlohmann::json::parse(model->vocab_json()),
            nlohmann::json::parse(read_file(golden_vocab).value()));
}

TEST(CbpeTrainerTest, MatchesReferenceMergesAtV300) { expect_golden(300, "v300"); }

TEST(CbpeTrainerTest, MatchesReferenceMergesAtV500) { expect_golden(500, "v500"); }

TEST(CbpeTrainerTest, TiesBreakOnSmallestPair) {
  // From the reference: [ba, ab, cd, dc] merges in the order ab, ba, cd, dc.
  TrainerOptions options;
  options.printable_ascii = false;
  options.vocab_size = 4 + 4 + 4;
  StatusOr<BpeModel> model = train_bpe(count_pretokens({"ba", "ab", "cd", "dc"}), options);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->merges_text(), "a\tb\nb\ta\nc\td\nd\tc\n");
}

TEST(CbpeTrainerTest, OverlappingPairsMergeLeftToRight) {
  TrainerOptions options;
  options.printable_ascii = false;
  options.vocab_size = 4 + 1 + 2;
  StatusOr<BpeModel> model = train_bpe(count_pretokens({"eeee"}), options);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->merges_text(), "e\te\nee\tee\n");
}

TEST(CbpeTrainerTest, NoMergeSpansABoundary) {
  // Every word carries cuts; the learned tokens must each fit inside one segment of some word.
  std::vector<TrainingWord> words;
  auto add = [&words](const std::string& w, std::vector<uint32_t> cuts, uint64_t count) {
    words.push_back({utf8::decode(w).value(), std::move(cuts), count});
  };
  add("evlerde", {2, 5}, 50);
  add("evler", {2}, 40);
  add("kitaplar", {5}, 30);
  add("kitaplarda", {5, 8}, 20);
  add("ellerde", {2, 5}, 10);
  add("gözlükçüler", {3, 6, 8}, 5);
  TrainerOptions options;
  options.vocab_size = 400;
  TrainerStats stats;
  StatusOr<BpeModel> model = train_bpe(words, options, &stats);
  ASSERT_TRUE(model.ok());
  EXPECT_TRUE(stats.exhausted);  // the segments run out of pairs long before 400
  std::set<std::u32string> segments;
  for (const TrainingWord& w : words) {
    uint32_t start = 0;
    for (uint32_t c : w.cuts) {
      segments.insert(w.text.substr(start, c - start));
      start = c;
    }
    segments.insert(w.text.substr(start));
  }
  ASSERT_GT(model->merges().size(), 10u);
  for (const Merge& m : model->merges()) {
    const std::u32string merged = utf8::decode(m.first + m.second).value();
    bool inside = false;
    for (const std::u32string& s : segments) inside = inside || s.find(merged) != s.npos;
    EXPECT_TRUE(inside) << "merge spans a boundary: " << m.first << " + " << m.second;
  }
  // Without the cuts, plain BPE does learn cross-boundary tokens such as "evl".
  for (TrainingWord& w : words) w.cuts.clear();
  StatusOr<BpeModel> plain = train_bpe(words, options);
  ASSERT_TRUE(plain.ok());
  EXPECT_GE(plain->token_id("evler"), 0);
  EXPECT_LT(model->token_id("evler"), 0);
}

TEST(CbpeTrainerTest, VocabSmallerThanBaseIsAnError) {
  TrainerOptions options;
  options.vocab_size = 10;
  EXPECT_FALSE(train_bpe(count_pretokens({"abc"}), options).ok());
}

}  // namespace
}  // namespace morpheus::tokenizer::cbpe
