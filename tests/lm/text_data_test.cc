// SPDX-License-Identifier: MIT
// Raw-text counts (the BPC denominator), the held-out split and the reversibility gate.
#include "lm/text_data.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "lm/char_codec.h"
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

}  // namespace
}  // namespace morpheus::lm
