// Chart layout: axes on "nice" ticks (1, 2 or 5 times a power of ten, or
// whole decades on a log axis), panels stacked, colours and sizes from
// chart_palette.h, which the web UI shares.
#include "profile/chart/chart_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace dlp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kStyleCount = 3 * kSeriesColorCount;  // colours × (solid, dashed, dotted)

struct Range {
  double lo = kInf, hi = -kInf;
  void Add(double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
};

// Axis bounds on whole ticks, and the tick step (on a log axis, in decades).
struct Axis {
  double lo = 0, hi = 1, step = 0.2;
  bool log = false;
  double At(double v) const { return (v - lo) / (hi - lo); }  // [0, 1]
};

double NiceStep(double span, int ticks) {
  const double raw = span / ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * magnitude;
}

Axis FitAxis(Range r, int ticks, bool log) {
  if (r.lo > r.hi) r = {0, 1};
  if (r.hi == r.lo) {
    const double pad = log ? 0.5 : std::max(1e-9, std::abs(r.lo) * 0.1);
    r = {r.lo - pad, r.hi + pad};
  }
  Axis a;
  a.log = log;
  a.step = NiceStep(r.hi - r.lo, ticks);
  if (log) a.step = std::max(1.0, std::round(a.step));
  a.lo = std::floor(r.lo / a.step) * a.step;
  a.hi = std::ceil(r.hi / a.step) * a.step;
  return a;
}

// The value a point is drawn at: log10 on a log axis (nothing for v <= 0).
double Scaled(double v, bool log) {
  if (!log) return v;
  return v > 0 ? std::log10(v) : std::numeric_limits<double>::quiet_NaN();
}

// A tick value with as many decimals as the step needs: 0.25, 1500, 1e+06.
std::string TickLabel(double v, const Axis& axis) {
  char text[32];
  if (axis.log) {
    std::snprintf(text, sizeof(text), "%g", std::pow(10, std::round(v)));
    return text;
  }
  const double step = axis.step;
  if (std::abs(v) < step / 2) v = 0;  // not "-0" or "1e-17"
  const double mag = std::max(std::abs(v), step);
  if (mag >= 1e6 || mag < 1e-4) {
    std::snprintf(text, sizeof(text), "%.3g", v);
  } else {
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    std::snprintf(text, sizeof(text), "%.*f", decimals, v);
  }
  return text;
}

ChartColor SeriesColor(size_t s) { return kSeriesColors[s % kSeriesColorCount]; }
Dash SeriesDash(size_t s) {
  const size_t cycle = (s / kSeriesColorCount) % 3;
  return cycle == 0 ? Dash::kSolid : cycle == 1 ? Dash::kDashed : Dash::kDotted;
}

// One panel in the band [top, bottom) of the image.
void DrawPanel(Painter& p, const ChartData& chart, const ChartPanelData& panel, double top,
               double bottom) {
  const double w = chart.width, font = kChartFontSize;
  Range xr, yr;
  for (size_t s = 0; s < panel.series_count; ++s) {
    const ChartSeriesData& series = panel.series[s];
    for (size_t i = 0; i < series.count; ++i) {
      const double y = Scaled(series.y[i], panel.log_y);
      if (std::isfinite(series.x[i]) && std::isfinite(y)) xr.Add(series.x[i]), yr.Add(y);
    }
  }
  const double band = bottom - top;
  const Axis x = FitAxis(xr, std::max(2, static_cast<int>(w / 100)), false);
  const Axis y = FitAxis(yr, std::max(2, static_cast<int>(band / 60)), panel.log_y);

  double ly = top + font * 1.2;
  if (panel.title[0] != '\0') {
    p.Text(panel.title, w / 2, ly, 0.5, font * 1.1, kChartText);
    ly += font * 1.5;
  }
  double lx = 70;
  auto legend_item = [&](const std::string& label, double swatch_width) {
    const double item = swatch_width + 6 + p.TextWidth(label, font) + 16;
    if (lx + item > w - 10 && lx > 70) lx = 70, ly += font * 1.5;
    const double at = lx;
    lx += item;
    return at;
  };
  for (size_t s = 0; s < panel.series_count; ++s) {
    const std::string label = panel.series[s].label;
    const double at = legend_item(label, 22);
    p.Polyline({{at, ly - font * 0.35}, {at + 22, ly - font * 0.35}}, SeriesColor(s), 3,
               SeriesDash(s));
    p.Text(label, at + 28, ly, 0, font, kChartText);
  }
  if (panel.series_count > static_cast<size_t>(kStyleCount)) {
    const std::string note = "(more series than line styles: styles repeat after " +
                             std::to_string(kStyleCount) + ")";
    p.Text(note, legend_item(note, 0), ly, 0, font, kChartAxis);
  }

  // The plot area: room for the y tick labels on the left and x's below.
  double label_width = 0;
  for (double v = y.lo; v <= y.hi + y.step / 2; v += y.step) {
    label_width = std::max(label_width, p.TextWidth(TickLabel(v, y), font));
  }
  const double left = std::max(60.0, label_width + font * 2.5), right = w - 20;
  const double plot_top = ly + font, plot_bottom = bottom - font * 3.5;
  if (right - left < 10 || plot_bottom - plot_top < 10) return;
  auto px = [&](double v) { return left + x.At(v) * (right - left); };
  auto py = [&](double v) { return plot_bottom - y.At(v) * (plot_bottom - plot_top); };

  for (double v = y.lo; v <= y.hi + y.step / 2; v += y.step) {
    const double at = std::round(py(v)) + 0.5;
    p.Polyline({{left, at}, {right, at}}, kChartGrid, 1, Dash::kSolid);
    p.Text(TickLabel(v, y), left - 6, py(v) + font * 0.35, 1, font, kChartText);
  }
  for (double v = x.lo; v <= x.hi + x.step / 2; v += x.step) {
    const double at = std::round(px(v)) + 0.5;
    p.Polyline({{at, plot_top}, {at, plot_bottom}}, kChartGrid, 1, Dash::kSolid);
    p.Text(TickLabel(v, x), px(v), plot_bottom + font * 1.4, 0.5, font, kChartText);
  }
  p.Polyline({{left + 0.5, plot_top}, {left + 0.5, plot_bottom + 0.5}, {right, plot_bottom + 0.5}},
             kChartAxis, 1, Dash::kSolid);
  p.Text(chart.x_label, (left + right) / 2, bottom - font * 0.8, 0.5, font, kChartText);
  std::string y_label = panel.y_label;
  if (panel.log_y) y_label += " (log scale)";
  p.Text(y_label, font * 1.2, (plot_top + plot_bottom) / 2, 0.5, font, kChartText, true);

  // The series, clipped to the plot; a value that cannot be drawn breaks the line.
  p.BeginClip(left, plot_top, right - left, plot_bottom - plot_top);
  for (size_t s = 0; s < panel.series_count; ++s) {
    const ChartSeriesData& series = panel.series[s];
    const bool markers = series.count <= kChartMarkersUpTo;
    std::vector<std::pair<double, double>> run;
    for (size_t i = 0; i <= series.count; ++i) {
      const double v = i < series.count ? Scaled(series.y[i], panel.log_y) : kInf;
      if (i < series.count && std::isfinite(series.x[i]) && std::isfinite(v)) {
        run.push_back({px(series.x[i]), py(v)});
        continue;
      }
      p.Polyline(run, SeriesColor(s), kChartLineWidth, SeriesDash(s));
      if (markers) {
        for (const auto& [dx, dy] : run) p.Dot(dx, dy, 2.5, SeriesColor(s));
      }
      run.clear();
    }
  }
  p.EndClip();
}

}  // namespace

void DrawChart(Painter& p, const ChartData& chart) {
  const double w = chart.width, h = chart.height, font = kChartFontSize;
  p.Background(kChartBackground);
  p.Text(chart.title, w / 2, font * 1.6, 0.5, font * 1.25, kChartText);
  if (chart.panel_count == 0) return;
  const double top = font * 2.2;
  const double band = (h - top) / static_cast<double>(chart.panel_count);
  for (size_t i = 0; i < chart.panel_count; ++i) {
    DrawPanel(p, chart, chart.panels[i], top + band * static_cast<double>(i),
              top + band * static_cast<double>(i + 1));
  }
}

}  // namespace dlp::internal
