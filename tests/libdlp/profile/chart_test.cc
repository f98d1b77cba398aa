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

namespace dlp {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Chart, SvgTextIsTextNotGlyphOutlines) {
  testing::TempDir dir;
  ChartOptions options;
  options.title = "loss by step";
  options.y_label = "loss";
  const std::string path = dir.Join("loss.svg");
  ASSERT_TRUE(WriteChart(TwoNoisyCurves(600), options, ChartImageFormat::kSvg, path).ok());
  const std::string svg = Slurp(path);
  EXPECT_NE(svg.find(">job 12/worker-0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">loss by step</text>"), std::string::npos);
  EXPECT_EQ(svg.find("<symbol"), std::string::npos) << "glyph outlines";
  EXPECT_LT(svg.size(), 60u * 1024) << "bytes";
}

TEST(Chart, PanelsStackOneMetricEach) {
  testing::TempDir dir;
  std::vector<ChartPanel> panels;
  for (const char* metric : {"loss", "accuracy", "samples_per_s"}) {
    panels.push_back({std::string(metric) + " by step", metric, TwoNoisyCurves(100)});
  }
  ChartOptions options;
  options.height = 300;
  const std::string path = dir.Join("all.svg");
  ASSERT_TRUE(WriteCharts(panels, options, ChartImageFormat::kSvg, path).ok());
  const std::string svg = Slurp(path);
  EXPECT_NE(svg.find("height=\"900\""), std::string::npos);
  for (const char* name : {">loss</text>", ">accuracy</text>", ">samples_per_s</text>"}) {
    EXPECT_EQ(Count(svg, name), 1u) << name;  // each panel's y axis
  }
  EXPECT_EQ(Count(svg, ">job 13/worker-0</text>"), 3u);  // each panel's legend
}

TEST(Chart, ShortSeriesGetAMarkAtEachPoint) {
  testing::TempDir dir;
  const std::string short_path = dir.Join("short.svg"), long_path = dir.Join("long.svg");
  ASSERT_TRUE(WriteChart(TwoNoisyCurves(5), {}, ChartImageFormat::kSvg, short_path).ok());
  ASSERT_TRUE(WriteChart(TwoNoisyCurves(500), {}, ChartImageFormat::kSvg, long_path).ok());
  EXPECT_EQ(Count(Slurp(short_path), "<circle"), 10u);
  EXPECT_EQ(Count(Slurp(long_path), "<circle"), 0u);
}

TEST(Chart, SeriesPastTheTenColoursAreDashedNotRepeated) {
  std::vector<Series> many;
  for (int i = 0; i < 12; ++i) {
    many.push_back({"worker-" + std::to_string(i), {{0, double(i)}, {100, double(i + 1)}}});
  }
  testing::TempDir dir;
  const std::string path = dir.Join("many.svg");
  ASSERT_TRUE(WriteChart(many, {}, ChartImageFormat::kSvg, path).ok());
  // Two series' lines and their two legend swatches.
  EXPECT_EQ(Count(Slurp(path), "stroke-dasharray=\"6 4\""), 4u);
}

TEST(Chart, ALogScaleTicksDecades) {
  Series loss{"worker-0", {}};
  for (int i = 0; i < 100; ++i) loss.points.push_back({double(i), 100 * std::pow(10, -i / 25.0)});
  loss.points.push_back({100, 0});  // cannot be drawn on a log axis: left out
  ChartOptions options;
  options.y_label = "loss";
  options.log_y = true;
  testing::TempDir dir;
  const std::string path = dir.Join("log.svg");
  ASSERT_TRUE(WriteChart({loss}, options, ChartImageFormat::kSvg, path).ok());
  const std::string svg = Slurp(path);
  for (const char* tick :
       {">0.01</text>", ">0.1</text>", ">1</text>", ">10</text>", ">100</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_NE(svg.find(">loss (log scale)</text>"), std::string::npos);
}

TEST(Chart, TheTerminalChartSaysWhenSeriesShareColours) {
  std::vector<Series> seven;
  for (int i = 0; i < 7; ++i) seven.push_back({"r" + std::to_string(i), {{0, 0}, {1, double(i)}}});
  EXPECT_NE(PlotText(seven, 40, 8, "t", true).find("7 series share 6 colours"), std::string::npos);
  seven.pop_back();
  EXPECT_EQ(PlotText(seven, 40, 8, "t", true).find("share"), std::string::npos);
}

}  // namespace
}  // namespace dlp
