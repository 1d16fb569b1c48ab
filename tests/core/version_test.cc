// SPDX-License-Identifier: MIT
// The project version: CMake's project(VERSION) and the commit the build came from.
#include "core/version.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace morpheus {
namespace {

TEST(VersionTest, VersionIsMajorMinorPatch) {
  EXPECT_TRUE(std::regex_match(std::string(version()), std::regex(R"(\d+\.\d+\.\d+)")))
      << version();
}

TEST(VersionTest, VersionStringNamesTheCommitWhenKnown) {
  const std::string s = version_string();
  EXPECT_EQ(s.rfind(std::string(version()), 0), 0u) << s;
  if (git_describe().empty()) {
    EXPECT_EQ(s, std::string(version()));
  } else {
    EXPECT_EQ(s, std::string(version()) + " (" + std::string(git_describe()) + ")");
    EXPECT_TRUE(std::regex_search(std::string(git_describe()), std::regex("[0-9a-f]{7}")));
  }
}

}  // namespace
}  // namespace morpheus
