// SPDX-License-Identifier: MIT
// The reference's published figures: the repo's eval/published_figures.json loads with the
// paper's numbers; a missing or malformed file is an error naming it.
#include "eval/published_figures.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = path_join(testing::make_temp_dir("published"), name);
  EXPECT_TRUE(write_file_atomic(path, text).ok());
  return path;
}

TEST(PublishedFiguresTest, RepoFileHoldsThePaperNumbers) {
  auto f = PublishedFigures::load(path_join(testing::source_dir(), "eval/published_figures.json"));
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  EXPECT_EQ(f->table_count(), 9u);
  EXPECT_EQ(f->value("morphscore_ud", "turkish-tokenizer"), 0.6476);
  EXPECT_EQ(f->value("sigmorphon", "morfessor"), 0.7815);
  EXPECT_EQ(f->value("roundtrip", "wordpiece-64k"), 0.5816);
  EXPECT_EQ(f->value("lexicon", "morpheus"), 83.52);
  EXPECT_EQ(f->value("surface_fidelity", "morpheus"), 66.0);
  EXPECT_EQ(f->value("speed", "bpe-64k"), 983570.0);
  EXPECT_EQ(f->value("probes", "morpheus"), 0.5925);
  EXPECT_FALSE(f->value("probes", "bpe-64k").has_value());            // not published
  EXPECT_FALSE(f->value("boundary_mc2010", "morpheus").has_value());  // no such table
  EXPECT_FALSE(f->value("speed", "").has_value());                    // system without a name
}

TEST(PublishedFiguresTest, MissingFileIsNotFoundNamingIt) {
  const std::string path = path_join(testing::make_temp_dir("published"), "absent.json");
  auto f = PublishedFigures::load(path);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kNotFound);
  EXPECT_NE(f.status().message().find(path), std::string::npos);
}

TEST(PublishedFiguresTest, MalformedFilesAreErrorsNamingTheFileAndKey) {
  auto not_json = PublishedFigures::load(write_temp("bad.json", "{\"tables\": {"));
  ASSERT_FALSE(not_json.ok());
  EXPECT_NE(not_json.status().message().find("bad.json"), std::string::npos);
  auto no_tables = PublishedFigures::load(write_temp("flat.json", R"({"speed": {"x": 1}})"));
  ASSERT_FALSE(no_tables.ok());
  EXPECT_NE(no_tables.status().message().find("no \"tables\" object"), std::string::npos);
  auto not_number =
      PublishedFigures::load(write_temp("text.json", R"({"tables": {"speed": {"x": "fast"}}})"));
  ASSERT_FALSE(not_number.ok());
  EXPECT_EQ(not_number.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(not_number.status().message().find("tables.speed.x must be a number"),
            std::string::npos);
  auto not_object =
      PublishedFigures::load(write_temp("list.json", R"({"tables": {"speed": [1]}})"));
  ASSERT_FALSE(not_object.ok());
  EXPECT_NE(not_object.status().message().find("tables.speed must be an object"),
            std::string::npos);
}

}  // namespace
}  // namespace morpheus::eval
