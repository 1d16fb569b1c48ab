// SPDX-License-Identifier: MIT
// The model's character vocabulary (tokenizer/char_vocab.h): ids by count with coverage, minimum
// count and forced characters; char_vocab.json written and read back; malformed files.
#include "tokenizer/char_vocab.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer {
namespace {

// a:5 b:3 c:3 d:1 (12 occurrences).
std::unordered_map<char32_t, uint64_t> abcd_counts() {
  return {{U'a', 5}, {U'b', 3}, {U'c', 3}, {U'd', 1}};
}

TEST(CharVocabTest, IdsFollowDescendingCountWithTiesByCodePoint) {
  const CharVocab v = CharVocab::build({{U'c', 3}, {U'd', 1}, {U'b', 3}, {U'a', 5}}, 1.0, 1, U"");
  EXPECT_EQ(v.size(), 8u);
  EXPECT_EQ(v.id(U'a'), 4u);
  EXPECT_EQ(v.id(U'b'), 5u);
  EXPECT_EQ(v.id(U'c'), 6u);
  EXPECT_EQ(v.id(U'd'), 7u);
  for (char32_t ch : std::u32string(U"abcd")) EXPECT_EQ(v.char_of(v.id(ch)), ch);
  EXPECT_DOUBLE_EQ(v.coverage(), 1.0);
}

TEST(CharVocabTest, SpecialsComeFirstAndAbsentCharactersAreUnk) {
  EXPECT_EQ(CharVocab::kPad, 0u);
  EXPECT_EQ(CharVocab::kUnk, 1u);
  EXPECT_EQ(CharVocab::kBos, 2u);
  EXPECT_EQ(CharVocab::kEos, 3u);
  const CharVocab v = CharVocab::build(abcd_counts(), 1.0, 1, U"");
  EXPECT_EQ(v.id(U'z'), CharVocab::kUnk);
  EXPECT_EQ(v.id(U'A'), CharVocab::kUnk);  // ids are for lower-case characters
  const CharVocab empty = CharVocab::build({}, 1.0, 1, U"");
  EXPECT_EQ(empty.size(), CharVocab::kNumSpecials);
  EXPECT_EQ(empty.id(U'a'), CharVocab::kUnk);
  EXPECT_DOUBLE_EQ(empty.coverage(), 1.0);
}

TEST(CharVocabTest, StopsOnceTheCoverageIsReached) {
  // 70% of 12 = 8.4: a (5) and b (8) are below, c brings 11 >= 8.4, d is left out.
  const CharVocab v = CharVocab::build(abcd_counts(), 0.7, 1, U"");
  EXPECT_EQ(v.size(), 7u);
  EXPECT_EQ(v.id(U'c'), 6u);
  EXPECT_EQ(v.id(U'd'), CharVocab::kUnk);
  EXPECT_DOUBLE_EQ(v.coverage(), 11.0 / 12.0);
  // "At least": with a:4 b:2 c:1 d:1 and 75%, a and b cover exactly 6 of 8 and c is not needed.
  const CharVocab exact =
      CharVocab::build({{U'a', 4}, {U'b', 2}, {U'c', 1}, {U'd', 1}}, 0.75, 1, U"");
  EXPECT_EQ(exact.size(), 6u);
  EXPECT_EQ(exact.id(U'c'), CharVocab::kUnk);
  EXPECT_DOUBLE_EQ(exact.coverage(), 0.75);
}

TEST(CharVocabTest, MinCountDropsRareCharacters) {
  const CharVocab v = CharVocab::build(abcd_counts(), 1.0, 3, U"");
  EXPECT_EQ(v.size(), 7u);
  EXPECT_EQ(v.id(U'd'), CharVocab::kUnk);
  EXPECT_DOUBLE_EQ(v.coverage(), 11.0 / 12.0);
}

TEST(CharVocabTest, AlwaysCharactersAreKeptWhetherSeenOrNot) {
  // Coverage and min_count alone would keep only 'a'; 'd' (rare) and 'q', 'â' (unseen) are
  // forced. Unseen ones count 0 and come last; coverage counts the kept occurrences only.
  const CharVocab v = CharVocab::build(abcd_counts(), 0.4, 4, U"dqâ");
  EXPECT_EQ(v.id(U'a'), 4u);
  EXPECT_EQ(v.id(U'd'), 5u);
  EXPECT_EQ(v.id(U'q'), 6u);
  EXPECT_EQ(v.id(U'â'), 7u);
  EXPECT_EQ(v.id(U'b'), CharVocab::kUnk);
  EXPECT_EQ(v.size(), 8u);
  EXPECT_DOUBLE_EQ(v.coverage(), 6.0 / 12.0);
}

TEST(CharVocabTest, SavedFileListsCharactersInIdOrderAndLoadsBack) {
  const std::unordered_map<char32_t, uint64_t> counts{
      {U'e', 9}, {U'ğ', 4}, {U'ı', 6}, {U'ş', 2}, {U'a', 7}};
  const CharVocab v = CharVocab::build(counts, 1.0, 1, U"");
  const std::string path = path_join(testing::make_temp_dir("char_vocab"), "char_vocab.json");
  ASSERT_TRUE(v.save(path).ok());
  const nlohmann::json j = nlohmann::json::parse(*read_file(path));
  EXPECT_EQ(j["specials"], nlohmann::json({"<pad>", "<unk>", "<bos>", "<eos>"}));
  EXPECT_EQ(j["chars"], nlohmann::json({"e", "a", "ı", "ğ", "ş"}));
  EXPECT_EQ(j["counts"], nlohmann::json({9, 7, 6, 4, 2}));
  StatusOr<CharVocab> loaded = CharVocab::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->size(), v.size());
  for (const auto& [ch, n] : counts) EXPECT_EQ(loaded->id(ch), v.id(ch));
  EXPECT_EQ(loaded->char_of(6), U'ı');
  EXPECT_DOUBLE_EQ(loaded->coverage(), v.coverage());
}

TEST(CharVocabTest, MalformedFilesAreDataLoss) {
  const std::string dir = testing::make_temp_dir("bad_char_vocab");
  auto load = [&](const std::string& name, const std::string& text) {
    const std::string path = path_join(dir, name);
    EXPECT_TRUE(write_file_atomic(path, text).ok());
    return CharVocab::load(path).status();
  };
  EXPECT_EQ(load("lengths.json", R"({"chars":["a","b"],"counts":[3]})").code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(load("two.json", R"({"chars":["ab"],"counts":[3]})").code(), StatusCode::kDataLoss);
  EXPECT_EQ(load("nochars.json", R"({"counts":[3]})").code(), StatusCode::kDataLoss);
  EXPECT_EQ(load("type.json", R"({"chars":[1],"counts":[3]})").code(), StatusCode::kDataLoss);
  EXPECT_EQ(CharVocab::load(path_join(dir, "missing.json")).status().code(), StatusCode::kNotFound);
  const Status named = load("named.json", R"({"chars":["a","bc"],"counts":[1,2]})");
  EXPECT_NE(named.message().find("chars[1]"), std::string::npos) << named.to_string();
}

}  // namespace
}  // namespace morpheus::tokenizer
