// SPDX-License-Identifier: MIT
// Where the running program finds its data (core/install_dirs.h): a test binary runs from the
// build tree, so the checkout's paths are kept.
#include "core/install_dirs.h"

#include <gtest/gtest.h>

#include <string>

#include "core/file_util.h"

namespace morpheus {
namespace {

TEST(InstallDirsTest, ExecutableDirHoldsTheRunningBinary) {
  const std::string dir = executable_dir();
  EXPECT_TRUE(file_exists(dir + "/morpheus_core_tests")) << dir;
}

TEST(InstallDirsTest, BuildTreeKeepsTheCheckoutPath) {
  EXPECT_EQ(installed_share_dir(), "");
  EXPECT_EQ(data_path("node_modules/x/y.txt", "lexicons/y.txt"), "node_modules/x/y.txt");
}

}  // namespace
}  // namespace morpheus
