// SPDX-License-Identifier: MIT
#include "core/status.h"

#include <gtest/gtest.h>

#include "core/check.h"
#include "core/logging.h"
#include "core/progress.h"

namespace morpheus {
namespace {

StatusOr<int> parse_positive(int v) {
  if (v <= 0) return invalid_argument("not positive: " + std::to_string(v), "use v > 0");
  return v;
}

Status twice(int v, int* out) {
  MORPHEUS_ASSIGN_OR_RETURN(int x, parse_positive(v));
  *out = 2 * x;
  return ok_status();
}

TEST(StatusTest, AssignOrReturnPropagatesErrors) {
  int out = 0;
  EXPECT_TRUE(twice(3, &out).ok());
  EXPECT_EQ(out, 6);
  const Status s = twice(-1, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.hint(), "use v > 0");
}

TEST(StatusTest, ValueOfErrorThrowsInternalError) {
  StatusOr<int> bad = not_found("x");
  EXPECT_THROW(bad.value(), InternalError);
}

TEST(StatusTest, CheckThrowsWithMessage) {
  try {
    MORPHEUS_CHECK(1 + 1 == 3, "math is ", "broken: ", 42);
    FAIL() << "no throw";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("math is broken: 42"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("1 + 1 == 3"), std::string::npos);
  }
}

TEST(StatusTest, LogSinkReceivesMessagesAtOrAboveLevel) {
  std::vector<std::string> seen;
  LogSink old = set_log_sink([&](LogLevel, const std::string& m) { seen.push_back(m); });
  const LogLevel old_level = log_level();
  set_log_level(LogLevel::kWarning);
  MORPHEUS_LOG(kInfo, "hidden");
  MORPHEUS_LOG(kWarning, "shown ", 1);
  set_log_level(old_level);
  set_log_sink(old);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], "shown 1");
}

TEST(StatusTest, ProgressBarRendersCountsRateAndEta) {
  ProgressBar::set_enabled(false);
  ProgressBar bar("segment", 200, "words");
  bar.add(50);
  const std::string line = bar.render();
  EXPECT_NE(line.find("50/200 words"), std::string::npos) << line;
  EXPECT_NE(line.find("words/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA"), std::string::npos) << line;
  EXPECT_EQ(human_duration(3725), "1h02m");
  EXPECT_EQ(human_count(1234567), "1.23M");
}

}  // namespace
}  // namespace morpheus
