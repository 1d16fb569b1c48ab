// SPDX-License-Identifier: MIT
// Chart layouts: axes, ticks, legends, bars, lines, scatter markers.
#include "core/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace morpheus {
namespace {

constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kGrid{225, 225, 225};
constexpr Rgb kGrey{110, 110, 110};
constexpr int kWidth = 960, kHeight = 540;
constexpr int kLeft = 70, kTop = 44, kBottom = 90, kLegend = 190;

std::string format_tick(double v) {
  char buf[32];
  if (std::fabs(v) >= 10000) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else if (std::fabs(v - std::round(v)) < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

std::string fit(const std::string& s, int max_px, int scale) {
  std::string out = s;
  while (!out.empty() && Canvas::text_width(out, scale) > max_px) {
    // Drop a whole UTF-8 code point from the end.
    do out.pop_back();
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80);
    if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0xC0) out.pop_back();
  }
  return out;
}

struct Frame {
  int x0, y0, x1, y1;  // plot area (pixels)
  double lo, hi;       // y range
  double xlo = 0, xhi = 1;
  int y_of(double v) const {
    return y1 - static_cast<int>(std::lround((v - lo) / (hi - lo) * (y1 - y0)));
  }
  int x_of(double v) const {
    return x0 + static_cast<int>(std::lround((v - xlo) / (xhi - xlo) * (x1 - x0)));
  }
};

void draw_title(Canvas& c, const std::string& title) {
  c.text(kLeft, 14, fit(title, c.width() - kLeft - 10, 2), kBlack, 2);
}

// Y axis with ticks and grid lines.
void draw_y_axis(Canvas& c, const Frame& f) {
  for (double t : nice_ticks(f.lo, f.hi)) {
    const int y = f.y_of(t);
    c.line(f.x0, y, f.x1, y, kGrid);
    const std::string label = format_tick(t);
    c.text(f.x0 - 6 - Canvas::text_width(label), y - 3, label, kBlack);
  }
  c.line(f.x0, f.y0, f.x0, f.y1, kBlack);
  c.line(f.x0, f.y1, f.x1, f.y1, kBlack);
}

// X axis ticks of the frame's numeric range and the axis label, centred below it.
void draw_x_axis(Canvas& c, const Frame& f, const std::string& label) {
  for (double t : nice_ticks(f.xlo, f.xhi, 8)) {
    if (t < f.xlo || t > f.xhi) continue;
    const int x = f.x_of(t);
    c.line(x, f.y1, x, f.y1 + 4, kBlack);
    const std::string tick = format_tick(t);
    c.text(x - Canvas::text_width(tick) / 2, f.y1 + 8, tick, kBlack);
  }
  c.text((f.x0 + f.x1 - Canvas::text_width(label)) / 2, f.y1 + 26, label, kBlack);
}

void draw_legend(Canvas& c, const std::vector<std::string>& names, int x, int y) {
  for (size_t i = 0; i < names.size(); ++i) {
    const int yy = y + static_cast<int>(i) * 16;
    c.fill_rect(x, yy, x + 10, yy + 9, palette_color(i));
    c.text(x + 16, yy + 1, fit(names[i], kLegend - 26, 1), kBlack);
  }
}

void range_of(const std::vector<double>& v, double* lo, double* hi) {
  *lo = 0;
  *hi = 1;
  if (v.empty()) return;
  *lo = *std::min_element(v.begin(), v.end());
  *hi = *std::max_element(v.begin(), v.end());
  if (*hi - *lo < 1e-12) {
    *lo -= 0.5;
    *hi += 0.5;
  }
  const std::vector<double> t = nice_ticks(*lo, *hi);
  *lo = std::min(*lo, t.front());
  *hi = std::max(*hi, t.back());
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double t = std::floor(lo / step) * step; t <= hi + step * 0.999; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    if (ticks.size() > 50) break;
  }
  return ticks;
}

