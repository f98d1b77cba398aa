// The data range of a chart, shared by the terminal and PNG renderers.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "dlp/profile.h"

namespace dlp::internal {

struct ChartScale {
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;

  static ChartScale Fit(const std::vector<Series>& series) {
    ChartScale s;
    double inf = std::numeric_limits<double>::infinity();
    double x0 = inf, x1 = -inf, y0 = inf, y1 = -inf;
    for (const Series& sr : series) {
      for (const auto& [x, y] : sr.points) {
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
      }
    }
    if (x0 == inf) return s;
    if (x1 == x0) x1 = x0 + 1;
    if (y1 == y0) y1 = y0 + std::max(1e-9, std::abs(y0) * 0.1), y0 -= (y1 - y0);
    s.x_min = x0, s.x_max = x1, s.y_min = y0, s.y_max = y1;
    return s;
  }
  // Positions in [0, 1].
  double X(double x) const { return (x - x_min) / (x_max - x_min); }
  double Y(double y) const { return (y - y_min) / (y_max - y_min); }
};

}  // namespace dlp::internal
