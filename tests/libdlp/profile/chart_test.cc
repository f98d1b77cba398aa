// Chart images drawn by the chart module: a PNG that decodes (signature,
// chunks with good CRCs, IHDR dimensions, IDAT inflating to exactly the
// rows IHDR announces) and stays small; an SVG naming its series; smoothing.
#include <zlib.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "dlp/profile.h"
#include "gtest/gtest.h"
#include "support/temp_dir.h"

namespace dlp {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

uint32_t Be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) |
         (uint32_t(uint8_t(s[at + 2])) << 8) | uint32_t(uint8_t(s[at + 3]));
}

struct DecodedPng {
  uint32_t width = 0, height = 0;
  int bytes_per_pixel = 0;
  size_t pixels_bytes = 0;  // inflated IDAT
};

// Walks the chunks, checking each CRC, and inflates the image data.
DecodedPng Decode(const std::string& png) {
  DecodedPng out;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::string idat;
  for (size_t at = 8; at + 12 <= png.size();) {
    const uint32_t length = Be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    EXPECT_LE(at + 12 + length, png.size()) << type;
    const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(png.data() + at + 4), length + 4);
    EXPECT_EQ(crc, Be32(png, at + 8 + length)) << "CRC of " << type;
    if (type == "IHDR") {
      out.width = Be32(png, at + 8);
      out.height = Be32(png, at + 12);
      const int color_type = uint8_t(png[at + 17]);
      out.bytes_per_pixel = color_type == 6 ? 4 : color_type == 2 ? 3 : 0;
      EXPECT_EQ(uint8_t(png[at + 16]), 8) << "bit depth";
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, length);
    }
    at += 12 + length;
  }
  std::string pixels(size_t{out.height} * (1 + out.width * out.bytes_per_pixel) + 1, '\0');
  uLongf size = pixels.size();
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(pixels.data()), &size,
                       reinterpret_cast<const Bytef*>(idat.data()), idat.size()),
            Z_OK);
  out.pixels_bytes = size;
  return out;
}

std::vector<Series> TwoNoisyCurves(int points) {
  Series train{"job 12/worker-0", {}}, eval{"job 13/worker-0", {}};
  for (int i = 0; i < points; ++i) {
    const double noise = 0.05 * std::sin(i * 1.7) + 0.03 * std::cos(i * 3.1);
    train.points.push_back({double(i), 2.3 * std::exp(-i / 150.0) + noise});
    eval.points.push_back({double(i), 2.0 * std::exp(-i / 200.0) + 0.2 + noise / 2});
  }
  return {train, eval};
}

TEST(Chart, APngOfTwo600PointSeriesDecodesAndStaysUnder100KB) {
  testing::TempDir dir;
  ChartOptions options;
  options.title = "loss by step";
  options.y_label = "loss";
  const std::string path = dir.Join("loss.png");
  absl::Status written = WriteChart(TwoNoisyCurves(600), options, ChartImageFormat::kPng, path);
  ASSERT_TRUE(written.ok()) << written;
  const std::string png = Slurp(path);
  EXPECT_LT(png.size(), 100u * 1024) << "bytes";
  const DecodedPng decoded = Decode(png);
  EXPECT_EQ(decoded.width, 800u);
  EXPECT_EQ(decoded.height, 480u);
  ASSERT_GT(decoded.bytes_per_pixel, 0);
  EXPECT_EQ(decoded.pixels_bytes, size_t{480} * (1 + 800 * decoded.bytes_per_pixel));
}

TEST(Chart, AnSvgNamesItsTitleAndSeries) {
  testing::TempDir dir;
  ChartOptions options;
  options.title = "accuracy <by> step";
  options.width = 640;
  options.height = 400;
  const std::string path = dir.Join("acc.svg");
  ASSERT_TRUE(WriteChart(TwoNoisyCurves(50), options, ChartImageFormat::kSvg, path).ok());
  const std::string svg = Slurp(path);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("width=\"640"), std::string::npos);
  EXPECT_NE(svg.find("<title>accuracy &lt;by&gt; step</title>"), std::string::npos);
  EXPECT_NE(svg.find("job 12/worker-0"), std::string::npos);
  EXPECT_NE(svg.find("job 13/worker-0"), std::string::npos);
}

TEST(Chart, AnUnwritablePathIsAnError) {
  testing::TempDir dir;
  absl::Status status =
      WriteChart(TwoNoisyCurves(10), {}, ChartImageFormat::kPng, dir.Join("no/such/dir/c.png"));
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no/such/dir/c.png"), std::string::npos) << status;
}

TEST(Chart, SmoothingIsATrailingMean) {
  Series s{"a", {{0, 1}, {1, 3}, {2, 5}, {3, 7}}};
  std::vector<Series> smooth = SmoothSeries({s}, 2);
  ASSERT_EQ(smooth[0].points.size(), 4u);
  EXPECT_DOUBLE_EQ(smooth[0].points[0].second, 1);
  EXPECT_DOUBLE_EQ(smooth[0].points[1].second, 2);
  EXPECT_DOUBLE_EQ(smooth[0].points[2].second, 4);
  EXPECT_DOUBLE_EQ(smooth[0].points[3].second, 6);
  EXPECT_DOUBLE_EQ(smooth[0].points[3].first, 3);
  EXPECT_EQ(SmoothSeries({s}, 1)[0].points, s.points);
}

}  // namespace
}  // namespace dlp
