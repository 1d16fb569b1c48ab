// SPDX-License-Identifier: MIT
// Checkpoint directories: bit-exact round trip, errors as Status.
#include "model/checkpoint.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

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

// Every device this machine has (the CPU, and the first GPU where LibTorch sees one).
std::vector<torch::Device> available_devices() {
  std::vector<torch::Device> devices{torch::kCPU};
  if (torch::cuda::is_available()) devices.emplace_back(torch::kCUDA, 0);
  return devices;
}

TEST(CheckpointTest, LoadsOntoTheRequestedDeviceWhateverWroteIt) {
  for (const torch::Device& writer : available_devices()) {
    torch::manual_seed(17);
    const std::string dir = path_join(morpheus::testing::make_temp_dir("ckpt_dev"), "run");
    MorpheusWithHeads a(testing::tiny_test_config());
    a->to(writer);
    ASSERT_TRUE(save_checkpoint(dir, a).ok());
    // The archive names no device but the CPU, so a reader without the writer's GPU loads it.
    torch::serialize::InputArchive archive, sgns, table;
    archive.load_from(path_join(dir, "model.pt"));
    torch::Tensor stored;
    ASSERT_TRUE(archive.try_read("sgns", sgns) && sgns.try_read("context_embedding", table) &&
                table.try_read("weight", stored));
    EXPECT_TRUE(stored.device().is_cpu()) << "written from " << writer;
    for (const torch::Device& reader : available_devices()) {
      StatusOr<MorpheusWithHeads> b = load_checkpoint(dir, reader);
      ASSERT_TRUE(b.ok()) << b.status().message();
      for (const auto& item : a->named_parameters()) {
        const torch::Tensor& p = b.value()->named_parameters()[item.key()];
        EXPECT_EQ(p.device(), reader) << item.key();
        EXPECT_TRUE(torch::equal(p.cpu(), item.value().cpu())) << item.key();
      }
      StatusOr<Morpheus> inference = load_inference_checkpoint(dir, reader);
      ASSERT_TRUE(inference.ok()) << inference.status().message();
      EXPECT_EQ(inference.value()->segment_encoder->char_scorer->weight.device(), reader);
    }
  }
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
