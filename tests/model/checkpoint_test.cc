// SPDX-License-Identifier: MIT
// Checkpoint directories: bit-exact round trip, errors as Status.
#include "model/checkpoint.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/file_util.h"
#include "tests/model/model_test_util.h"
#include "tests/support/test_support.h"

namespace morpheus::model {
namespace {

TEST(CheckpointTest, RoundTripIsBitExact) {
  torch::manual_seed(16);
  const std::string dir = path_join(morpheus::testing::make_temp_dir("ckpt"), "run");
  MorpheusWithHeads a(testing::tiny_test_config());
  ASSERT_TRUE(save_checkpoint(dir, a, {"", "a\t4\n"}).ok());
  ASSERT_TRUE(save_checkpoint(dir, a).ok());  // replacing an existing checkpoint works
  StatusOr<MorpheusWithHeads> b = load_checkpoint(dir);
  ASSERT_TRUE(b.ok()) << b.status().message();
  auto pa = a->named_parameters(), pb = b.value()->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& item : pa) EXPECT_TRUE(torch::equal(item.value(), pb[item.key()])) << item.key();
  auto ba = a->named_buffers(), bb = b.value()->named_buffers();
  for (const auto& item : ba) EXPECT_TRUE(torch::equal(item.value(), bb[item.key()])) << item.key();
  StatusOr<Morpheus> inference = load_inference_checkpoint(dir);
  ASSERT_TRUE(inference.ok());
  EXPECT_TRUE(torch::equal(inference.value()->segment_encoder->char_scorer->weight,
                           a->model->segment_encoder->char_scorer->weight));
}

TEST(CheckpointTest, MissingDirectoryIsNotFound) {
  StatusOr<MorpheusWithHeads> b = load_checkpoint("/nonexistent/morpheus/ckpt");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("meta.json"), std::string::npos);
}

TEST(CheckpointTest, WrongFormatVersionIsRejected) {
  const std::string dir = path_join(morpheus::testing::make_temp_dir("ckpt"), "run");
  Morpheus m(testing::tiny_test_config());
  ASSERT_TRUE(save_inference_checkpoint(dir, m).ok());
  ASSERT_TRUE(write_file_atomic(path_join(dir, "meta.json"), "{\"format_version\": 99}").ok());
  StatusOr<Morpheus> back = load_inference_checkpoint(dir);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("format_version 99"), std::string::npos);
}

TEST(CheckpointTest, CorruptWeightsAreDataLoss) {
  const std::string dir = path_join(morpheus::testing::make_temp_dir("ckpt"), "run");
  Morpheus m(testing::tiny_test_config());
  ASSERT_TRUE(save_inference_checkpoint(dir, m).ok());
  ASSERT_TRUE(write_file_atomic(path_join(dir, "model.pt"), "not a torch archive").ok());
  StatusOr<Morpheus> back = load_inference_checkpoint(dir);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kDataLoss);
}

TEST(CheckpointTest, BitFlippedWeightsFailTheChecksum) {
  const std::string dir = path_join(morpheus::testing::make_temp_dir("ckpt"), "run");
  Morpheus m(testing::tiny_test_config());
  ASSERT_TRUE(save_inference_checkpoint(dir, m).ok());
  std::string bytes = read_file(path_join(dir, "model.pt")).value();
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0xFF);
  ASSERT_TRUE(write_file_atomic(path_join(dir, "model.pt"), bytes).ok());
  StatusOr<Morpheus> back = load_inference_checkpoint(dir);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(back.status().message().find("checksum"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::model
