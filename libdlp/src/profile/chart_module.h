// The chart module's interface: libdlp_chart.so (Cairo) draws PNG and SVG
// line charts and is opened with dlopen on first use (common/dlp_module.h),
// so that `dlp` loads Cairo and its two dozen libraries only to draw. A
// C-style ABI: plain types, an entry point whose name carries the version.
#pragma once

#include <cstddef>

namespace dlp::internal {

struct ChartSeriesData {
  const char* label;
  const double* x;
  const double* y;  // non-finite values (and, on a log axis, values <= 0) break the line
  size_t count;
};

// One plot of the image: panels are stacked top to bottom, sharing the x axis's name.
struct ChartPanelData {
  const char* title;    // may be empty
  const char* y_label;
  const ChartSeriesData* series;
  size_t series_count;
  int log_y;  // 1: the y axis is logarithmic (base 10)
};

enum ChartFormat : int { kChartPng = 0, kChartSvg = 1 };

struct ChartData {
  const char* title;
  const char* x_label;
  const ChartPanelData* panels;
  size_t panel_count;
  int width, height;  // of the whole image, pixels (SVG: user units)
  int format;         // ChartFormat
  const char* path;   // the file to write
  char error[160];    // why it failed, when it did
};

// Returns 0 when the file was written, else fills `error`.
using ChartWriteFn = int (*)(ChartData* chart);
// The symbol names the layout of ChartData: a module built for another layout
// (an older install's) is not found, rather than called with the wrong one.
inline constexpr char kChartWriteSymbol[] = "dlp_chart_write_v2";
inline constexpr char kChartModuleName[] = "libdlp_chart.so";

// Series drawn with a mark at each point: short ones, whose few points a line hides.
inline constexpr size_t kChartMarkersUpTo = 40;

}  // namespace dlp::internal
