// SPDX-License-Identifier: MIT
// MappedFile (core/mapped_file.h): the bytes of a file, empty files, and the errors.
#include "core/mapped_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus {
namespace {

TEST(MappedFileTest, MapsTheFileBytesAligned) {
  const std::string dir = testing::make_temp_dir("mapped");
  const std::string path = path_join(dir, "f.bin");
  const std::string content = std::string("MPHS\0\1\2", 7) + std::string(10000, 'x');
  ASSERT_TRUE(write_file_atomic(path, content).ok());
  StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  EXPECT_EQ((*file)->bytes(), content);
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*file)->bytes().data()) % 8, 0u);
  EXPECT_EQ((*file)->path(), path);
}

TEST(MappedFileTest, AnEmptyFileHasNoBytes) {
  const std::string dir = testing::make_temp_dir("mapped");
  const std::string path = path_join(dir, "empty");
  ASSERT_TRUE(write_file_atomic(path, "").ok());
  StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  EXPECT_TRUE((*file)->bytes().empty());
}

TEST(MappedFileTest, MissingFileAndDirectoryAreErrorsNamingThePath) {
  const std::string dir = testing::make_temp_dir("mapped");
  const StatusOr<std::shared_ptr<const MappedFile>> missing =
      MappedFile::open(path_join(dir, "none"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("none"), std::string::npos);
  const StatusOr<std::shared_ptr<const MappedFile>> folder = MappedFile::open(dir);
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace morpheus
