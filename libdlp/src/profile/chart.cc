// Chart images for `dlp metrics --png/--svg`: the series handed to the chart
// module (chart_module.h), loaded on first use, and their smoothing.
#include <algorithm>

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

absl::Status WriteChart(const std::vector<Series>& series, const ChartOptions& options,
                        ChartImageFormat format, const std::string& path) {
  absl::StatusOr<internal::ChartWriteFn> write = LoadChartModule();
  if (!write.ok()) return write.status();
  std::vector<std::vector<double>> xs(series.size()), ys(series.size());
  std::vector<internal::ChartSeriesData> data;
  for (size_t i = 0; i < series.size(); ++i) {
    for (const auto& [x, y] : series[i].points) xs[i].push_back(x), ys[i].push_back(y);
    data.push_back({series[i].label.c_str(), xs[i].data(), ys[i].data(), xs[i].size()});
  }
  internal::ChartData chart = {};
  chart.title = options.title.c_str();
  chart.x_label = options.x_label.c_str();
  chart.y_label = options.y_label.c_str();
  chart.series = data.data();
  chart.series_count = data.size();
  chart.width = std::clamp(options.width, 64, 8192);
  chart.height = std::clamp(options.height, 64, 8192);
  chart.format = format == ChartImageFormat::kSvg ? internal::kChartSvg : internal::kChartPng;
  chart.path = path.c_str();
  if ((*write)(&chart) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot write ", path, ": ", chart.error));
  }
  return absl::OkStatus();
}

}  // namespace dlp
