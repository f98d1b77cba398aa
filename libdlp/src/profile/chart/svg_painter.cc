// Painter writing SVG: lines as <polyline>, dots as <circle>, text as <text>
// (Cairo's SVG surface would write glyph outlines: not selectable, bulky).
#include <cstdio>

#include "profile/chart/painter.h"

namespace dlp::internal {
namespace {

std::string Hex(ChartColor c) {
  char text[8];
  std::snprintf(text, sizeof(text), "#%02x%02x%02x", c.r, c.g, c.b);
  return text;
}

std::string Num(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", v);
  return text;
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '"') {
      out += "&quot;";
    } else {
      out += c;
    }
  }
  return out;
}

SvgPainter::SvgPainter(int width, int height)
    : width_(width),
      height_(height),
      measure_surface_(cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1)),
      measure_cr_(cairo_create(measure_surface_)),
      measure_(new CairoPainter(measure_cr_)) {}

SvgPainter::~SvgPainter() {
  delete measure_;
  cairo_destroy(measure_cr_);
  cairo_surface_destroy(measure_surface_);
}

void SvgPainter::Background(ChartColor c) {
  body_ += "<rect width=\"100%\" height=\"100%\" fill=\"" + Hex(c) + "\"/>\n";
}

void SvgPainter::Polyline(const std::vector<std::pair<double, double>>& points, ChartColor c,
                          double width, Dash dash) {
  if (points.size() < 2) return;
  body_ += "<polyline fill=\"none\" stroke-linejoin=\"round\" stroke=\"" + Hex(c) +
           "\" stroke-width=\"" + Num(width) + "\"";
  if (dash == Dash::kDashed) body_ += " stroke-dasharray=\"6 4\"";
  if (dash == Dash::kDotted) body_ += " stroke-dasharray=\"1.5 3\"";
  body_ += " points=\"";
  for (const auto& [x, y] : points) body_ += Num(x) + "," + Num(y) + " ";
  body_.back() = '"';
  body_ += "/>\n";
}

void SvgPainter::Dot(double x, double y, double radius, ChartColor c) {
  body_ += "<circle cx=\"" + Num(x) + "\" cy=\"" + Num(y) + "\" r=\"" + Num(radius) +
           "\" fill=\"" + Hex(c) + "\"/>\n";
}

void SvgPainter::Text(const std::string& text, double x, double y, double align, double size,
                      ChartColor c, bool vertical) {
  const char* anchor = align <= 0.25 ? "start" : align >= 0.75 ? "end" : "middle";
  body_ += "<text x=\"" + Num(x) + "\" y=\"" + Num(y) +
           "\" font-family=\"sans-serif\" font-size=\"" + Num(size) + "\" fill=\"" + Hex(c) +
           "\" text-anchor=\"" + anchor + "\"";
  if (vertical) body_ += " transform=\"rotate(-90 " + Num(x) + " " + Num(y) + ")\"";
  body_ += ">" + XmlEscape(text) + "</text>\n";
}

double SvgPainter::TextWidth(const std::string& text, double size) {
  return measure_->TextWidth(text, size);
}

void SvgPainter::BeginClip(double x, double y, double w, double h) {
  const std::string id = "clip" + std::to_string(clips_++);
  body_ += "<clipPath id=\"" + id + "\"><rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" +
           Num(w) + "\" height=\"" + Num(h) + "\"/></clipPath>\n<g clip-path=\"url(#" + id +
           ")\">\n";
}

void SvgPainter::EndClip() { body_ += "</g>\n"; }

std::string SvgPainter::Document(const std::string& title, const std::string& desc) const {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
         "width=\"" + std::to_string(width_) + "\" height=\"" + std::to_string(height_) +
         "\" viewBox=\"0 0 " + std::to_string(width_) + " " + std::to_string(height_) +
         "\">\n<title>" + XmlEscape(title) + "</title>\n<desc>" + XmlEscape(desc) + "</desc>\n" +
         body_ + "</svg>\n";
}

}  // namespace dlp::internal
