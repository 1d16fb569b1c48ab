// SPDX-License-Identifier: MIT
// ModelConfig: JSON round trip, unknown keys, validation, aux-weight curriculum.
#include "config/model_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config_section.h"

namespace morpheus::model {
namespace {

TEST(ModelConfigTest, JsonRoundTrip) {
  ModelConfig c;
  c.char_dim = 64;
  c.num_heads = 4;
  c.cnn_channels = 16;
  c.cnn_kernels = {2, 3, 4, 5};
  nlohmann::json j;
  j["model"] = c;
  StatusOr<ModelConfig> back = section_from_json<ModelConfig>(j, "test");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(nlohmann::json(back.value()), nlohmann::json(c));
}

TEST(ModelConfigTest, UnknownKeyIsAnError) {
  nlohmann::json j = {{"model", {{"char_dimm", 3}}}};
  StatusOr<ModelConfig> c = section_from_json<ModelConfig>(j, "cfg.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("model.char_dimm"), std::string::npos);
  EXPECT_NE(c.status().message().find("cfg.json"), std::string::npos);
}

TEST(ModelConfigTest, ValidationRejectsIndivisibleHeads) {
  ModelConfig c;
  c.num_heads = 7;
  EXPECT_FALSE(c.validate().ok());
  c = ModelConfig{};
  c.depth_weights = {1.0};
  EXPECT_FALSE(c.validate().ok());
  EXPECT_TRUE(ModelConfig{}.validate().ok());
}

// The engine checks the architecture alone: the training fields are not its business.
TEST(ModelConfigTest, ArchitectureValidationChecksTheForwardPassFieldsOnly) {
  ModelConfig c;
  c.depth_weights = {1.0};  // a training field out of step with the detector
  c.dropout = 2.0;
  EXPECT_FALSE(c.validate().ok());
  EXPECT_TRUE(c.validate_architecture().ok());
  c.num_heads = 7;
  const Status s = c.validate_architecture();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("heads of even width"), std::string::npos);
  c = ModelConfig{};
  c.threshold = 1.0;
  EXPECT_FALSE(c.validate_architecture().ok());
}

// The reference's off-by-one (epochs 0 and 1 both at the start weight) is not copied.
TEST(ModelConfigTest, AuxCurriculumDecaysFromTheSecondEpochOn) {
  ModelConfig c;
  EXPECT_DOUBLE_EQ(aux_weight_for_epoch(c, 0), 0.5);
  EXPECT_DOUBLE_EQ(aux_weight_for_epoch(c, 1), 0.4);
  EXPECT_NEAR(aux_weight_for_epoch(c, 2), 0.32, 1e-12);
  EXPECT_DOUBLE_EQ(aux_weight_for_epoch(c, 9), 0.08);  // 0.5·0.8^9 = 0.067 → floor
  EXPECT_DOUBLE_EQ(aux_weight_for_epoch(c, 30), 0.08);
}

}  // namespace
}  // namespace morpheus::model
