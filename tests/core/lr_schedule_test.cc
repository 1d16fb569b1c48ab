// SPDX-License-Identifier: MIT
#include "core/lr_schedule.h"

#include <gtest/gtest.h>

namespace morpheus {
namespace {

constexpr double kTol = 1e-12;

TEST(ScheduleTest, WarmupIsLinearAndCappedAtAQuarterOfTheRun) {
  EXPECT_EQ(effective_warmup(1000, 17570), 1000);
  EXPECT_EQ(effective_warmup(1000, 200), 50);
  EXPECT_NEAR(lr_multiplier(0, 17570, 1000, 0.2), 1.0 / 1000, kTol);
  EXPECT_NEAR(lr_multiplier(499, 17570, 1000, 0.2), 0.5, kTol);
  EXPECT_NEAR(lr_multiplier(999, 17570, 1000, 0.2), 1.0, kTol);
}

TEST(ScheduleTest, CosineDecaysFromPeakToFloor) {
  const int64_t total = 17570;
  EXPECT_NEAR(lr_multiplier(1000, total, 1000, 0.2), 1.0, kTol);
  // Half-way through the cosine: 0.2 + 0.8 * 0.5.
  EXPECT_NEAR(lr_multiplier(1000 + (total - 1000) / 2, total, 1000, 0.2), 0.6, 1e-4);
  EXPECT_NEAR(lr_multiplier(total, total, 1000, 0.2), 0.2, kTol);
  EXPECT_NEAR(lr_multiplier(total + 50, total, 1000, 0.2), 0.2, kTol);  // clamped
}

}  // namespace
}  // namespace morpheus
