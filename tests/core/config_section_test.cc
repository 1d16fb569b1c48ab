// SPDX-License-Identifier: MIT
// core/config_section.h: defaults from T{}, the section merged over them key by key, unknown keys
// and type changes as errors naming the key and section, T's JSON checks, T::validate() last.
#include "core/config_section.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus {
namespace {

using nlohmann::json;

// A section under the key "sample".
struct Sample {
  static constexpr const char* kSection = "sample";
  int64_t size = 3;
  double rate = 0.5;
  std::string name = "x";

  Status validate() const {
    return size < 1 ? invalid_argument("sample.size must be >= 1") : ok_status();
  }
};
MORPHEUS_CONFIG_FIELDS(Sample, size, rate, name)

// A section that is the whole object, with JSON checks: "{root}" in `path` becomes `root`.
struct Whole {
  static constexpr const char* kSection = "";
  std::string root = "/data";
  std::string path = "{root}/a.txt";

  static Status check_json(json& config) {
    std::string path = config.at("path").get<std::string>();
    const size_t at = path.find("{root}");
    if (at == std::string::npos) return invalid_argument("path must start with {root}");
    config["path"] = path.replace(at, 6, config.at("root").get<std::string>());
    return ok_status();
  }
  Status validate() const { return ok_status(); }
};
MORPHEUS_CONFIG_FIELDS(Whole, root, path)

TEST(ConfigSectionTest, AConfigWithoutTheSectionIsTheDefaults) {
  const StatusOr<Sample> s = section_from_json<Sample>(json{{"other", {{"k", 1}}}}, "f.json");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->size, 3);
  EXPECT_DOUBLE_EQ(s->rate, 0.5);
  EXPECT_EQ(s->name, "x");
}

TEST(ConfigSectionTest, GivenKeysReplaceTheirDefaultsOnly) {
  const StatusOr<Sample> s =
      section_from_json<Sample>(json{{"sample", {{"size", 7}, {"rate", 1}}}}, "f.json");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->size, 7);
  EXPECT_DOUBLE_EQ(s->rate, 1.0);  // an integer where a number is expected
  EXPECT_EQ(s->name, "x");
}

TEST(ConfigSectionTest, UnknownKeyNamesTheKeyAndTheSectionAndListsTheKnownKeys) {
  const StatusOr<Sample> s = section_from_json<Sample>(json{{"sample", {{"sise", 7}}}}, "f.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "f.json: unknown config key 'sample.sise'");
  EXPECT_EQ(s.status().hint(), "known keys here: name, rate, size");
}

TEST(ConfigSectionTest, ChangedTypeIsAnErrorNamingTheKey) {
  const StatusOr<Sample> s = section_from_json<Sample>(json{{"sample", {{"size", 1.5}}}}, "f.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("'sample.size' must be integer"), std::string::npos)
      << s.status().message();
  EXPECT_FALSE(section_from_json<Sample>(json{{"sample", 3}}, "f.json").ok());
}

TEST(ConfigSectionTest, ValidateRunsLastWithTheSourceInFront) {
  const StatusOr<Sample> s = section_from_json<Sample>(json{{"sample", {{"size", 0}}}}, "f.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "f.json: sample.size must be >= 1");
}

TEST(ConfigSectionTest, WholeObjectSectionRunsItsJsonChecksBeforeReading) {
  const StatusOr<Whole> w = section_from_json<Whole>(json{{"root", "/r"}}, "w");
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  EXPECT_EQ(w->path, "/r/a.txt");
  const StatusOr<Whole> bad = section_from_json<Whole>(json{{"path", "b.txt"}}, "w");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "w: path must start with {root}");
  const StatusOr<Whole> unknown = section_from_json<Whole>(json{{"sample", {}}}, "w");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "w: unknown config key 'sample'");
}

TEST(ConfigSectionTest, SectionDefaultsHoldEverySectionAtItsPlace) {
  const json d = section_defaults<Sample, Whole>();
  EXPECT_EQ(d.at("sample"), json(Sample{}));
  EXPECT_EQ(d.at("root"), "/data");
  EXPECT_EQ(d.at("path"), "{root}/a.txt");
  EXPECT_EQ(d.size(), 3u);
}

TEST(ConfigSectionTest, LoadSectionResolvesFilesThenSets) {
  const std::string dir = testing::make_temp_dir("config_section");
  const std::string file = path_join(dir, "s.json");
  ASSERT_TRUE(write_file_atomic(file, R"({"sample": {"size": 5, "name": "file"}})").ok());
  const StatusOr<Sample> s = load_section<Sample>({file}, {"sample.name=set"});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->size, 5);
  EXPECT_EQ(s->name, "set");
  EXPECT_FALSE(load_section<Sample>({}, {"other.size=1"}).ok());
  const StatusOr<Sample> invalid = load_section<Sample>({}, {"sample.size=0"});
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().message(), "config: sample.size must be >= 1");
}

}  // namespace
}  // namespace morpheus
