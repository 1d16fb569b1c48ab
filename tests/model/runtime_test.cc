// SPDX-License-Identifier: MIT
#include "model/runtime.h"

#include <gtest/gtest.h>
#include <torch/cuda.h>

namespace morpheus::model {
namespace {

TEST(RuntimeTest, ResolvesCpuAndAuto) {
  auto cpu = resolve_device("cpu");
  ASSERT_TRUE(cpu.ok());
  EXPECT_TRUE(cpu->is_cpu());
  auto autod = resolve_device("auto");
  ASSERT_TRUE(autod.ok());
  EXPECT_EQ(autod->is_cuda(), torch::cuda::is_available());
}

TEST(RuntimeTest, RejectsUnknownOrUnavailableDevice) {
  EXPECT_FALSE(resolve_device("tpu").ok());
  EXPECT_FALSE(resolve_device("cuda:x").ok());
  if (!torch::cuda::is_available()) {
    auto cuda = resolve_device("cuda");
    ASSERT_FALSE(cuda.ok());
    EXPECT_FALSE(cuda.status().hint().empty());
  }
}

TEST(RuntimeTest, DetectsTheBlasLinkedIntoLibTorch) {
  const BlasInfo info = detect_blas();
  // LibTorch links libblas.so.3; which implementation serves it depends on the machine.
  EXPECT_FALSE(info.library.empty());
}

}  // namespace
}  // namespace morpheus::model
