// SPDX-License-Identifier: MIT
// The engine's weight file (engine/weight_file.h): the round trip, and every corruption fails the
// load with a DATA_LOSS naming the file and the fault, never a crash.
#include "engine/weight_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "tests/engine/engine_test_util.h"
#include "tests/support/test_support.h"
#include "tokenizer/directory_format.h"

namespace morpheus::engine {
namespace {

// Tensor i, element j = i + j/1000 (distinct values everywhere).
std::vector<TensorInput> patterned(const model::ModelConfig& config,
                                   std::vector<std::vector<float>>* storage) {
  const std::vector<TensorSpec> specs = expected_tensors(config);
  storage->clear();
  std::vector<TensorInput> inputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    int64_t n = 1;
    for (int64_t s : specs[i].shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t j = 0; j < v.size(); ++j)
      v[j] = static_cast<float>(i) + static_cast<float>(j) / 1000;
    storage->push_back(std::move(v));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    inputs.push_back({specs[i].name, specs[i].shape, (*storage)[i].data()});
  }
  return inputs;
}

std::string scratch_path() {
  return path_join(testing::make_temp_dir("weights"), tokenizer::kWeightsFile);
}

// Writes `bytes` to `path` (plainly: thousands of files per test, no fsync) and opens it.
StatusOr<std::unique_ptr<WeightFile>> open_bytes(const std::string& bytes,
                                                 const std::string& path) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return WeightFile::open(path);
}

// The load fails with DATA_LOSS, the path, `fault` in the message and the export hint.
void expect_rejected(const std::string& bytes, const std::string& fault) {
  const std::string path = scratch_path();
  const StatusOr<std::unique_ptr<WeightFile>> file = open_bytes(bytes, path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kDataLoss) << file.status().to_string();
  EXPECT_NE(file.status().message().find(path), std::string::npos) << file.status().message();
  EXPECT_NE(file.status().message().find(fault), std::string::npos) << file.status().message();
  EXPECT_EQ(file.status().hint(), kWeightFileHint);
}

// `bytes` with the first `from` of its JSON header replaced by `to` (same length), resealed.
std::string edit_header(std::string bytes, const std::string& from, const std::string& to) {
  EXPECT_EQ(from.size(), to.size());
  const size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  testing::reseal_weight_bytes(&bytes);
  return bytes;
}

TEST(WeightFileTest, RoundTripKeepsTheConfigAndEveryTensor) {
  const model::ModelConfig config = testing::small_engine_config();
  std::vector<std::vector<float>> storage;
  const std::vector<TensorInput> inputs = patterned(config, &storage);
  const std::string path = scratch_path();
  ASSERT_TRUE(write_weight_file(path, config, inputs).ok());
  StatusOr<std::unique_ptr<WeightFile>> file = WeightFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  EXPECT_EQ(config_to_json((*file)->config()), config_to_json(config));
  for (const TensorInput& in : inputs) {
    const TensorView& view = (*file)->tensor(in.name);
    EXPECT_EQ(view.shape, in.shape) << in.name;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(view.data) % kWeightAlignment, 0u) << in.name;
    int64_t n = 1;
    for (int64_t s : in.shape) n *= s;
    EXPECT_TRUE(std::equal(in.data, in.data + n, view.data)) << in.name;
  }
}

TEST(WeightFileTest, TruncatedFileFailsAtEveryLength) {
  const std::string bytes = testing::random_weight_bytes(testing::small_engine_config(), 1);
  const std::string path = scratch_path();
  for (size_t len = 0; len < bytes.size(); len += len < 96 ? 1 : 131) {
    SCOPED_TRACE(len);
    const StatusOr<std::unique_ptr<WeightFile>> file = open_bytes(bytes.substr(0, len), path);
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(file.status().message().find(path), std::string::npos);
  }
  expect_rejected(bytes + "x", "extended");
}

TEST(WeightFileTest, FlippedByteAnywhereFails) {
  // Every byte of the fixed header, then a sample of the JSON header and of the data.
  const std::string bytes = testing::random_weight_bytes(testing::small_engine_config(), 2);
  const std::string path = scratch_path();
  for (size_t at = 0; at < bytes.size(); at += at < kWeightHeaderBytes ? 1 : 53) {
    const unsigned char mask = at % 2 == 0 ? 0x01 : 0x80;
    SCOPED_TRACE(std::to_string(at) + " ^ " + std::to_string(mask));
    std::string bad = bytes;
    bad[at] = static_cast<char>(static_cast<unsigned char>(bad[at]) ^ mask);
    const StatusOr<std::unique_ptr<WeightFile>> file = open_bytes(bad, path);
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.status().code(), StatusCode::kDataLoss);
  }
}

TEST(WeightFileTest, WrongMagicIsNotAWeightFile) {
  std::string bytes = testing::random_weight_bytes(testing::small_engine_config(), 3);
  bytes[0] = 'X';
  expect_rejected(bytes, "bad magic");
}

