// SPDX-License-Identifier: MIT
// transform_lines: blocks, shards and workers keep the output in input order; errors name the
// first failing line.
#include "tools/codec_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tools {
namespace {

// `n` lines "line 1" … "line n" in a fresh file; returns its path.
std::string write_lines(const std::string& dir, size_t n) {
  std::string text;
  for (size_t i = 1; i <= n; ++i) text += "line " + std::to_string(i) + "\n";
  const std::string path = path_join(dir, "in.txt");
  EXPECT_TRUE(write_file_atomic(path, text).ok());
  return path;
}

// The lines reversed, one output line per input line.
Status reverse_line(std::string_view line, std::string* out) {
  std::string r(line);
  std::reverse(r.begin(), r.end());
  *out += r + "\n";
  return ok_status();
}

std::string transformed(const std::string& input, const std::string& out_path, size_t workers,
                        size_t block_lines) {
  BlockOptions options;
  options.workers = workers;
  options.block_lines = block_lines;
  const Status s = transform_lines(input, out_path, true, options, reverse_line);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return *read_file(out_path);
}

TEST(TransformLinesTest, WorkersKeepTheInputOrder) {
  const std::string dir = testing::make_temp_dir("codec_io");
  const std::string input = write_lines(dir, 1001);
  const std::string one = transformed(input, path_join(dir, "one.txt"), 1, 100);
  EXPECT_EQ(one.substr(0, 7), "1 enil\n");
  for (size_t workers : {2, 3, 7}) {
    EXPECT_EQ(transformed(input, path_join(dir, "w.txt"), workers, 100), one) << workers;
  }
  EXPECT_EQ(transformed(input, path_join(dir, "w.txt"), 4, 3), one) << "more workers than lines";
}

TEST(TransformLinesTest, WorkersReportTheFirstFailingLine) {
  const std::string dir = testing::make_temp_dir("codec_io_err");
  const std::string input = write_lines(dir, 1000);
  BlockOptions options;
  options.workers = 4;
  options.block_lines = 1000;
  const Status s = transform_lines(input, path_join(dir, "out.txt"), true, options,
                                   [](std::string_view line, std::string* out) -> Status {
                                     if (line == "line 250" || line == "line 700")
                                       return invalid_argument("bad line");
                                     *out += line;
                                     return ok_status();
                                   });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(":250: bad line"), std::string::npos) << s.to_string();
}

}  // namespace
}  // namespace morpheus::tools
