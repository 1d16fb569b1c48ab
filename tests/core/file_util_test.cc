// SPDX-License-Identifier: MIT
#include "core/file_util.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include "tests/support/test_support.h"

namespace morpheus {
namespace {

int count_entries(const std::string& dir) {
  int n = 0;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  while (dirent* e = readdir(d)) {
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++n;
  }
  closedir(d);
  return n;
}

TEST(FileUtilTest, AtomicWriteReplacesWholeFile) {
  const std::string dir = testing::make_temp_dir("atomic");
  const std::string path = dir + "/out.txt";
  ASSERT_TRUE(write_file_atomic(path, "first version, long").ok());
  ASSERT_TRUE(write_file_atomic(path, "second").ok());
  auto content = read_file(path);
  ASSERT_TRUE(content.ok());
  EXPECT_EQ(*content, "second");
  EXPECT_EQ(count_entries(dir), 1);  // no temp files left
}

TEST(FileUtilTest, AbortedWriterLeavesOldFileAndNoTemp) {
  const std::string dir = testing::make_temp_dir("abort");
  const std::string path = dir + "/out.txt";
  ASSERT_TRUE(write_file_atomic(path, "old").ok());
  {
    AtomicFileWriter w;
    ASSERT_TRUE(w.open(path).ok());
    ASSERT_TRUE(w.write("partial new content").ok());
    // destroyed without commit
  }
  EXPECT_EQ(*read_file(path), "old");
  EXPECT_EQ(count_entries(dir), 1);
}

TEST(FileUtilTest, WriteIntoMissingDirectoryFails) {
  const Status s = write_file_atomic("/nonexistent_dir_xyz/out.txt", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kIoError);
}

TEST(FileUtilTest, ReadReportsMissingFileAndDirectory) {
  auto missing = read_file("/nonexistent_file_xyz");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto dir = read_file(testing::make_temp_dir("isdir"));
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), StatusCode::kInvalidArgument);
}

TEST(FileUtilTest, LineReaderKeepsCarriageReturnAndCountsLines) {
  const std::string path = testing::make_temp_dir("lines") + "/in.txt";
  ASSERT_TRUE(write_file_atomic(path, "a\r\nb\n\nlast").ok());
  LineReader r;
  ASSERT_TRUE(r.open(path).ok());
  std::string line;
  std::vector<std::string> lines;
  while (r.next(&line)) lines.push_back(line);
  EXPECT_TRUE(r.status().ok());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "a\r");
  EXPECT_EQ(lines[2], "");
  EXPECT_EQ(lines[3], "last");
  EXPECT_FALSE(r.last_had_newline());
}

TEST(FileUtilTest, LineReaderNamesLineAndByteOfInvalidUtf8) {
  const std::string path = testing::make_temp_dir("badutf") + "/in.txt";
  ASSERT_TRUE(write_file_atomic(path, "iyi\nçok k\xC3\n").ok());
  LineReader r;
  ASSERT_TRUE(r.open(path).ok());
  std::string line;
  int n = 0;
  while (r.next(&line)) ++n;
  EXPECT_EQ(n, 1);
  ASSERT_FALSE(r.status().ok());
  EXPECT_NE(r.status().message().find("line 2"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("byte 6"), std::string::npos) << r.status().message();
}

TEST(FileUtilTest, MakeDirsCreatesParents) {
  const std::string dir = testing::make_temp_dir("mk") + "/a/b/c";
  ASSERT_TRUE(make_dirs(dir).ok());
  EXPECT_TRUE(dir_exists(dir));
  EXPECT_TRUE(make_dirs(dir).ok());
}

}  // namespace
}  // namespace morpheus
