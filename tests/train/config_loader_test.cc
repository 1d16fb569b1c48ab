// SPDX-License-Identifier: MIT
// Tests for train/config_loader.h: the project config's defaults and their resolution with the
// shipped config files and --set overrides.
#include "train/config_loader.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/file_util.h"
#include "model/config.h"
#include "tests/support/test_support.h"

namespace morpheus::train {
namespace {

TEST(ConfigLoaderTest, DefaultsHaveTheThreeSections) {
  const nlohmann::json defaults = default_config();
  for (const char* section : {"model", "train", "prepare"}) {
    ASSERT_TRUE(defaults.contains(section)) << section;
    EXPECT_TRUE(defaults[section].is_object()) << section;
    EXPECT_FALSE(defaults[section].empty()) << section;
  }
  EXPECT_EQ(defaults.size(), 3u);
}

TEST(ConfigLoaderTest, ShippedConfigsResolveToValidModelConfigs) {
  for (const char* name : {"tiny.json", "paper.json"}) {
    const std::string path = path_join(path_join(testing::source_dir(), "configs"), name);
    StatusOr<nlohmann::json> config = load_config({path}, {});
    ASSERT_TRUE(config.ok()) << name << ": " << config.status().to_string();
    StatusOr<model::ModelConfig> model = model::model_config_from_json((*config)["model"], name);
    ASSERT_TRUE(model.ok()) << name << ": " << model.status().to_string();
  }
}

TEST(ConfigLoaderTest, SetsOverrideFilesWhichOverrideDefaults) {
  const std::string dir = testing::make_temp_dir("config_loader");
  const std::string file = path_join(dir, "c.json");
  ASSERT_TRUE(write_file_atomic(file, R"({"train": {"epochs": 3, "lr": 0.5}})").ok());
  StatusOr<nlohmann::json> config = load_config({file}, {"train.epochs=7"});
  ASSERT_TRUE(config.ok()) << config.status().to_string();
  EXPECT_EQ((*config)["train"]["epochs"].get<int>(), 7);          // --set wins
  EXPECT_DOUBLE_EQ((*config)["train"]["lr"].get<double>(), 0.5);  // the file over the default
  EXPECT_EQ((*config)["model"], default_config()["model"]);       // untouched section: defaults
}

TEST(ConfigLoaderTest, UnknownKeysAndTypeChangesAreErrors) {
  const std::string dir = testing::make_temp_dir("config_loader_bad");
  const std::string file = path_join(dir, "bad.json");
  ASSERT_TRUE(write_file_atomic(file, R"({"train": {"epochz": 3}})").ok());
  const StatusOr<nlohmann::json> unknown = load_config({file}, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().to_string().find("epochz"), std::string::npos);
  EXPECT_FALSE(load_config({}, {"train.epochs=\"many\""}).ok());
  EXPECT_FALSE(load_config({}, {"nosection.x=1"}).ok());
  EXPECT_FALSE(load_config({path_join(dir, "missing.json")}, {}).ok());
}

}  // namespace
}  // namespace morpheus::train
