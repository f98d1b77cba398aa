// libdlp_chart.so: line charts with Cairo, as PNG or SVG. The layout: a title
// on top, a legend row (a line swatch and the series' name each, wrapping)
// below it, the plot with light grid lines at "nice" tick values (1, 2 or 5
// times a power of ten) labelled on both axes, and the axes' names. Colours
// and sizes come from chart_palette.h, which the web UI shares.
#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "profile/chart_module.h"
#include "profile/chart_palette.h"

namespace dlp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Range {
  double lo = kInf, hi = -kInf;
  void Add(double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
};

// Axis bounds on whole ticks, and the tick step.
struct Axis {
  double lo = 0, hi = 1, step = 0.2;
  double At(double v) const { return (v - lo) / (hi - lo); }  // [0, 1]
};

double NiceStep(double span, int ticks) {
  const double raw = span / ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * magnitude;
}

Axis FitAxis(Range r, int ticks) {
  if (r.lo > r.hi) r = {0, 1};
  if (r.hi == r.lo) {
    const double pad = std::max(1e-9, std::abs(r.lo) * 0.1);
    r = {r.lo - pad, r.hi + pad};
  }
  Axis a;
  a.step = NiceStep(r.hi - r.lo, ticks);
  a.lo = std::floor(r.lo / a.step) * a.step;
  a.hi = std::ceil(r.hi / a.step) * a.step;
  return a;
}

// A tick value with as many decimals as the step needs: 0.25, 1500, 1e+06.
std::string TickLabel(double v, double step) {
  char text[32];
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

void SetColor(cairo_t* cr, ChartColor c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

double TextWidth(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

// Draws `text` with its baseline at y; `align` 0 left, 0.5 centred, 1 right.
void Text(cairo_t* cr, const std::string& text, double x, double y, double align) {
  cairo_move_to(cr, x - align * TextWidth(cr, text), y);
  cairo_show_text(cr, text.c_str());
}

void Draw(cairo_t* cr, const ChartData& chart) {
  const double w = chart.width, h = chart.height, font = kChartFontSize;
  SetColor(cr, kChartBackground);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, font);

  Range xr, yr;
  for (size_t s = 0; s < chart.series_count; ++s) {
    const ChartSeriesData& series = chart.series[s];
    for (size_t i = 0; i < series.count; ++i) {
      if (std::isfinite(series.x[i]) && std::isfinite(series.y[i])) {
        xr.Add(series.x[i]), yr.Add(series.y[i]);
      }
    }
  }
  const Axis x = FitAxis(xr, std::max(2, static_cast<int>(w / 100)));
  const Axis y = FitAxis(yr, std::max(2, static_cast<int>(h / 60)));

  // Title, then the legend in rows.
  SetColor(cr, kChartText);
  cairo_set_font_size(cr, font * 1.25);
  Text(cr, chart.title, w / 2, font * 1.6, 0.5);
  cairo_set_font_size(cr, font);
  double lx = 70, ly = font * 3.2;
  for (size_t s = 0; s < chart.series_count; ++s) {
    const std::string label = chart.series[s].label;
    const double item = 28 + TextWidth(cr, label) + 16;
    if (lx + item > w - 10 && lx > 70) lx = 70, ly += font * 1.5;
    SetColor(cr, kSeriesColors[s % kSeriesColorCount]);
    cairo_set_line_width(cr, 3);
    cairo_move_to(cr, lx, ly - font * 0.35);
    cairo_line_to(cr, lx + 22, ly - font * 0.35);
    cairo_stroke(cr);
    SetColor(cr, kChartText);
    Text(cr, label, lx + 28, ly, 0);
    lx += item;
  }

  // The plot area: room for the y tick labels on the left and x's below.
  double label_width = 0;
  for (double v = y.lo; v <= y.hi + y.step / 2; v += y.step) {
    label_width = std::max(label_width, TextWidth(cr, TickLabel(v, y.step)));
  }
  const double left = std::max(60.0, label_width + font * 2.5), right = w - 20;
  const double top = ly + font, bottom = h - font * 3.5;
  if (right - left < 10 || bottom - top < 10) return;
  auto px = [&](double v) { return left + x.At(v) * (right - left); };
  auto py = [&](double v) { return bottom - y.At(v) * (bottom - top); };

  cairo_set_line_width(cr, 1);
  for (double v = y.lo; v <= y.hi + y.step / 2; v += y.step) {
    SetColor(cr, kChartGrid);
    cairo_move_to(cr, left, std::round(py(v)) + 0.5);
    cairo_line_to(cr, right, std::round(py(v)) + 0.5);
    cairo_stroke(cr);
    SetColor(cr, kChartText);
    Text(cr, TickLabel(v, y.step), left - 6, py(v) + font * 0.35, 1);
  }
  for (double v = x.lo; v <= x.hi + x.step / 2; v += x.step) {
    SetColor(cr, kChartGrid);
    cairo_move_to(cr, std::round(px(v)) + 0.5, top);
    cairo_line_to(cr, std::round(px(v)) + 0.5, bottom);
    cairo_stroke(cr);
    SetColor(cr, kChartText);
    Text(cr, TickLabel(v, x.step), px(v), bottom + font * 1.4, 0.5);
  }
  SetColor(cr, kChartAxis);
  cairo_move_to(cr, left + 0.5, top);
  cairo_line_to(cr, left + 0.5, bottom + 0.5);
  cairo_line_to(cr, right, bottom + 0.5);
  cairo_stroke(cr);
  SetColor(cr, kChartText);
  Text(cr, chart.x_label, (left + right) / 2, h - font * 0.8, 0.5);
  cairo_save(cr);
  cairo_translate(cr, font * 1.2, (top + bottom) / 2);
  cairo_rotate(cr, -M_PI / 2);
  Text(cr, chart.y_label, 0, 0, 0.5);
  cairo_restore(cr);

  // The series, clipped to the plot; a non-finite value breaks the line.
  cairo_rectangle(cr, left, top, right - left, bottom - top);
  cairo_clip(cr);
  cairo_set_line_width(cr, kChartLineWidth);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  for (size_t s = 0; s < chart.series_count; ++s) {
    const ChartSeriesData& series = chart.series[s];
    SetColor(cr, kSeriesColors[s % kSeriesColorCount]);
    bool drawing = false;
    for (size_t i = 0; i < series.count; ++i) {
      if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i])) {
        drawing = false;
        continue;
      }
      if (drawing) {
        cairo_line_to(cr, px(series.x[i]), py(series.y[i]));
      } else {
        cairo_move_to(cr, px(series.x[i]), py(series.y[i]));
        drawing = true;
      }
    }
    cairo_stroke(cr);
  }
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

// Cairo writes text as glyph outlines; a <title> and a <desc> naming the
// series keep the chart readable to search and screen readers.
bool DescribeSvg(const ChartData& chart) {
  std::ifstream in(chart.path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string svg = bytes.str();
  const size_t open = svg.find("<svg");
  const size_t end = open == std::string::npos ? open : svg.find('>', open);
  if (end == std::string::npos) return false;
  std::string desc = std::string("Series: ");
  for (size_t s = 0; s < chart.series_count; ++s) {
    desc += (s ? ", " : "") + XmlEscape(chart.series[s].label);
  }
  svg.insert(end + 1, "\n<title>" + XmlEscape(chart.title) + "</title>\n<desc>" + desc +
                          " (x: " + XmlEscape(chart.x_label) + ", y: " + XmlEscape(chart.y_label) +
                          ")</desc>");
  std::ofstream out(chart.path, std::ios::binary | std::ios::trunc);
  out << svg;
  return static_cast<bool>(out.flush());
}

int Fail(ChartData* chart, const std::string& why) {
  std::snprintf(chart->error, sizeof(chart->error), "%s", why.c_str());
  return 1;
}

}  // namespace
}  // namespace dlp::internal

extern "C" __attribute__((visibility("default"))) int dlp_chart_write_v1(
    dlp::internal::ChartData* chart) {
  using namespace dlp::internal;
  chart->error[0] = '\0';
  cairo_surface_t* surface =
      chart->format == kChartSvg
          ? cairo_svg_surface_create(chart->path, chart->width, chart->height)
          : cairo_image_surface_create(CAIRO_FORMAT_RGB24, chart->width, chart->height);
  if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
    const std::string why = cairo_status_to_string(cairo_surface_status(surface));
    cairo_surface_destroy(surface);
    return Fail(chart, why);
  }
  cairo_t* cr = cairo_create(surface);
  Draw(cr, *chart);
  cairo_status_t status = cairo_status(cr);
  cairo_destroy(cr);
  if (status == CAIRO_STATUS_SUCCESS && chart->format == kChartPng) {
    status = cairo_surface_write_to_png(surface, chart->path);
  }
  cairo_surface_finish(surface);
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) return Fail(chart, cairo_status_to_string(status));
  if (chart->format == kChartSvg && !DescribeSvg(*chart)) return Fail(chart, "cannot rewrite");
  return 0;
}
