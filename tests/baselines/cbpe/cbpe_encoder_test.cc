// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "baselines/cbpe/bpe_model.h"
#include "core/file_util.h"
#include "core/utf8.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer::cbpe {
namespace {

TEST(CbpeEncoderTest, ReproducesPretrainedEncodeVectors) {
  const std::string vocab = testing::shared_data_file("cbpe/golden/pretrained_vocab.json");
  const std::string merges = testing::shared_data_file("cbpe/golden/pretrained_merges.txt");
  const std::string vectors =
      testing::shared_data_file("cbpe/golden/pretrained_encode_vectors.jsonl");
  MORPHEUS_REQUIRE_DATA(vectors, "cbpe/golden/pretrained_encode_vectors.jsonl");
  StatusOr<BpeModel> model = BpeModel::load(vocab, merges);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  LineReader reader;
  ASSERT_TRUE(reader.open(vectors).ok());
  std::string line;
  size_t n = 0;
  while (reader.next(&line)) {
    const nlohmann::json row = nlohmann::json::parse(line);
    const std::u32string piece = utf8::decode(row["piece"].get<std::string>()).value();
    std::vector<int32_t> ids;
    model->encode(piece, &ids);
    EXPECT_EQ(ids, row["ids"].get<std::vector<int32_t>>()) << row["piece"];
    ++n;
  }
  EXPECT_EQ(n, 419u);
}

TEST(CbpeEncoderTest, CorruptMergesFileIsDataLossWithLine) {
  const std::string dir = testing::make_temp_dir("cbpe_corrupt");
  ASSERT_TRUE(write_file_atomic(dir + "/vocab.json",
                                R"({"<pad>":0,"<unk>":1,"<s>":2,"</s>":3,"a":4,"b":5,"ab":6})")
                  .ok());
  ASSERT_TRUE(write_file_atomic(dir + "/merges.txt", "a\tb\nbroken line\n").ok());
  StatusOr<BpeModel> model = BpeModel::load(dir + "/vocab.json", dir + "/merges.txt");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("merges.txt:2"), std::string::npos);
  ASSERT_TRUE(write_file_atomic(dir + "/vocab.json", R"({"<pad>":0,"<unk>":1,)").ok());
  EXPECT_FALSE(BpeModel::load(dir + "/vocab.json", dir + "/merges.txt").ok());
}

}  // namespace
}  // namespace morpheus::tokenizer::cbpe