Canvas grouped_bar_chart(const std::string& title, const std::vector<std::string>& groups,
                         const std::vector<std::string>& series,
                         const std::vector<std::vector<std::optional<double>>>& values) {
  Canvas c(kWidth, kHeight);
  draw_title(c, title);
  std::vector<double> all = {0.0};
  for (const auto& row : values)
    for (const auto& v : row)
      if (v && std::isfinite(*v)) all.push_back(*v);
  Frame f{kLeft, kTop, kWidth - kLegend - 10, kHeight - kBottom, 0, 1};
  range_of(all, &f.lo, &f.hi);
  draw_y_axis(c, f);
  const int n_groups = std::max<int>(1, static_cast<int>(groups.size()));
  const int n_series = std::max<int>(1, static_cast<int>(series.size()));
  const double group_w = static_cast<double>(f.x1 - f.x0) / n_groups;
  const double bar_w = group_w * 0.8 / n_series;
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
    const int gx = f.x0 + static_cast<int>(g * group_w);
    for (int s = 0; s < static_cast<int>(series.size()); ++s) {
      const int bx0 = gx + static_cast<int>(group_w * 0.1 + s * bar_w);
      const int bx1 = bx0 + std::max(1, static_cast<int>(bar_w) - 1);
      const auto& v = values[static_cast<size_t>(s)][static_cast<size_t>(g)];
      if (!v || !std::isfinite(*v)) {
        c.text_vertical(bx0 + std::max(0, (bx1 - bx0 - 7) / 2), f.y1 - 3, "n/a", kGrey);
        continue;
      }
      c.fill_rect(bx0, f.y_of(*v), bx1, f.y_of(0), palette_color(static_cast<size_t>(s)));
    }
    const std::string label = fit(groups[static_cast<size_t>(g)], static_cast<int>(group_w) - 4, 1);
    c.text(gx + (static_cast<int>(group_w) - Canvas::text_width(label)) / 2, f.y1 + 8, label,
           kBlack);
  }
  draw_legend(c, series, kWidth - kLegend + 4, kTop);
  return c;
}

Canvas line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                  const std::vector<LineSeries>& series) {
  Canvas c(kWidth, kHeight);
  draw_title(c, title);
  std::vector<double> xs, ys;
  for (const LineSeries& s : series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
        xs.push_back(s.x[i]);
        ys.push_back(s.y[i]);
      }
    }
  }
  Frame f{kLeft, kTop, kWidth - kLegend - 10, kHeight - kBottom, 0, 1};
  range_of(ys, &f.lo, &f.hi);
  range_of(xs, &f.xlo, &f.xhi);
  if (xs.empty()) f.xlo = 0, f.xhi = 1;
  draw_y_axis(c, f);
  draw_x_axis(c, f, x_label);
  c.text_vertical(12, (f.y0 + f.y1 + Canvas::text_width(y_label)) / 2, y_label, kBlack);
  for (size_t s = 0; s < series.size(); ++s) {
    const LineSeries& ls = series[s];
    for (size_t i = 0; i < ls.x.size() && i < ls.y.size(); ++i) {
      const int x = f.x_of(ls.x[i]), y = f.y_of(ls.y[i]);
      c.fill_rect(x - 2, y - 2, x + 2, y + 2, palette_color(s));
      if (i > 0) c.line(f.x_of(ls.x[i - 1]), f.y_of(ls.y[i - 1]), x, y, palette_color(s), 2);
    }
  }
  std::vector<std::string> names;
  for (const LineSeries& s : series) names.push_back(s.name);
  draw_legend(c, names, kWidth - kLegend + 4, kTop);
  return c;
}

Canvas scatter_chart(const std::string& title, const std::vector<ScatterPoint>& points,
                     const std::vector<std::string>& group_names) {
  Canvas c(kWidth, kHeight);
  draw_title(c, title);
  std::vector<double> xs, ys;
  for (const ScatterPoint& p : points) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  Frame f{kLeft, kTop, kWidth - kLegend - 10, kHeight - kBottom, 0, 1};
  range_of(ys, &f.lo, &f.hi);
  range_of(xs, &f.xlo, &f.xhi);
  draw_y_axis(c, f);
  draw_x_axis(c, f, "PC1");
  c.text_vertical(12, (f.y0 + f.y1) / 2 + 9, "PC2", kBlack);
  for (const ScatterPoint& p : points) {
    const int x = f.x_of(p.x), y = f.y_of(p.y);
    const Rgb col = palette_color(p.group);
    c.fill_rect(x - 3, y - 3, x + 3, y + 3, col);
  }
  draw_legend(c, group_names, kWidth - kLegend + 4, kTop);
  return c;
}

}  // namespace morpheus
