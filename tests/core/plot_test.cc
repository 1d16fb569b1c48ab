// SPDX-License-Identifier: MIT
// Charts (core/plot.h): every series in its palette colour, scatter groups, axis ticks.
#include "core/plot.h"

#include <gtest/gtest.h>

#include <vector>

namespace morpheus {
namespace {

// Counts pixels of exactly colour c.
int count_color(const Canvas& canvas, Rgb c) {
  int n = 0;
  for (int y = 0; y < canvas.height(); ++y) {
    for (int x = 0; x < canvas.width(); ++x) {
      const Rgb p = canvas.get(x, y);
      n += p.r == c.r && p.g == c.g && p.b == c.b;
    }
  }
  return n;
}

TEST(PlotTest, LineChartDrawsEverySeriesInItsColour) {
  const Canvas c = line_chart(
      "loss", "step", "loss",
      {{"train", {0, 100, 200}, {3.0, 2.0, 1.5}}, {"val", {0, 100, 200}, {3.2, 2.4, 2.0}}});
  EXPECT_GT(count_color(c, palette_color(0)), 100);
  EXPECT_GT(count_color(c, palette_color(1)), 100);
  EXPECT_EQ(count_color(c, palette_color(2)), 0);
}

TEST(PlotTest, ScatterChartColoursPointsByGroup) {
  const Canvas c = scatter_chart("pca", {{0.0, 0.0, 0}, {1.0, 1.0, 2}}, {"ev", "kitap", "göz"});
  EXPECT_GE(count_color(c, palette_color(2)), 49 + 100);  // a 7×7 marker + the legend swatch
  EXPECT_GE(count_color(c, palette_color(1)), 100);       // legend swatch only
}

TEST(PlotTest, NiceTicksCoverTheRange) {
  const std::vector<double> t = nice_ticks(0.0, 0.87);
  ASSERT_GE(t.size(), 3u);
  EXPECT_DOUBLE_EQ(t.front(), 0.0);
  EXPECT_GE(t.back(), 0.87);
}

}  // namespace
}  // namespace morpheus
