// SPDX-License-Identifier: MIT
// Raw-text counts (the BPC denominator), the held-out split, the reversibility gate, the split
// by line hash and the all-upper slices.
#include "lm_data/text_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "lm_data/char_codec.h"
#include "tests/support/test_support.h"

namespace morpheus::lm {
namespace {

std::string write_in(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  EXPECT_TRUE(write_file_atomic(path, text).ok());
  return path;
}

TEST(TextDataTest, CountsEveryCodePointAndOnePerLine) {
  const std::string dir = testing::make_temp_dir("text");
  // 5 + 0 + 3 code points (ğ, ş, emoji are one each), 3 lines; \r is a character of its line.
  auto s = count_text(write_in(dir, "t.txt", "ağaç \n\nş😀\r\n"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->lines, 3);
  EXPECT_EQ(s->code_points, 8);
  EXPECT_EQ(s->characters(), 11);
}

TEST(TextDataTest, CountsTheWholeSharedDevFile) {
  const std::string path = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(path, "corpus/dev_ud_sentences.txt");
  auto s = count_text(path);
  ASSERT_TRUE(s.ok());
  auto text = read_file(path);
  ASSERT_TRUE(text.ok());
  // Every byte of the file is counted: all code points, the newlines being the line ends.
  EXPECT_EQ(s->characters(), static_cast<int64_t>(utf8::length(*text)));
  EXPECT_EQ(s->lines, 7106);
}

TEST(TextDataTest, InvalidUtf8AndEmptyFilesAreErrors) {
  const std::string dir = testing::make_temp_dir("text");
  auto bad = count_text(write_in(dir, "bad.txt", "ok\nb\xff\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);
  EXPECT_FALSE(count_text(write_in(dir, "empty.txt", "")).ok());
  EXPECT_EQ(count_text(dir + "/missing.txt").status().code(), StatusCode::kNotFound);
}

TEST(TextDataTest, HeldoutDropsDevLinesTheTrainingTextHasUpToCaseAndSpaces) {
  const std::string dir = testing::make_temp_dir("text");
  const std::string train = write_in(dir, "train.txt", "Ankara'da iki kişi\nEv\n");
  const std::string dev = write_in(dir, "dev.txt", "ANKARA'DA  İKİ KİŞİ\nyeni satır\nev\n");
  auto split = heldout_lines(train, dev);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->dev_lines, 3);
  EXPECT_EQ(split->removed, 2);
  EXPECT_EQ(split->kept, (std::vector<std::string>{"yeni satır"}));
  EXPECT_EQ(overlap_key("Iğdır  İli\t"), "ığdırili");
}

// Writes text, ids and decoded files of `lines` under a codec whose decode applies `damage`.
struct GateFiles {
  std::string text, ids, decoded;
};
GateFiles encode_with(const std::string& dir, const CharCodec& codec,
                      const std::vector<std::string>& lines, bool lossy) {
  std::string text, ids, decoded;
  for (const auto& line : lines) {
    std::vector<int32_t> v;
    EXPECT_TRUE(codec.encode(line, &v).ok());
    for (size_t i = 0; i < v.size(); ++i) ids += (i ? " " : "") + std::to_string(v[i]);
    std::string back;
    EXPECT_TRUE(codec.decode(v, &back).ok());
    text += line + "\n";
    ids += "\n";
    decoded += (lossy ? unicode::to_lower(back) : back) + "\n";
  }
  return {write_in(dir, "text.txt", text), write_in(dir, "ids.txt", ids),
          write_in(dir, "decoded.txt", decoded)};
}

TEST(TextDataTest, GateAcceptsALosslessTokenizer) {
  const std::string dir = testing::make_temp_dir("gate");
  std::mt19937_64 rng(3);
  std::vector<std::string> lines;
  for (int i = 0; i < 200; ++i) {
    std::string line = testing::random_text(rng);
    for (char& c : line)
      if (c == '\n') c = ' ';  // one text line each
    lines.push_back(line);
  }
  const CharCodec codec = CharCodec::from_code_points({U'a', U'ş'});
  const GateFiles f = encode_with(dir, codec, lines, false);
  auto r = check_round_trip(f.text, f.ids, f.decoded, codec.vocab_size());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->reversible());
  EXPECT_EQ(r->lines, 200);
}

TEST(TextDataTest, GateRejectsALossyTokenizerCountingItsLines) {
  const std::string dir = testing::make_temp_dir("gate");
  const CharCodec codec = CharCodec::from_code_points({U'a', U'A'});
  const GateFiles f = encode_with(dir, codec, {"abc", "Abc", "xyz", "İki ABC"}, true);
  auto r = check_round_trip(f.text, f.ids, f.decoded, codec.vocab_size());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->reversible());
  EXPECT_EQ(r->failed_lines, 2);
  EXPECT_EQ(r->first_failed_line, 2);
  EXPECT_EQ(r->first_failure, "decoded text differs");
}

TEST(TextDataTest, GateRejectsIdsOutsideTheVocabularyAndMissingLines) {
  const std::string dir = testing::make_temp_dir("gate");
  const std::string text = write_in(dir, "t.txt", "a\nb\nc\n");
  const std::string ids = write_in(dir, "i.txt", "97\n98 300\n");
  const std::string decoded = write_in(dir, "d.txt", "a\nb\nc\n");
  auto r = check_round_trip(text, ids, decoded, 257);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed_lines, 2);  // line 2: id 300; line 3: no ids
  EXPECT_EQ(r->bad_id_lines, 2);
  EXPECT_EQ(r->mismatched_lines, 0);
  EXPECT_NE(r->first_failure.find("id 300"), std::string::npos);
}

// The lines of a file (each without its \n).
std::vector<std::string> lines_of(const std::string& path) {
  auto text = read_file(path);
  EXPECT_TRUE(text.ok()) << path;
  std::vector<std::string> lines;
  std::istringstream in(text.ok() ? *text : "");
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// 400 random one-line texts (some repeated) in a file.
std::string random_lines_file(const std::string& dir) {
  std::mt19937_64 rng(11);
  std::string text;
  std::vector<std::string> seen;
  for (int i = 0; i < 400; ++i) {
    std::string line = i % 7 == 6 ? seen[rng() % seen.size()] : testing::random_text(rng);
    std::replace(line.begin(), line.end(), '\n', ' ');
    seen.push_back(line);
    text += line + "\n";
  }
  return write_in(dir, "text.txt", text);
}

LineSplitOptions split_options(const std::string& text, const std::string& out_dir) {
  LineSplitOptions o;
  o.text = text;
  o.train_out = out_dir + "/train.txt";
  o.valid_out = out_dir + "/valid.txt";
  o.share = 0.3;
  o.min_chars = 0;
  return o;
}

TEST(TextDataTest, SplitByLineHashIsDeterministic) {
  const std::string dir = testing::make_temp_dir("split");
  const std::string text = random_lines_file(dir);
  ASSERT_TRUE(make_dirs(dir + "/a").ok() && make_dirs(dir + "/b").ok());
  auto a = split_by_line_hash(split_options(text, dir + "/a"));
  auto b = split_by_line_hash(split_options(text, dir + "/b"));
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  for (const char* part : {"/train.txt", "/valid.txt"}) {
    EXPECT_EQ(read_file(dir + "/a" + part).value(), read_file(dir + "/b" + part).value()) << part;
  }
  EXPECT_EQ(line_split_json(*a, split_options(text, dir + "/a")),
            line_split_json(*b, split_options(text, dir + "/b")));
}

TEST(TextDataTest, SplitPutsEveryLineInExactlyOnePart) {
  const std::string dir = testing::make_temp_dir("split");
  const std::string text = random_lines_file(dir);
  auto split = split_by_line_hash(split_options(text, dir));
  ASSERT_TRUE(split.ok()) << split.status().message();
  std::vector<std::string> input = lines_of(text), train = lines_of(dir + "/train.txt"),
                           valid = lines_of(dir + "/valid.txt");
  EXPECT_FALSE(train.empty());
  EXPECT_FALSE(valid.empty());
  for (const auto& line : valid) EXPECT_EQ(std::count(train.begin(), train.end(), line), 0);
  std::vector<std::string> both = train;
  both.insert(both.end(), valid.begin(), valid.end());
  std::sort(both.begin(), both.end());
  std::sort(input.begin(), input.end());
  EXPECT_EQ(both, input);  // multiset equality
}

TEST(TextDataTest, SplitKeepsTheInputOrderWithinEachPart) {
  const std::string dir = testing::make_temp_dir("split");
  const std::string text = random_lines_file(dir);
  auto split = split_by_line_hash(split_options(text, dir));
  ASSERT_TRUE(split.ok());
  std::vector<std::string> train, valid;
  for (const auto& line : lines_of(text)) {
    (is_validation_line(line, split->threshold) ? valid : train).push_back(line);
  }
  EXPECT_EQ(lines_of(dir + "/train.txt"), train);
  EXPECT_EQ(lines_of(dir + "/valid.txt"), valid);
}

TEST(TextDataTest, SplitKeepsIdenticalLinesTogether) {
  const std::string dir = testing::make_temp_dir("split");
  std::string text;
  for (int copy = 0; copy < 3; ++copy) {
    for (int i = 0; i < 100; ++i) text += "satır " + std::to_string(i) + "\n";
  }
  LineSplitOptions o = split_options(write_in(dir, "dups.txt", text), dir);
  o.share = 0.5;
  ASSERT_TRUE(split_by_line_hash(o).ok());
  std::map<std::string, int> in_train, in_valid;
  for (const auto& line : lines_of(o.train_out)) ++in_train[line];
  for (const auto& line : lines_of(o.valid_out)) ++in_valid[line];
  EXPECT_FALSE(in_train.empty());
  EXPECT_FALSE(in_valid.empty());
  for (const auto& [line, n] : in_train) EXPECT_EQ(n, 3) << line;
  for (const auto& [line, n] : in_valid) EXPECT_EQ(n, 3) << line;
  EXPECT_EQ(in_train.size() + in_valid.size(), 100u);
}

TEST(TextDataTest, SplitStatsCountBothPartsAndChecksumTheInput) {
  const std::string dir = testing::make_temp_dir("split");
  // A \r\n line end and a last line without \n: the checksum is of the file's bytes.
  std::string text;
  for (int i = 0; i < 300; ++i) text += "ağaç " + std::to_string(i) + (i % 5 ? "\n" : "\r\n");
  text += "son satır";
  const LineSplitOptions o = split_options(write_in(dir, "t.txt", text), dir);
  auto split = split_by_line_hash(o);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->input_checksum, file_checksum(o.text).value());
  const TextStats train = count_text(o.train_out).value(), valid = count_text(o.valid_out).value();
  const TextStats input = count_text(o.text).value();
  EXPECT_EQ(train.lines + valid.lines, input.lines);
  EXPECT_EQ(train.characters() + valid.characters(), input.characters());
  const nlohmann::json j = line_split_json(*split, o);
  EXPECT_EQ(j["train"]["lines"], train.lines);
  EXPECT_EQ(j["train"]["characters"], train.characters());
  EXPECT_EQ(j["valid"]["lines"], valid.lines);
  EXPECT_EQ(j["valid"]["characters"], valid.characters());
  EXPECT_EQ(j["threshold"], 300000);
  EXPECT_EQ(j["modulus"], 1000000);
  EXPECT_EQ(j["share"], 0.3);
  EXPECT_EQ(j["input_checksum"], split->input_checksum);
  EXPECT_EQ(split_threshold(0.05), 50000u);
}

TEST(TextDataTest, SplitShareHoldsOnRealText) {
  const std::string path = testing::shared_data_file("corpus/train_corpus.txt");
  MORPHEUS_REQUIRE_DATA(path, "corpus/train_corpus.txt");
  const std::string dir = testing::make_temp_dir("split");
  LineSplitOptions o = split_options(path, dir);
  o.share = 0.05;
  o.min_chars = 300000;
  auto split = split_by_line_hash(o);
  ASSERT_TRUE(split.ok()) << split.status().message();
  const auto lines = static_cast<double>(split->train.lines + split->valid.lines);
  const double share = static_cast<double>(split->valid.lines) / lines;
  // Five binomial standard deviations of the share of lines.
  EXPECT_NEAR(share, 0.05, 5 * std::sqrt(0.05 * 0.95 / lines));
  const double chars = static_cast<double>(split->valid.characters()) /
                       static_cast<double>(split->train.characters() + split->valid.characters());
  EXPECT_NEAR(chars, 0.05, 0.005);
}

TEST(TextDataTest, SplitWithTooFewValidationCharactersIsAnErrorAndWritesNothing) {
  const std::string dir = testing::make_temp_dir("split");
  LineSplitOptions o = split_options(random_lines_file(dir), dir);
  o.min_chars = 1000000;
  auto split = split_by_line_hash(o);
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(split.status().message().find("fewer than --min-chars 1000000"), std::string::npos);
  EXPECT_NE(split.status().hint().find("raise --share"), std::string::npos);
  EXPECT_FALSE(file_exists(o.train_out));
  EXPECT_FALSE(file_exists(o.valid_out));
}

TEST(TextDataTest, SplitRejectsAShareOutsideTheUnitInterval) {
  const std::string dir = testing::make_temp_dir("split");
  LineSplitOptions o = split_options(random_lines_file(dir), dir);
  for (double share : {0.0, 1.0, -0.1}) {
    o.share = share;
    EXPECT_EQ(split_by_line_hash(o).status().code(), StatusCode::kInvalidArgument) << share;
  }
}

TEST(TextDataTest, AllUpperLinesHaveAnUpperCaseLetterAndNoLowerCaseOne) {
  EXPECT_TRUE(is_all_upper_line("İSTANBUL'DA 3 KİŞİ"));
  EXPECT_TRUE(is_all_upper_line("HGS"));
  EXPECT_TRUE(is_all_upper_line("ΑΘΗΝΑ, 2024!"));
  EXPECT_FALSE(is_all_upper_line("İstanbul"));
  EXPECT_FALSE(is_all_upper_line("ANKARA ı"));  // dotless ı is lower case
  EXPECT_FALSE(is_all_upper_line("2024 - 15:30"));
  EXPECT_FALSE(is_all_upper_line(""));
  EXPECT_FALSE(is_all_upper_line("中文"));  // letters without case
}

TEST(TextDataTest, SlicesShareOutTheLinesCharactersAndBits) {
  const std::string dir = testing::make_temp_dir("slices");
  const std::string text = write_in(dir, "t.txt", "ANKARA\nev\n\nŞİŞLİ 3\n12\n");
  auto slices = slice_line_bits(text, {6.0, 2.0, 0.5, 9.0, 1.5});
  ASSERT_TRUE(slices.ok()) << slices.status().message();
  EXPECT_EQ(slices->all_upper.lines, 2);
  EXPECT_EQ(slices->all_upper.characters, 7 + 8);
  EXPECT_DOUBLE_EQ(slices->all_upper.bits, 15.0);
  EXPECT_EQ(slices->other.lines, 3);
  EXPECT_EQ(slices->other.characters, 3 + 1 + 3);
  EXPECT_DOUBLE_EQ(slices->other.bits, 4.0);
  EXPECT_EQ(slices->all_upper.characters + slices->other.characters,
            count_text(text).value().characters());
  const nlohmann::json j = slices->other.to_json();
  EXPECT_DOUBLE_EQ(j["bpc"].get<double>(), 4.0 / 7);
  EXPECT_TRUE(TextSlice{}.to_json()["bpc"].is_null());
}

TEST(TextDataTest, SlicesOfAnotherLineCountAreAnError) {
  const std::string dir = testing::make_temp_dir("slices");
  const std::string text = write_in(dir, "t.txt", "a\nB\n");
  auto slices = slice_line_bits(text, {1.0, 2.0, 3.0});
  ASSERT_FALSE(slices.ok());
  EXPECT_EQ(slices.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(slices.status().message().find("has 2 lines but 3"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::lm
