// Terminal charts in braille: each character cell holds 2×4 dots (U+2800 +
// a bit per dot), so a W×H-cell chart has 2W×4H dots. Series are drawn as
// line segments between consecutive points (Bresenham), each in its own cell
// colour; where two series share a cell the later one wins the colour.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dlp/profile.h"
#include "profile/chart_scale.h"

namespace dlp {
namespace {

// Bit of dot (x, y) within a cell, x in 0..1, y in 0..3 from the top.
int DotBit(int x, int y) {
  static const int kBits[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
  return kBits[y][x];
}

std::string Utf8(int codepoint) {
  std::string s;
  s += static_cast<char>(0xE0 | (codepoint >> 12));
  s += static_cast<char>(0x80 | ((codepoint >> 6) & 0x3F));
  s += static_cast<char>(0x80 | (codepoint & 0x3F));
  return s;
}

const char* kColors[] = {"\033[34m", "\033[31m", "\033[32m", "\033[33m", "\033[35m", "\033[36m"};
const char* kMarks[] = {"●", "■", "▲", "◆", "○", "□"};

}  // namespace

std::string PlotText(const std::vector<Series>& series, int width, int height,
                     const std::string& title, bool color) {
  width = std::max(width, 10);
  height = std::max(height, 3);
  internal::ChartScale scale = internal::ChartScale::Fit(series);
  const int dw = width * 2, dh = height * 4;
  std::vector<int> bits(width * height, 0), owner(width * height, -1);
  auto set = [&](int x, int y, int s) {
    if (x < 0 || y < 0 || x >= dw || y >= dh) return;
    const int cell = (y / 4) * width + x / 2;
    bits[cell] |= DotBit(x % 2, y % 4);
    owner[cell] = s;
  };
  for (size_t s = 0; s < series.size(); ++s) {
    int px = -1, py = -1;
    for (const auto& [xv, yv] : series[s].points) {
      if (!std::isfinite(yv)) continue;
      int x = static_cast<int>(std::lround(scale.X(xv) * (dw - 1)));
      int y = static_cast<int>(std::lround((1 - scale.Y(yv)) * (dh - 1)));
      if (px < 0) {
        set(x, y, static_cast<int>(s));
      } else {  // Bresenham from the previous point
        int dx = std::abs(x - px), sx = px < x ? 1 : -1;
        int dy = -std::abs(y - py), sy = py < y ? 1 : -1;
        int err = dx + dy, cx = px, cy = py;
        while (true) {
          set(cx, cy, static_cast<int>(s));
          if (cx == x && cy == y) break;
          int e2 = 2 * err;
          if (e2 >= dy) { err += dy; cx += sx; }
          if (e2 <= dx) { err += dx; cy += sy; }
        }
      }
      px = x;
      py = y;
    }
  }
  std::string out;
  if (!title.empty()) absl::StrAppend(&out, title, "\n");
  const std::string top = absl::StrFormat("%.4g", scale.y_max);
  const std::string bottom = absl::StrFormat("%.4g", scale.y_min);
  const size_t label_w = std::max(top.size(), bottom.size());
  for (int row = 0; row < height; ++row) {
    std::string label = row == 0 ? top : row == height - 1 ? bottom : "";
    absl::StrAppend(&out, std::string(label_w - label.size(), ' '), label, " ┤");
    for (int col = 0; col < width; ++col) {
      const int cell = row * width + col;
      if (bits[cell] == 0) {
        out += ' ';
        continue;
      }
      if (color) out += kColors[owner[cell] % 6];
      out += Utf8(0x2800 + bits[cell]);
      if (color) out += "\033[0m";
    }
    out += "\n";
  }
  const std::string x0 = absl::StrFormat("%.6g", scale.x_min);
  const std::string x1 = absl::StrFormat("%.6g", scale.x_max);
  absl::StrAppend(&out, std::string(label_w + 1, ' '), "└", std::string(width, '-'), "\n");
  const int gap = std::max(1, width - static_cast<int>(x0.size() + x1.size()));
  absl::StrAppend(&out, std::string(label_w + 2, ' '), x0, std::string(gap, ' '), x1, "\n");
  for (size_t s = 0; s < series.size(); ++s) {
    if (color) out += kColors[s % 6];
    absl::StrAppend(&out, "  ", kMarks[s % 6], " ", series[s].label);
    if (color) out += "\033[0m";
    out += "\n";
  }
  if (series.size() > 6) {
    absl::StrAppend(&out, "  (", series.size(),
                    " series share 6 colours)\n");
  }
  return out;
}

}  // namespace dlp
