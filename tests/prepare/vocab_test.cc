// SPDX-License-Identifier: MIT
// Word/root vocabularies of `morpheus prepare`: by count after <unk>; the file format (written
// and read back) and malformed files.
#include "prepare/vocab.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::train {
namespace {

// ev:5 kitap:9 yol:5 göz:1 el:5.
std::unordered_map<std::u32string, uint64_t> word_counts() {
  return {{U"ev", 5}, {U"kitap", 9}, {U"yol", 5}, {U"göz", 1}, {U"el", 5}};
}

TEST(CountVocabTest, KeepsTheMostFrequentAfterUnkWithTiesByString) {
  const CountVocab v = CountVocab::build(word_counts(), 4, 1);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v.string_of(0), U"<unk>");
  EXPECT_EQ(v.count_of(0), 0u);
  EXPECT_EQ(v.string_of(1), U"kitap");
  EXPECT_EQ(v.string_of(2), U"el");
  EXPECT_EQ(v.string_of(3), U"ev");
  EXPECT_EQ(v.count_of(1), 9u);
  EXPECT_EQ(v.id(U"ev"), 3u);
  EXPECT_EQ(v.id(U"yol"), 0u);  // cut by size
  EXPECT_EQ(v.id(U"masa"), 0u);
}

TEST(CountVocabTest, MinCountFiltersBeforeTheSizeLimit) {
  const CountVocab v = CountVocab::build(word_counts(), 100, 5);
  EXPECT_EQ(v.size(), 5u);
  EXPECT_EQ(v.id(U"yol"), 4u);
  EXPECT_EQ(v.id(U"göz"), 0u);
  EXPECT_EQ(CountVocab::build(word_counts(), 1, 1).size(), 1u);  // <unk> only
}

TEST(CountVocabTest, SavedFileIsOneStringTabCountLinePerIdAndLoadsBack) {
  const CountVocab v = CountVocab::build(word_counts(), 5, 1);
  const std::string path = path_join(testing::make_temp_dir("count_vocab"), "words.tsv");
  ASSERT_TRUE(v.save(path).ok());
  EXPECT_EQ(*read_file(path), "<unk>\t0\nkitap\t9\nel\t5\nev\t5\nyol\t5\n");
  StatusOr<CountVocab> loaded = CountVocab::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  ASSERT_EQ(loaded->size(), 5u);
  for (uint32_t i = 1; i < 5; ++i) {
    EXPECT_EQ(loaded->id(v.string_of(i)), i);
    EXPECT_EQ(loaded->count_of(i), v.count_of(i));
  }
  EXPECT_EQ(loaded->id(U"göz"), 0u);
}

TEST(CountVocabTest, NonAsciiStringsRoundTrip) {
  const CountVocab v = CountVocab::build({{U"göz", 3}, {U"ışık", 2}, {U"çiçek", 1}}, 10, 1);
  const std::string path = path_join(testing::make_temp_dir("count_vocab_tr"), "roots.tsv");
  ASSERT_TRUE(v.save(path).ok());
  StatusOr<CountVocab> loaded = CountVocab::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->id(U"göz"), 1u);
  EXPECT_EQ(loaded->id(U"ışık"), 2u);
  EXPECT_EQ(loaded->string_of(3), U"çiçek");
}

TEST(CountVocabTest, MalformedFilesNameTheLine) {
  const std::string dir = testing::make_temp_dir("bad_count_vocab");
  auto load = [&](const std::string& name, const std::string& text) {
    const std::string path = path_join(dir, name);
    EXPECT_TRUE(write_file_atomic(path, text).ok());
    return CountVocab::load(path).status();
  };
  const Status no_tab = load("no_tab.tsv", "<unk>\t0\nkitap 9\n");
  EXPECT_EQ(no_tab.code(), StatusCode::kDataLoss);
  EXPECT_NE(no_tab.message().find("line 2"), std::string::npos) << no_tab.to_string();
  const Status bad_count = load("bad_count.tsv", "<unk>\tzero\n");
  EXPECT_EQ(bad_count.code(), StatusCode::kDataLoss);
  EXPECT_NE(bad_count.message().find("line 1"), std::string::npos) << bad_count.to_string();
  EXPECT_EQ(load("empty.tsv", "").code(), StatusCode::kDataLoss);
  EXPECT_FALSE(load("utf8.tsv", "<unk>\t0\n\xff\xfe\t3\n").ok());
  EXPECT_EQ(CountVocab::load(path_join(dir, "missing.tsv")).status().code(), StatusCode::kNotFound);
}

TEST(CountVocabTest, CountsThatAreNotWholeNonNegativeNumbersAreDataLoss) {
  const std::string dir = testing::make_temp_dir("bad_count_number");
  auto load = [&](const std::string& name, const std::string& text) {
    const std::string path = path_join(dir, name);
    EXPECT_TRUE(write_file_atomic(path, text).ok());
    return CountVocab::load(path).status();
  };
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"negative.tsv", "-5"},  {"garbage.tsv", "12abc"}, {"space.tsv", "12 3"},
      {"plus.tsv", "+12"},     {"lead.tsv", " 12"},      {"fraction.tsv", "1.5"},
      {"empty_count.tsv", ""}, {"hex.tsv", "0x1f"},      {"overflow.tsv", "18446744073709551616"}};
  for (const auto& [name, count] : bad) {
    const Status s = load(name, "<unk>\t0\nkitap\t9\nev\t" + count + "\nel\t1\n");
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << name << ": " << s.to_string();
    if (s.ok()) continue;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.to_string();
    EXPECT_NE(s.message().find("line 3"), std::string::npos) << s.to_string();
    EXPECT_NE(s.message().find('"' + count + '"'), std::string::npos) << s.to_string();
  }
  // The whole uint64 range still loads, from CRLF files too.
  const std::string path = path_join(dir, "max.tsv");
  ASSERT_TRUE(write_file_atomic(path, "<unk>\t0\r\nkitap\t18446744073709551615\r\n").ok());
  StatusOr<CountVocab> loaded = CountVocab::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->count_of(1), UINT64_MAX);
}

}  // namespace
}  // namespace morpheus::train
