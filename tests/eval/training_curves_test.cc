// SPDX-License-Identifier: MIT
// Training curves: metrics.jsonl rows become series, three stacked panels, a PNG on disk, and
// malformed or torn lines are handled as documented.
#include "eval/training_curves.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

constexpr const char* kMetrics =
    R"({"step":1,"epoch":0,"lr":0.0001,"loss":5.0,"aux":1.0,"sgns":2.0,"ctr":3.0,"mlm":4.0})"
    "\n"
    R"({"step":2,"epoch":0,"lr":0.0002,"loss":4.0,"aux":0.9,"sgns":1.9,"ctr":2.9,"mlm":3.9})"
    "\n\n"
    R"({"step":2,"epoch":0,"dev":{"boundary_f1":0.5,"boundary_precision":0.6,"boundary_recall":0.4}})"
    "\n"
    R"({"step":3,"epoch":1,"lr":0.0003,"loss":3.0,"aux":0.8,"sgns":1.8,"ctr":2.8,"mlm":3.8})"
    "\n";

std::string write_metrics(const std::string& tag, const std::string& text) {
  const std::string path = testing::make_temp_dir(tag) + "/metrics.jsonl";
  EXPECT_TRUE(write_file_atomic(path, text).ok());
  return path;
}

TEST(TrainingCurvesTest, RowsBecomeSeriesPerObjectiveDevAndLr) {
  auto curves = read_training_curves(write_metrics("curves_rows", kMetrics));
  ASSERT_TRUE(curves.ok()) << curves.status().to_string();
  ASSERT_EQ(curves->losses.size(), 5u);
  EXPECT_EQ(curves->losses[0].x, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(curves->losses[0].y, (std::vector<double>{5, 4, 3}));
  EXPECT_EQ(curves->losses[4].name, "mlm");
  EXPECT_EQ(curves->losses[4].y, (std::vector<double>{4.0, 3.9, 3.8}));
  ASSERT_EQ(curves->dev.size(), 3u);
  EXPECT_EQ(curves->dev[0].x, (std::vector<double>{2}));
  EXPECT_EQ(curves->dev[0].y, (std::vector<double>{0.5}));
  EXPECT_EQ(curves->dev[2].y, (std::vector<double>{0.4}));
  ASSERT_EQ(curves->lr.size(), 1u);
  EXPECT_EQ(curves->lr[0].y, (std::vector<double>{0.0001, 0.0002, 0.0003}));
}

TEST(TrainingCurvesTest, WritesThreeStackedPanelsAsPng) {
  const std::string metrics = write_metrics("curves_png", kMetrics);
  auto curves = read_training_curves(metrics);
  ASSERT_TRUE(curves.ok());
  const Canvas canvas = draw_training_curves(*curves);
  const Canvas one = line_chart("t", "x", "y", curves->lr);
  EXPECT_EQ(canvas.width(), one.width());
  EXPECT_EQ(canvas.height(), 3 * one.height());
  const std::string png = metrics + ".png";
  ASSERT_TRUE(write_training_curves(metrics, png).ok());
  auto bytes = read_file(png);
  ASSERT_TRUE(bytes.ok());
  ASSERT_GT(bytes->size(), 8u);
  EXPECT_EQ(bytes->substr(1, 3), "PNG");
}

TEST(TrainingCurvesTest, MalformedLineIsDataLossNamingTheLine) {
  const std::string path = write_metrics("curves_bad", std::string(kMetrics) + "not json\n{}\n");
  auto curves = read_training_curves(path);
  ASSERT_FALSE(curves.ok());
  EXPECT_EQ(curves.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(curves.status().message().find("metrics.jsonl:6"), std::string::npos)
      << curves.status().message();
}

TEST(TrainingCurvesTest, TornFinalLineOfAKilledRunIsSkipped) {
  auto curves = read_training_curves(write_metrics("curves_torn", std::string(kMetrics) + "{\"st"));
  ASSERT_TRUE(curves.ok()) << curves.status().to_string();
  EXPECT_EQ(curves->losses[0].x.size(), 3u);
}

TEST(TrainingCurvesTest, MissingFileIsAnError) {
  EXPECT_FALSE(read_training_curves(testing::make_temp_dir("curves_none") + "/metrics.jsonl").ok());
}

}  // namespace
}  // namespace morpheus::eval
