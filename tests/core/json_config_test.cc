// SPDX-License-Identifier: MIT
#include "core/json_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus {
namespace {

using nlohmann::json;

json defaults() {
  return json{{"model", {{"dim", 320}, {"dropout", 0.1}, {"name", "paper"}}},
              {"train", {{"steps", 1000}, {"lr", 3e-4}, {"betas", {0.9, 0.98}}}}};
}

TEST(JsonConfigTest, FilesMergeInOrderThenSets) {
  const std::string dir = testing::make_temp_dir("cfg");
  ASSERT_TRUE(write_file_atomic(dir + "/a.json", R"({"model": {"dim": 64}})").ok());
  ASSERT_TRUE(write_file_atomic(dir + "/b.json", R"({"model": {"dim": 96, "dropout": 0}})").ok());
  auto cfg = resolve_config(defaults(), {dir + "/a.json", dir + "/b.json"},
                            {"train.steps=5", "model.name=tiny", "train.lr=0.001"});
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  EXPECT_EQ((*cfg)["model"]["dim"], 96);
  EXPECT_EQ((*cfg)["model"]["dropout"], 0);
  EXPECT_EQ((*cfg)["model"]["name"], "tiny");
  EXPECT_EQ((*cfg)["train"]["steps"], 5);
  EXPECT_DOUBLE_EQ((*cfg)["train"]["lr"].get<double>(), 0.001);
  EXPECT_EQ((*cfg)["train"]["betas"][1], 0.98);
}

TEST(JsonConfigTest, UnknownKeyInFileIsRejected) {
  json cfg = defaults();
  const Status s = merge_config(cfg, json{{"model", {{"dimm", 3}}}}, "x.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("model.dimm"), std::string::npos) << s.message();
  EXPECT_NE(s.hint().find("dim"), std::string::npos);
}

TEST(JsonConfigTest, UnknownKeyInSetIsRejected) {
  json cfg = defaults();
  EXPECT_FALSE(apply_set(cfg, "train.stepz=3").ok());
  EXPECT_FALSE(apply_set(cfg, "nope=3").ok());
  EXPECT_FALSE(apply_set(cfg, "missing_equals").ok());
  EXPECT_FALSE(apply_set(cfg, ".train.steps=3").ok());
  EXPECT_FALSE(apply_set(cfg, "train..steps=3").ok());
  EXPECT_FALSE(apply_set(cfg, "train.steps.=3").ok());
}

TEST(JsonConfigTest, WrongTypeIsRejected) {
  json cfg = defaults();
  EXPECT_FALSE(apply_set(cfg, "train.steps=abc").ok());
  EXPECT_FALSE(apply_set(cfg, "train.steps=1.5").ok());
  EXPECT_FALSE(apply_set(cfg, "model=3").ok());
  EXPECT_TRUE(apply_set(cfg, "train.lr=1").ok());  // an integer is a valid number
}

TEST(JsonConfigTest, MalformedFileNamesTheFile) {
  const std::string dir = testing::make_temp_dir("cfgbad");
  ASSERT_TRUE(write_file_atomic(dir + "/bad.json", "{\"model\": ").ok());
  auto cfg = resolve_config(defaults(), {dir + "/bad.json"}, {});
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("bad.json"), std::string::npos);
  auto missing = resolve_config(defaults(), {dir + "/none.json"}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(JsonConfigTest, InvalidUtf8InSetIsAnErrorNotACrash) {
  json cfg = defaults();
  const Status s = apply_set(cfg,
                             "train.steps=\x8f"
                             "e19");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("UTF-8"), std::string::npos) << s.message();
  EXPECT_FALSE(apply_set(cfg, "model.name=\xff").ok());
}

TEST(JsonConfigTest, OverflowingNumberIsAnErrorNotACrash) {
  json cfg = defaults();
  EXPECT_FALSE(apply_set(cfg, "train.lr=1e999").ok());  // taken as a string: wrong type
  EXPECT_FALSE(parse_json("{\"a\": 1e999}", "x.json").ok());
}

}  // namespace
}  // namespace morpheus
