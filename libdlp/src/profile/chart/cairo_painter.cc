// Painter on a Cairo context: the PNG charts.
#include <cmath>

#include "profile/chart/painter.h"

namespace dlp::internal {
namespace {

void SetColor(cairo_t* cr, ChartColor c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

}  // namespace

CairoPainter::CairoPainter(cairo_t* cr) : cr_(cr) {
  cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
}

void CairoPainter::Background(ChartColor c) {
  SetColor(cr_, c);
  cairo_paint(cr_);
}

void CairoPainter::Polyline(const std::vector<std::pair<double, double>>& points, ChartColor c,
                            double width, Dash dash) {
  if (points.size() < 2) return;
  SetColor(cr_, c);
  cairo_set_line_width(cr_, width);
  const double dashed[] = {6, 4}, dotted[] = {1.5, 3};
  if (dash == Dash::kDashed) cairo_set_dash(cr_, dashed, 2, 0);
  if (dash == Dash::kDotted) cairo_set_dash(cr_, dotted, 2, 0);
  cairo_move_to(cr_, points[0].first, points[0].second);
  for (size_t i = 1; i < points.size(); ++i) cairo_line_to(cr_, points[i].first, points[i].second);
  cairo_stroke(cr_);
  cairo_set_dash(cr_, nullptr, 0, 0);
}

void CairoPainter::Dot(double x, double y, double radius, ChartColor c) {
  SetColor(cr_, c);
  cairo_new_sub_path(cr_);
  cairo_arc(cr_, x, y, radius, 0, 2 * M_PI);
  cairo_fill(cr_);
}

void CairoPainter::Text(const std::string& text, double x, double y, double align, double size,
                        ChartColor c, bool vertical) {
  cairo_save(cr_);
  SetColor(cr_, c);
  cairo_set_font_size(cr_, size);
  cairo_translate(cr_, x, y);
  if (vertical) cairo_rotate(cr_, -M_PI / 2);
  cairo_move_to(cr_, -align * TextWidth(text, size), 0);
  cairo_show_text(cr_, text.c_str());
  cairo_restore(cr_);
}

double CairoPainter::TextWidth(const std::string& text, double size) {
  cairo_set_font_size(cr_, size);
  cairo_text_extents_t extents;
  cairo_text_extents(cr_, text.c_str(), &extents);
  return extents.x_advance;
}

void CairoPainter::BeginClip(double x, double y, double w, double h) {
  cairo_save(cr_);
  cairo_rectangle(cr_, x, y, w, h);
  cairo_clip(cr_);
}

void CairoPainter::EndClip() { cairo_restore(cr_); }

}  // namespace dlp::internal
