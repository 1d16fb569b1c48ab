// SPDX-License-Identifier: MIT
#include "baselines/cbpe/cbpe_model.h"

#include <gtest/gtest.h>

#include <random>

#include "core/file_util.h"
#include "tests/support/test_support.h"
#include "tokenizer/segment_table.h"

namespace morpheus::tokenizer::cbpe {
namespace {

constexpr const char* kCorpus =
    "Evlerimizde kitaplar var.\nKitaplarımızı evlerde okuruz.\nEVLERDE 3 kitap, İSTANBUL'da "
    "ılık.\nevler kitaplar evlerde kitaplarda\n";

std::shared_ptr<const Segmenter> turkish_table() {
  return std::make_shared<TableSegmenter>(
      std::vector<SegmentedWord>{{"evlerimizde", {"ev", "ler", "imiz", "de"}},
                                 {"kitaplar", {"kitap", "lar"}},
                                 {"kitaplarımızı", {"kitap", "lar", "ımız", "ı"}},
                                 {"evlerde", {"ev", "ler", "de"}},
                                 {"evler", {"ev", "ler"}},
                                 {"kitaplarda", {"kitap", "lar", "da"}},
                                 {"kitap", {"kitap"}}});
}

CbpeModel train_small(const std::string& dir) {
  const std::string corpus = dir + "/corpus.txt";
  EXPECT_TRUE(write_file_atomic(corpus, kCorpus).ok());
  CbpeConfig config;
  config.boundaries = "file";
  StatusOr<CbpeModel> model = CbpeModel::train_corpus(corpus, turkish_table(), config, 400);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return std::move(model).value();
}

TEST(CbpeModelTest, PiecesRespectBoundariesAndCase) {
  const CbpeModel model = train_small(testing::make_temp_dir("cbpe_model"));
  EXPECT_EQ(model.word_pieces("evlerimizde"),
            (std::vector<std::string>{"ev", "ler", "imiz", "de"}));
  EXPECT_EQ(model.codec().segment_word("Kitaplarda").value(),
            (std::vector<std::string>{"Kitap", "lar", "da"}));
  for (const Merge& m : model.bpe().merges()) {
    EXPECT_NE(m.first + m.second, "evl") << "merge across ev|ler";
    EXPECT_NE(m.first + m.second, "pl") << "merge across kitap|lar";
  }
}

TEST(CbpeModelTest, SaveLoadGivesTheSameIds) {
  const std::string dir = testing::make_temp_dir("cbpe_saveload");
  const CbpeModel model = train_small(dir);
  ASSERT_TRUE(model.save(dir + "/m").ok());
  StatusOr<CbpeModel> back = CbpeModel::load(dir + "/m");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  const std::string text = "Evlerimizde KİTAPLAR var, ılık İstanbul'da 42 kitap 🙂";
  EXPECT_EQ(model.codec().encode(text).value(), back->codec().encode(text).value());
  EXPECT_EQ(back->codec().decode(back->codec().encode(text).value()).value(), text);
}

TEST(CbpeModelTest, CorruptModelFilesAreClearErrors) {
  const std::string dir = testing::make_temp_dir("cbpe_corrupt_model");
  const CbpeModel model = train_small(dir);
  ASSERT_TRUE(model.save(dir + "/m").ok());
  EXPECT_EQ(CbpeModel::load(dir + "/nope").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(write_file_atomic(dir + "/m/cbpe.json", "{\"format_version\": 99}").ok());
  StatusOr<CbpeModel> bad = CbpeModel::load(dir + "/m");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("format_version"), std::string::npos);
  ASSERT_TRUE(model.save(dir + "/m").ok());
  ASSERT_TRUE(write_file_atomic(dir + "/m/merges.txt", "x\n").ok());
  EXPECT_FALSE(CbpeModel::load(dir + "/m").ok());
}

TEST(CbpeModelTest, TruncatedMergesAreDataLossNamingTheFile) {
  const std::string dir = testing::make_temp_dir("cbpe_truncated_merges");
  const CbpeModel model = train_small(dir);
  ASSERT_TRUE(model.save(dir + "/m").ok());
  const std::string merges = read_file(dir + "/m/merges.txt").value();
  const size_t cut = merges.find('\n', merges.size() / 2);
  ASSERT_NE(cut, std::string::npos);
  ASSERT_TRUE(write_file_atomic(dir + "/m/merges.txt", merges.substr(0, cut + 1)).ok());
  StatusOr<CbpeModel> bad = CbpeModel::load(dir + "/m");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(bad.status().message().find("merges.txt"), std::string::npos);
}

TEST(CbpeModelTest, HugeWordIsEncodedInLinearTimeAndRoundTrips) {
  // A 50 MB one-word line hung `cbpe segment` (BPE merging is superlinear in the word length).
  const CbpeModel model = train_small(testing::make_temp_dir("cbpe_huge_word"));
  std::string word;
  for (int i = 0; i < 40000; ++i) word += "evlerde";
  const std::vector<int32_t> ids = model.codec().encode(word).value();
  EXPECT_EQ(model.codec().decode(ids).value(), word);
  std::string joined;
  for (const std::string& p : model.word_pieces(word)) joined += p;
  EXPECT_EQ(joined, word);
}

TEST(CbpeModelTest, RandomTextRoundTripsExactly) {
  const CbpeModel model = train_small(testing::make_temp_dir("cbpe_random"));
  std::mt19937_64 rng(4242);
  for (int i = 0; i < 10000; ++i) {
    const std::string s = testing::random_text(rng, 60);
    const std::vector<int32_t> ids = model.codec().encode(s).value();
    ASSERT_EQ(model.codec().decode(ids).value(), s) << "case " << i;
  }
}

TEST(CbpeModelTest, DevSentencesRoundTripWithAModelTrainedOnThem) {
  const std::string dev = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(dev, "corpus/dev_ud_sentences.txt");
  StatusOr<CbpeModel> model = CbpeModel::train_corpus(dev, nullptr, CbpeConfig{}, 2000);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_EQ(model->bpe().tokens().size(), 2000u);
  LineReader reader;
  ASSERT_TRUE(reader.open(dev).ok());
  std::string line;
  size_t n = 0;
  size_t ids_total = 0;
  while (reader.next(&line)) {
    const std::vector<int32_t> ids = model->codec().encode(line).value();
    ids_total += ids.size();
    ASSERT_EQ(model->codec().decode(ids).value(), line) << "line " << n + 1;
    ++n;
  }
  EXPECT_GT(n, 7000u);
  EXPECT_LT(ids_total, 2 * 110000u);  // pieces, not bytes: far fewer ids than characters
}

TEST(CbpeModelTest, PretokensTrainingMatchesReferenceMerges) {
  const std::string entries = testing::shared_data_file("cbpe/golden/annotated_entries.json");
  const std::string golden = testing::shared_data_file("cbpe/golden/v300/merges.txt");
  MORPHEUS_REQUIRE_DATA(golden, "cbpe/golden/v300/merges.txt");
  StatusOr<CbpeModel> model = CbpeModel::train_pretokens(entries, 300);
  ASSERT_TRUE(model.ok());
  const std::string dir = testing::make_temp_dir("cbpe_pretokens");
  ASSERT_TRUE(model->save(dir).ok());
  EXPECT_EQ(read_file(dir + "/merges.txt").value(), read_file(golden).value());
  const std::string text = "Kumain siya ng pagkain.";
  EXPECT_EQ(model->codec().decode(model->codec().encode(text).value()).value(), text);
}

}  // namespace
}  // namespace morpheus::tokenizer::cbpe
