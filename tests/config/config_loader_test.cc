// SPDX-License-Identifier: MIT
// Tests for config/config_loader.h: the project config's defaults and their resolution with the
// shipped config files and --set overrides, and `morpheus prepare`'s view of it.
#include "config/config_loader.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "config/model_config.h"
#include "core/config_section.h"
#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::config {
namespace {

using train::PrepareConfig;

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
    StatusOr<model::ModelConfig> model = section_from_json<model::ModelConfig>(*config, name);
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

TEST(ConfigLoaderTest, PrepareConfigIsThePrepareSectionOfTheWholeConfig) {
  const std::string dir = testing::make_temp_dir("config_loader_prepare");
  const std::string file = path_join(dir, "c.json");
  ASSERT_TRUE(
      write_file_atomic(file, R"({"model": {"dropout": 0.2}, "prepare": {"seed": 7}})").ok());
  StatusOr<PrepareConfig> c =
      load_prepare_config({file}, {"prepare.word_vocab_size=500", "train.epochs=2"});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->seed, 7u);               // the file
  EXPECT_EQ(c->word_vocab_size, 500u);  // --set
  EXPECT_EQ(c->max_word_chars, 30u);    // the default
  const std::string tiny = path_join(path_join(testing::source_dir(), "configs"), "tiny.json");
  StatusOr<PrepareConfig> shipped = load_prepare_config({tiny}, {});
  ASSERT_TRUE(shipped.ok()) << shipped.status().to_string();
  EXPECT_EQ(shipped->contrastive_roots, "lexicon");  // configs/tiny.json's prepare section
}

TEST(ConfigLoaderTest, PrepareConfigFailsOnABadKeyOrValueInAnySection) {
  const std::string dir = testing::make_temp_dir("config_loader_prepare_bad");
  const std::string file = path_join(dir, "c.json");
  const auto error_of = [&file](const char* text, const std::vector<std::string>& sets) {
    EXPECT_TRUE(write_file_atomic(file, text).ok());
    StatusOr<PrepareConfig> c = load_prepare_config({file}, sets);
    EXPECT_FALSE(c.ok()) << text;
    if (c.ok()) return std::string();
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument) << text;
    return c.status().message();
  };
  EXPECT_NE(error_of(R"({"model": {"char_dimm": 64}, "prepare": {"seed": 7}})", {})
                .find("unknown config key 'model.char_dimm'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"prepare": {"sead": 7}})", {}).find("'prepare.sead'"), std::string::npos);
  EXPECT_NE(error_of("{}", {"train.epochz=1"}).find("'train.epochz'"), std::string::npos);
  EXPECT_NE(error_of(R"({"model": {"char_dim": 321}})", {}).find("model."), std::string::npos);
  EXPECT_NE(error_of("{}", {"prepare.max_word_chars=40"}).find("prepare.max_word_chars"),
            std::string::npos);
  EXPECT_NE(error_of("{}", {"prepare.morfessor_dampening=sqrt"}).find("morfessor_dampening"),
            std::string::npos);
}

}  // namespace
}  // namespace morpheus::config
