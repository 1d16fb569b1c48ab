// SPDX-License-Identifier: MIT
// Torch-free tests of the SentencePiece baselines (linked with libsentencepiece only).
#include "baselines/spm/spm_model.h"

#include <gtest/gtest.h>
#include <sentencepiece_processor.h>

#include <nlohmann/json.hpp>
#include <random>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer {
namespace {

// Trains on 3,000 sentences drawn from a small Turkish word list (seeded); the model directory is
// `dir`/model.
std::unique_ptr<SpmModel> trained_in(const std::string& dir, const std::string& type,
                                     bool add_dummy_prefix) {
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
  options.add_dummy_prefix = add_dummy_prefix;
  const Status s = spm_train(options);
  EXPECT_TRUE(s.ok()) << s.to_string();
  StatusOr<std::unique_ptr<SpmModel>> model = SpmModel::load(options.out);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return std::move(model).value();
}

std::unique_ptr<SpmModel> trained(const std::string& type, bool add_dummy_prefix = false) {
  return trained_in(testing::make_temp_dir("spm_" + type), type, add_dummy_prefix);
}

void expect_round_trip(const SpmModel& model, const std::string& s) {
  std::vector<int32_t> ids;
  ASSERT_TRUE(model.encode(s, &ids).ok());
  std::string back;
  ASSERT_TRUE(model.decode(ids, &back).ok());
  EXPECT_EQ(back, s);
}

const std::vector<std::string> kWhitespaceLines = {
    "  two  spaces  ", " leading", "\ttab\t",       "cr\r", "▁literal▁", " ", "", "   ", "\t",
    "a   b",           " ▁",       "\uE000\uE001 x"};

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

void expect_dev_round_trip(const SpmModel& model, const std::string& dev) {
  LineReader reader;
  ASSERT_TRUE(reader.open(dev).ok());
  std::string line;
  size_t n = 0;
  while (reader.next(&line)) {
    std::vector<int32_t> ids;
    ASSERT_TRUE(model.encode(line, &ids).ok());
    std::string back;
    ASSERT_TRUE(model.decode(ids, &back).ok());
    ASSERT_EQ(back, line) << "line " << n + 1;
    ++n;
  }
  EXPECT_GT(n, 7000u);
}

TEST(SpmModelTest, DevSentencesRoundTrip) {
  const std::string dev = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(dev, "corpus/dev_ud_sentences.txt");
  expect_dev_round_trip(*trained("bpe"), dev);
}

TEST(SpmModelTest, MissingOrBadModelDirectoryIsAnError) {
  EXPECT_EQ(SpmModel::load("/nonexistent/spm").status().code(), StatusCode::kNotFound);
  SpmTrainOptions options;
  options.type = "wordpiece";
  EXPECT_FALSE(spm_train(options).ok());
}

TEST(SpmModelTest, DummyPrefixReachesSentencePiece) {
  for (const bool dummy : {false, true}) {
    const std::string dir = testing::make_temp_dir("spm_dummy");
    trained_in(dir, "unigram", dummy);
    sentencepiece::SentencePieceProcessor sp;
    ASSERT_TRUE(sp.Load(dir + "/model/spm.model").ok());
    std::vector<std::string> pieces;
    ASSERT_TRUE(sp.Encode("evler", &pieces).ok());
    ASSERT_FALSE(pieces.empty());
    EXPECT_EQ(pieces[0].rfind("\u2581", 0) == 0, dummy) << pieces[0];
  }
}

TEST(SpmModelTest, DummyPrefixIsRecordedInSpmJson) {
  const std::string dir = testing::make_temp_dir("spm_dummy");
  EXPECT_TRUE(trained_in(dir, "bpe", true)->add_dummy_prefix());
  EXPECT_FALSE(trained("bpe")->add_dummy_prefix());
  const std::string meta_path = dir + "/model/spm.json";
  nlohmann::json meta = nlohmann::json::parse(read_file(meta_path).value());
  EXPECT_EQ(meta.at("add_dummy_prefix"), true);
  meta.erase("add_dummy_prefix");  // a model directory without the key: no dummy prefix
  ASSERT_TRUE(write_file_atomic(meta_path, meta.dump()).ok());
  StatusOr<std::unique_ptr<SpmModel>> plain = SpmModel::load(dir + "/model");
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  EXPECT_FALSE((*plain)->add_dummy_prefix());
  meta["add_dummy_prefix"] = "yes";
  ASSERT_TRUE(write_file_atomic(meta_path, meta.dump()).ok());
  EXPECT_EQ(SpmModel::load(dir + "/model").status().code(), StatusCode::kDataLoss);
}

TEST(SpmModelTest, DummyPrefixBpeRandomTextRoundTripsExactly) {
  expect_random_round_trip(*trained("bpe", true));
}

TEST(SpmModelTest, DummyPrefixUnigramRandomTextRoundTripsExactly) {
  expect_random_round_trip(*trained("unigram", true));
}

TEST(SpmModelTest, DummyPrefixWhitespaceLinesRoundTrip) {
  for (const std::string type : {"bpe", "unigram"}) {
    const std::unique_ptr<SpmModel> model = trained(type, true);
    for (const std::string& s : kWhitespaceLines) expect_round_trip(*model, s);
  }
}

TEST(SpmModelTest, DummyPrefixDevSentencesRoundTrip) {
  const std::string dev = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(dev, "corpus/dev_ud_sentences.txt");
  expect_dev_round_trip(*trained("unigram", true), dev);
}

}  // namespace
}  // namespace morpheus::tokenizer
