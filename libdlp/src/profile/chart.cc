// Chart images for `dlp metrics --png/--svg`: the panels handed to the chart
// module (chart_module.h), loaded on first use; smoothing and log scales.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/dlp_module.h"
#include "dlp/profile.h"
#include "profile/chart_module.h"

namespace dlp {
namespace {

absl::StatusOr<internal::ChartWriteFn> LoadChartModule() {
  static const absl::StatusOr<void*>* const kLoaded =
      new absl::StatusOr<void*>(internal::LoadModuleSymbol(
          internal::kChartModuleName, internal::kChartWriteSymbol,
          "chart images need dlp's chart module (built where Cairo is installed)"));
  if (!kLoaded->ok()) return kLoaded->status();
  return reinterpret_cast<internal::ChartWriteFn>(**kLoaded);
}

// The module's view of the panels; the vectors own what the pointers point into.
struct ModuleData {
  std::vector<std::vector<double>> xs, ys;
  std::vector<std::vector<internal::ChartSeriesData>> series;
  std::vector<internal::ChartPanelData> panels;
};

void Fill(const std::vector<ChartPanel>& panels, bool log_y, ModuleData& data) {
  size_t total = 0;
  for (const ChartPanel& panel : panels) total += panel.series.size();
  data.xs.resize(total);
  data.ys.resize(total);
  data.series.resize(panels.size());
  size_t n = 0;
  for (size_t p = 0; p < panels.size(); ++p) {
    for (const Series& s : panels[p].series) {
      for (const auto& [x, y] : s.points) data.xs[n].push_back(x), data.ys[n].push_back(y);
      data.series[p].push_back({s.label.c_str(), data.xs[n].data(), data.ys[n].data(),
                                data.xs[n].size()});
      ++n;
    }
    data.panels.push_back({panels[p].title.c_str(), panels[p].y_label.c_str(),
                           data.series[p].data(), data.series[p].size(), log_y ? 1 : 0});
  }
}

}  // namespace

std::vector<Series> SmoothSeries(std::vector<Series> series, int n) {
  if (n <= 1) return series;
  for (Series& s : series) {
    double sum = 0;
    std::vector<double> ys;
    for (size_t i = 0; i < s.points.size(); ++i) {
      ys.push_back(s.points[i].second);
      sum += ys.back();
      if (ys.size() > static_cast<size_t>(n)) sum -= ys[ys.size() - 1 - n];
      s.points[i].second = sum / static_cast<double>(std::min<size_t>(ys.size(), n));
    }
  }
  return series;
}

std::vector<Series> Log10Series(std::vector<Series> series) {
  for (Series& s : series) {
    for (auto& point : s.points) {
      point.second = point.second > 0 ? std::log10(point.second)
                                      : std::numeric_limits<double>::quiet_NaN();
    }
  }
  return series;
}

absl::Status WriteCharts(const std::vector<ChartPanel>& panels, const ChartOptions& options,
                         ChartImageFormat format, const std::string& path) {
  absl::StatusOr<internal::ChartWriteFn> write = LoadChartModule();
  if (!write.ok()) return write.status();
  ModuleData data;
  Fill(panels, options.log_y, data);
  const int count = std::max<int>(1, static_cast<int>(panels.size()));
  internal::ChartData chart = {};
  chart.title = options.title.c_str();
  chart.x_label = options.x_label.c_str();
  chart.panels = data.panels.data();
  chart.panel_count = data.panels.size();
  chart.width = std::clamp(options.width, 64, 8192);
  const int per_panel = std::min(std::max(options.height, 64), std::max(1, 8192 / count));
  chart.height = std::max(64, per_panel * count);
  chart.format = format == ChartImageFormat::kSvg ? internal::kChartSvg : internal::kChartPng;
  chart.path = path.c_str();
  if ((*write)(&chart) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot write ", path, ": ", chart.error));
  }
  return absl::OkStatus();
}

absl::Status WriteChart(const std::vector<Series>& series, const ChartOptions& options,
                        ChartImageFormat format, const std::string& path) {
  return WriteCharts({ChartPanel{"", options.y_label, series}}, options, format, path);
}

}  // namespace dlp
