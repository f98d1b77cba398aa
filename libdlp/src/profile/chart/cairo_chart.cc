// libdlp_chart.so: chart images, PNG drawn with Cairo, SVG written as
// elements (text as <text>) with Cairo measuring the text; both from one
// layout (chart_layout.h).
#include <cstdio>
#include <fstream>
#include <string>

#include "profile/chart/chart_layout.h"
#include "profile/chart/painter.h"
#include "profile/chart_module.h"

namespace dlp::internal {
namespace {

int Fail(ChartData* chart, const std::string& why) {
  std::snprintf(chart->error, sizeof(chart->error), "%s", why.c_str());
  return 1;
}

// The series' names, for the SVG's <desc>.
std::string Describe(const ChartData& chart) {
  std::string desc;
  for (size_t i = 0; i < chart.panel_count; ++i) {
    const ChartPanelData& panel = chart.panels[i];
    desc += std::string(desc.empty() ? "" : "; ") + panel.y_label + ": ";
    for (size_t s = 0; s < panel.series_count; ++s) {
      desc += (s ? ", " : "") + std::string(panel.series[s].label);
    }
  }
  return desc + " (x: " + chart.x_label + ")";
}

int WriteSvg(ChartData* chart) {
  SvgPainter painter(chart->width, chart->height);
  DrawChart(painter, *chart);
  std::ofstream out(chart->path, std::ios::binary | std::ios::trunc);
  out << painter.Document(chart->title, Describe(*chart));
  out.flush();
  if (!out) return Fail(chart, "cannot write the file");
  return 0;
}

int WritePng(ChartData* chart) {
  cairo_surface_t* surface =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, chart->width, chart->height);
  cairo_status_t status = cairo_surface_status(surface);
  if (status == CAIRO_STATUS_SUCCESS) {
    cairo_t* cr = cairo_create(surface);
    CairoPainter painter(cr);
    DrawChart(painter, *chart);
    status = cairo_status(cr);
    cairo_destroy(cr);
  }
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png(surface, chart->path);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) return Fail(chart, cairo_status_to_string(status));
  return 0;
}

}  // namespace
}  // namespace dlp::internal

extern "C" __attribute__((visibility("default"))) int dlp_chart_write_v2(
    dlp::internal::ChartData* chart) {
  using namespace dlp::internal;
  chart->error[0] = '\0';
  return chart->format == kChartSvg ? WriteSvg(chart) : WritePng(chart);
}
