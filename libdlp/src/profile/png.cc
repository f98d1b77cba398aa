// A small PNG line-chart writer with no image library: 8-bit RGB, one IDAT of
// stored (uncompressed) deflate blocks, CRC-32 and Adler-32 computed here.
// Charts are a few hundred kilobytes at most, so compression is not worth a
// dependency. No text: the terminal chart carries labels and values.
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "dlp/profile.h"
#include "profile/chart_scale.h"

namespace dlp {
namespace {

uint32_t Crc32(const uint8_t* data, size_t n, uint32_t crc = 0) {
  static const std::array<uint32_t, 256> kTable = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = kTable[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

void Put32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xFF);
}

void Chunk(std::string& out, const char* type, const std::string& data) {
  Put32(out, static_cast<uint32_t>(data.size()));
  std::string body = std::string(type, 4) + data;
  out += body;
  Put32(out, Crc32(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
}

std::string ZlibStored(const std::string& raw) {
  std::string z = "\x78\x01";
  uint32_t a = 1, b = 0;
  for (unsigned char c : raw) a = (a + c) % 65521, b = (b + a) % 65521;
  size_t pos = 0;
  do {
    const size_t n = std::min<size_t>(65535, raw.size() - pos);
    const bool last = pos + n == raw.size();
    z += static_cast<char>(last ? 1 : 0);
    z += static_cast<char>(n & 0xFF), z += static_cast<char>(n >> 8);
    z += static_cast<char>(~n & 0xFF), z += static_cast<char>((~n >> 8) & 0xFF);
    z.append(raw, pos, n);
    pos += n;
  } while (pos < raw.size());
  Put32(z, (b << 16) | a);
  return z;
}

struct Canvas {
  int w, h;
  std::vector<uint8_t> px;  // RGB
  Canvas(int w_, int h_) : w(w_), h(h_), px(static_cast<size_t>(w_) * h_ * 3, 255) {}
  void Set(int x, int y, std::array<uint8_t, 3> c) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    uint8_t* p = &px[(static_cast<size_t>(y) * w + x) * 3];
    p[0] = c[0], p[1] = c[1], p[2] = c[2];
  }
  void Line(int x0, int y0, int x1, int y1, std::array<uint8_t, 3> c, int thick) {
    int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    while (true) {
      for (int i = 0; i < thick; ++i)
        for (int j = 0; j < thick; ++j) Set(x0 + i, y0 + j, c);
      if (x0 == x1 && y0 == y1) break;
      int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
};

const std::array<uint8_t, 3> kPalette[] = {{31, 119, 180}, {214, 39, 40}, {44, 160, 44},
                                            {255, 127, 14}, {148, 103, 189}, {23, 190, 207}};

}  // namespace

absl::Status WritePng(const std::vector<Series>& series, const std::string& path, int width,
                      int height) {
  width = std::clamp(width, 64, 4096);
  height = std::clamp(height, 48, 4096);
  Canvas c(width, height);
  const int left = 40, right = width - 10, top = 10, bottom = height - 30;
  const std::array<uint8_t, 3> axis = {90, 90, 90}, grid = {225, 225, 225};
  for (int i = 1; i < 4; ++i) {
    const int y = top + (bottom - top) * i / 4;
    c.Line(left, y, right, y, grid, 1);
  }
  c.Line(left, top, left, bottom, axis, 1);
  c.Line(left, bottom, right, bottom, axis, 1);
  internal::ChartScale scale = internal::ChartScale::Fit(series);
  for (size_t s = 0; s < series.size(); ++s) {
    int px = -1, py = -1;
    for (const auto& [xv, yv] : series[s].points) {
      if (!std::isfinite(yv)) continue;
      int x = left + static_cast<int>(std::lround(scale.X(xv) * (right - left)));
      int y = bottom - static_cast<int>(std::lround(scale.Y(yv) * (bottom - top)));
      if (px >= 0) c.Line(px, py, x, y, kPalette[s % 6], 2);
      px = x, py = y;
    }
    // Legend: a colour swatch per series along the bottom.
    const int lx = left + static_cast<int>(s) * 24;
    for (int i = 0; i < 16; ++i) c.Line(lx, height - 14 + i / 4, lx + 16, height - 14 + i / 4,
                                        kPalette[s % 6], 1);
  }
  std::string raw;
  raw.reserve(static_cast<size_t>(height) * (width * 3 + 1));
  for (int y = 0; y < height; ++y) {
    raw += '\0';  // filter: none
    raw.append(reinterpret_cast<const char*>(&c.px[static_cast<size_t>(y) * width * 3]),
               static_cast<size_t>(width) * 3);
  }
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  Put32(ihdr, width);
  Put32(ihdr, height);
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, no interlace
  Chunk(png, "IHDR", ihdr);
  Chunk(png, "IDAT", ZlibStored(raw));
  Chunk(png, "IEND", "");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << png;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace dlp
