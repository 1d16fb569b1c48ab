// SPDX-License-Identifier: MIT
// Charts drawn on core/png.h canvases: grouped bars (one group per metric, one bar per system),
// line plots (training curves), and labelled scatter maps (2-D PCA of embeddings).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/png.h"

namespace morpheus {

// values[s][g] is system s on metric g; nullopt is drawn as "n/a".
Canvas grouped_bar_chart(const std::string& title, const std::vector<std::string>& groups,
                         const std::vector<std::string>& series,
                         const std::vector<std::vector<std::optional<double>>>& values);

struct LineSeries {
  std::string name;
  std::vector<double> x, y;  // same length
};
Canvas line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                  const std::vector<LineSeries>& series);

struct ScatterPoint {
  double x = 0, y = 0;
  size_t group = 0;  // index into group_names; colour = palette_color(group)
};
Canvas scatter_chart(const std::string& title, const std::vector<ScatterPoint>& points,
                     const std::vector<std::string>& group_names);

// "Nice" axis ticks covering [lo, hi]: about `target` values at 1/2/5 × 10^k steps.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

}  // namespace morpheus
