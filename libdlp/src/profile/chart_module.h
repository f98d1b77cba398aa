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
  const double* y;  // non-finite values break the line
  size_t count;
};

enum ChartFormat : int { kChartPng = 0, kChartSvg = 1 };

struct ChartData {
  const char* title;
  const char* x_label;
  const char* y_label;
  const ChartSeriesData* series;
  size_t series_count;
  int width, height;  // pixels (SVG: user units)
  int format;         // ChartFormat
  const char* path;   // the file to write
  char error[160];    // why it failed, when it did
};

// Returns 0 when the file was written, else fills `error`.
using ChartWriteFn = int (*)(ChartData* chart);
inline constexpr char kChartWriteSymbol[] = "dlp_chart_write_v1";
inline constexpr char kChartModuleName[] = "libdlp_chart.so";

}  // namespace dlp::internal
