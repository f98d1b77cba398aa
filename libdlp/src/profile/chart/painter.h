// What the chart layout (chart_layout.cc) draws with: lines, dots and text in
// image coordinates. CairoPainter draws on a Cairo surface (the PNG);
// SvgPainter writes SVG elements itself, text as <text> (selectable,
// searchable, small), measuring it with Cairo so that both lay out alike.
#pragma once

#include <cairo.h>

#include <string>
#include <utility>
#include <vector>

#include "profile/chart_palette.h"

namespace dlp::internal {

// Line styles, so that series past the palette's ten colours are still told apart.
enum class Dash { kSolid, kDashed, kDotted };

class Painter {
 public:
  virtual ~Painter() = default;
  virtual void Background(ChartColor c) = 0;
  // A line through `points` (at least two).
  virtual void Polyline(const std::vector<std::pair<double, double>>& points, ChartColor c,
                        double width, Dash dash) = 0;
  virtual void Dot(double x, double y, double radius, ChartColor c) = 0;
  // `text` with its baseline at y; `align` 0 left, 0.5 centred, 1 right;
  // `vertical` turns it a quarter left around (x, y).
  virtual void Text(const std::string& text, double x, double y, double align, double size,
                    ChartColor c, bool vertical = false) = 0;
  virtual double TextWidth(const std::string& text, double size) = 0;
  // Until EndClip, only the rectangle is drawn on.
  virtual void BeginClip(double x, double y, double w, double h) = 0;
  virtual void EndClip() = 0;
};

class CairoPainter : public Painter {
 public:
  explicit CairoPainter(cairo_t* cr);
  void Background(ChartColor c) override;
  void Polyline(const std::vector<std::pair<double, double>>& points, ChartColor c, double width,
                Dash dash) override;
  void Dot(double x, double y, double radius, ChartColor c) override;
  void Text(const std::string& text, double x, double y, double align, double size, ChartColor c,
            bool vertical) override;
  double TextWidth(const std::string& text, double size) override;
  void BeginClip(double x, double y, double w, double h) override;
  void EndClip() override;

 private:
  cairo_t* cr_;
};

class SvgPainter : public Painter {
 public:
  SvgPainter(int width, int height);
  ~SvgPainter() override;
  void Background(ChartColor c) override;
  void Polyline(const std::vector<std::pair<double, double>>& points, ChartColor c, double width,
                Dash dash) override;
  void Dot(double x, double y, double radius, ChartColor c) override;
  void Text(const std::string& text, double x, double y, double align, double size, ChartColor c,
            bool vertical) override;
  double TextWidth(const std::string& text, double size) override;
  void BeginClip(double x, double y, double w, double h) override;
  void EndClip() override;
  // The document, with `title` and `desc` for search and screen readers.
  std::string Document(const std::string& title, const std::string& desc) const;

 private:
  int width_, height_;
  int clips_ = 0;
  std::string body_;
  // For TextWidth only.
  cairo_surface_t* measure_surface_;
  cairo_t* measure_cr_;
  CairoPainter* measure_;
};

std::string XmlEscape(const std::string& text);

}  // namespace dlp::internal