TEST(WeightFileTest, OtherFormatVersionIsRejected) {
  std::string bytes = testing::random_weight_bytes(testing::small_engine_config(), 4);
  bytes[8] = 2;
  expect_rejected(bytes, "format version 2, this build reads 1");
}

TEST(WeightFileTest, TensorShapeAgainstTheConfigIsChecked) {
  const std::string bytes = testing::random_weight_bytes(testing::small_engine_config(), 5);
  expect_rejected(edit_header(bytes, "\"max_word_len\":12", "\"max_word_len\":13"),
                  "rope.cos_cache' has shape [12,8], the config needs [13,8]");
}

TEST(WeightFileTest, InvalidConfigIsRejected) {
  const std::string bytes = testing::random_weight_bytes(testing::small_engine_config(), 6);
  expect_rejected(edit_header(bytes, "\"num_heads\":2", "\"num_heads\":3"), "heads of even width");
}

TEST(WeightFileTest, UnknownTensorIsRejected) {
  const std::string bytes = testing::random_weight_bytes(testing::small_engine_config(), 7);
  expect_rejected(edit_header(bytes, "final_norm.bias", "final_norm.bisa"),
                  "unexpected tensor 'char_encoder.final_norm.bisa'");
}

TEST(WeightFileTest, MisplacedTensorIsRejected) {
  const std::string bytes = testing::random_weight_bytes(testing::small_engine_config(), 8);
  expect_rejected(edit_header(bytes, "\"offset\":0,", "\"offset\":9,"), "misaligned");
}

TEST(WeightFileTest, MissingFileIsNotFound) {
  const std::string path = path_join(testing::make_temp_dir("weights"), "absent.weights");
  const StatusOr<std::unique_ptr<WeightFile>> file = WeightFile::open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
  EXPECT_NE(file.status().message().find(path), std::string::npos);
}

TEST(WeightFileTest, WriterRejectsAMissingOrMisshapenTensor) {
  const model::ModelConfig config = testing::small_engine_config();
  std::vector<std::vector<float>> storage;
  std::vector<TensorInput> inputs = patterned(config, &storage);
  const std::string path = scratch_path();
  std::vector<TensorInput> missing(inputs.begin() + 1, inputs.end());
  const Status s = write_weight_file(path, config, missing);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(inputs[0].name), std::string::npos) << s.message();
  inputs[1].shape.back() += 1;
  EXPECT_EQ(write_weight_file(path, config, inputs).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(file_exists(path));
}

// The header of a file written before the engine shared the model's schema.
nlohmann::json former_header(const model::ModelConfig& c) {
  return {{"vocab_size", c.char_vocab_size},
          {"dim", c.char_dim},
          {"char_embed_dim", c.char_embed_dim},
          {"case_embed_dim", c.case_embed_dim},
          {"encoder_layers", c.n_layers_encoder},
          {"detector_layers", c.n_layers_detector},
          {"num_heads", c.num_heads},
          {"ffn_mult", c.ffn_mult},
          {"max_word_len", c.max_word_len},
          {"max_segs", c.max_segs},
          {"cnn_kernels", c.cnn_kernels},
          {"cnn_channels", c.cnn_channels},
          {"threshold", c.threshold},
          {"min_seg_mass", c.min_seg_mass},
          {"layer_norm_eps", 1e-5}};
}

TEST(WeightFileConfigTest, HeaderHoldsTheArchitectureUnderTheModelsKeys) {
  model::ModelConfig config = testing::small_engine_config();
  config.threshold = 0.37;
  const nlohmann::json header = config_to_json(config);
  const nlohmann::json all = config;
  ASSERT_EQ(header.size(), std::size(model::kArchitectureKeys));
  for (const char* key : model::kArchitectureKeys) EXPECT_EQ(header.at(key), all.at(key)) << key;
  StatusOr<model::ModelConfig> back = config_from_json(header, "config");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(nlohmann::json(*back).dump(), nlohmann::json(config).dump());
}

TEST(WeightFileConfigTest, HeaderWithTheFormerKeysReadsAsTheSameConfig) {
  const model::ModelConfig config = testing::small_engine_config();
  StatusOr<model::ModelConfig> back = config_from_json(former_header(config), "config");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(config_to_json(*back), config_to_json(config));
}

TEST(WeightFileConfigTest, FormerHeaderWithAnotherLayerNormEpsilonIsRejected) {
  nlohmann::json header = former_header(testing::small_engine_config());
  header["layer_norm_eps"] = 1e-6;
  StatusOr<model::ModelConfig> back = config_from_json(header, "config");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("layer_norm_eps"), std::string::npos);
}

TEST(WeightFileConfigTest, KeyOutsideTheArchitectureIsRejected) {
  nlohmann::json header = config_to_json(testing::small_engine_config());
  header["dropout"] = 0.1;  // a training field: not the engine's
  StatusOr<model::ModelConfig> back = config_from_json(header, "config");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("unknown config key 'dropout'"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::engine
