// SPDX-License-Identifier: MIT
// Ids files: parsing, the end-of-line stream, seeded line orders, and clear errors on bad input.
#include "lm_data/id_lines.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::lm {
namespace {

std::string write_temp(const std::string& name, const std::string& content) {
  const std::string path = testing::make_temp_dir("ids") + "/" + name;
  EXPECT_TRUE(write_file_atomic(path, content).ok());
  return path;
}

TEST(IdLinesTest, ReadsOneLinePerTextLineIncludingEmptyOnes) {
  auto lines = read_id_lines(write_temp("a.ids", "3 5\n\n7\r\n"), 10);
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  EXPECT_EQ(lines->num_lines(), 3u);
  EXPECT_EQ(lines->ids, (std::vector<int32_t>{3, 5, 7}));
  EXPECT_EQ(lines->offsets, (std::vector<int64_t>{0, 2, 2, 3}));
  EXPECT_EQ(lines->stream_tokens(), 1 + 3 + 3);
}

TEST(IdLinesTest, StreamStartsWithEolAndEndsEveryLineWithIt) {
  auto lines = read_id_lines(write_temp("a.ids", "3 5\n\n7\n"), 10);
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(token_stream(*lines), (std::vector<int32_t>{10, 3, 5, 10, 10, 7, 10}));
  EXPECT_EQ(token_stream(*lines, {2, 0, 1}), (std::vector<int32_t>{10, 7, 10, 3, 5, 10, 10}));
}

TEST(IdLinesTest, IdAtOrAboveTheVocabularyIsAnErrorNamingTheLine) {
  auto lines = read_id_lines(write_temp("a.ids", "1 2\n3 10\n"), 10);
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(lines.status().message().find("line 2"), std::string::npos);
  EXPECT_NE(lines.status().message().find("id 10 >= vocabulary size 10"), std::string::npos);
  EXPECT_FALSE(lines.status().hint().empty());
}

TEST(IdLinesTest, NonNumericAndNegativeTokensAreErrors) {
  for (const char* text : {"1 x 2\n", "1 -2\n", "1 2.5\n", "99999999999\n"}) {
    auto lines = read_id_lines(write_temp("a.ids", text), 10);
    ASSERT_FALSE(lines.ok()) << text;
    EXPECT_NE(lines.status().message().find("line 1"), std::string::npos) << text;
  }
}

TEST(IdLinesTest, EmptyAndMissingFilesAreErrors) {
  auto empty = read_id_lines(write_temp("empty.ids", ""), 10);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no lines"), std::string::npos);
  auto missing = read_id_lines(testing::make_temp_dir("ids") + "/no_such.ids", 10);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no_such.ids"), std::string::npos);
}

TEST(IdLinesTest, LineOrderIsASeededPermutation) {
  const auto a = line_order(1000, 7, 0);
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(sorted[static_cast<size_t>(i)], i);
  EXPECT_EQ(a, line_order(1000, 7, 0));
  EXPECT_NE(a, line_order(1000, 7, 1));
  EXPECT_NE(a, line_order(1000, 8, 0));
}

}  // namespace
}  // namespace morpheus::lm
