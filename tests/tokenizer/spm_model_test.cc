// SPDX-License-Identifier: MIT
// Torch-free tests of the SentencePiece baselines (linked with libsentencepiece only).
#include "tokenizer/spm_model.h"

#include <gtest/gtest.h>

#include <random>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer {
namespace {

// Trains on 3,000 sentences drawn from a small Turkish word list (seeded).
std::unique_ptr<SpmModel> trained(const std::string& type) {
  const std::string dir = testing::make_temp_dir("spm_" + type);
  const std::vector<std::string> words = {"Evlerimizde", "kitaplar",
                                          "var",         "İstanbul'da",
                                          "25",          "kişi",
                                          "ılık",        "suya",
                                          "girdi",       "IĞDIR",
                                          "çocuklar",    "öğretmenler",
                                          "güzel",       "şehir",
                                          "ağaç",        "Ankara",
                                          "2024",        "yılında",
                                          "geldiler",    ",",
                                          ".",           "!",
                                          "?",           "gözlükçüler",
                                          "okuyorum",    "yazdıklarımızdan"};
  std::mt19937_64 rng(1);
  std::string corpus;
  for (int i = 0; i < 3000; ++i) {
    const size_t n = 3 + rng() % 10;
    for (size_t k = 0; k < n; ++k) corpus += (k ? " " : "") + words[rng() % words.size()];
    corpus += "\n";
  }
  EXPECT_TRUE(write_file_atomic(dir + "/corpus.txt", corpus).ok());
  SpmTrainOptions options;
  options.corpus = dir + "/corpus.txt";
  options.type = type;
  options.vocab_size = 400;
  options.out = dir + "/model";
  const Status s = spm_train(options);
  EXPECT_TRUE(s.ok()) << s.to_string();
  StatusOr<std::unique_ptr<SpmModel>> model = SpmModel::load(options.out);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return std::move(model).value();
}

void expect_random_round_trip(const SpmModel& model) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 10000; ++i) {
    const std::string s = testing::random_text(rng, 60);
    std::vector<int32_t> ids;
    ASSERT_TRUE(model.encode(s, &ids).ok());
    std::string back;
    ASSERT_TRUE(model.decode(ids, &back).ok());
    ASSERT_EQ(back, s) << "case " << i;
  }
}

TEST(SpmModelTest, EscapeRoundTripsAndHidesTheSpaceSymbol) {
  const std::string s = "a\u2581b \uE000\uE001 \uE000";
  const std::string e = spm_escape(s);
  EXPECT_EQ(e.find("\u2581"), std::string::npos);
  EXPECT_EQ(spm_unescape(e), s);
}

TEST(SpmModelTest, BpeRandomTextRoundTripsExactly) { expect_random_round_trip(*trained("bpe")); }

TEST(SpmModelTest, UnigramRandomTextRoundTripsExactly) {
  expect_random_round_trip(*trained("unigram"));
}

TEST(SpmModelTest, WhitespaceAndMarkersSurvive) {
  const std::unique_ptr<SpmModel> model = trained("bpe");
  for (const std::string s : {"  two  spaces  ", "\ttab\t", "cr\r", "▁literal▁", " ", ""}) {
    std::vector<int32_t> ids;
    ASSERT_TRUE(model->encode(s, &ids).ok());
    std::string back;
    ASSERT_TRUE(model->decode(ids, &back).ok());
    EXPECT_EQ(back, s);
  }
  EXPECT_FALSE(model->encode("bad \xff", nullptr).ok());
  std::string out;
  EXPECT_FALSE(model->decode({-1}, &out).ok());
}

TEST(SpmModelTest, DevSentencesRoundTrip) {
  const std::string dev = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(dev, "corpus/dev_ud_sentences.txt");
  const std::unique_ptr<SpmModel> model = trained("bpe");
  LineReader reader;
  ASSERT_TRUE(reader.open(dev).ok());
  std::string line;
  size_t n = 0;
  while (reader.next(&line)) {
    std::vector<int32_t> ids;
    ASSERT_TRUE(model->encode(line, &ids).ok());
    std::string back;
    ASSERT_TRUE(model->decode(ids, &back).ok());
    ASSERT_EQ(back, line) << "line " << n + 1;
    ++n;
  }
  EXPECT_GT(n, 7000u);
}

TEST(SpmModelTest, MissingOrBadModelDirectoryIsAnError) {
  EXPECT_EQ(SpmModel::load("/nonexistent/spm").status().code(), StatusCode::kNotFound);
  SpmTrainOptions options;
  options.type = "wordpiece";
  EXPECT_FALSE(spm_train(options).ok());
}

}  // namespace
}  // namespace morpheus::tokenizer
