// SPDX-License-Identifier: MIT
#include "core/file_util.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

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

// The pid of a process that has exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

TEST(FileUtilTest, RemoveStaleTempsRemovesOnlyTempsOfDeadProcesses) {
  const std::string dir = testing::make_temp_dir("stale");
  const std::string path = dir + "/out";
  const std::string dead = std::to_string(dead_pid());
  const std::string self = std::to_string(getpid());
  const std::string parent = std::to_string(getppid());
  ASSERT_TRUE(make_dirs(path + ".tmp-" + dead + "/model").ok());  // export dir
  ASSERT_TRUE(write_file_atomic(path + ".tmp-" + dead + "/model/x", "x").ok());
  ASSERT_TRUE(make_dirs(path + ".tmp." + dead).ok());                            // checkpoint dir
  ASSERT_TRUE(write_file_atomic(path + ".tmp." + dead + ".0badf00d", "").ok());  // atomic file
  const std::vector<std::string> kept = {
      path + ".tmp." + self,              // ours
      path + ".tmp." + parent,            // a live process
      path + ".tmp." + dead + ".backup",  // not one of our names
      path + ".tmp." + dead + "x",        // not a pid
      dir + "/other.tmp." + dead,         // another target
      path + ".tmp",                      // no pid
  };
  for (const std::string& k : kept) ASSERT_TRUE(write_file_atomic(k, "keep").ok());
  EXPECT_EQ(remove_stale_temps(path), 3u);
  EXPECT_FALSE(dir_exists(path + ".tmp-" + dead));
  EXPECT_FALSE(dir_exists(path + ".tmp." + dead));
  EXPECT_FALSE(file_exists(path + ".tmp." + dead + ".0badf00d"));
  for (const std::string& k : kept) EXPECT_TRUE(file_exists(k)) << k;
}

TEST(FileUtilTest, RemoveStaleTempsInClearsEveryDeadTempOfADirectory) {
  const std::string dir = testing::make_temp_dir("stale_in");
  const std::string dead = std::to_string(dead_pid());
  ASSERT_TRUE(make_dirs(dir + "/step_2.tmp." + dead).ok());
  ASSERT_TRUE(write_file_atomic(dir + "/optimizer.pt.tmp." + dead, "").ok());
  ASSERT_TRUE(write_file_atomic(dir + "/latest", "step_2").ok());  // before: it clears its own
  ASSERT_TRUE(write_file_atomic(dir + "/latest.tmp." + dead + ".abcdef01", "").ok());
  ASSERT_TRUE(write_file_atomic(dir + "/notes.tmp." + std::to_string(getppid()), "").ok());
  ASSERT_TRUE(write_file_atomic(dir + "/.tmp." + dead, "").ok());  // no target name
  EXPECT_EQ(remove_stale_temps_in(dir), 3u);
  EXPECT_EQ(count_entries(dir), 3);  // latest, the live process's temp, ".tmp.<pid>"
}

TEST(FileUtilTest, AtomicWriteClearsTempOfKilledWriter) {
  const std::string dir = testing::make_temp_dir("killed");
  const std::string path = dir + "/out.txt";
  const std::string leftover = path + ".tmp." + std::to_string(dead_pid()) + ".12345678";
  ASSERT_TRUE(write_file_atomic(leftover, "partial").ok());
  ASSERT_TRUE(write_file_atomic(path, "whole").ok());
  EXPECT_FALSE(file_exists(leftover));
  EXPECT_EQ(count_entries(dir), 1);
}

}  // namespace
}  // namespace morpheus
