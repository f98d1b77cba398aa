// The look of dlp's charts, shared by the CLI's PNG/SVG charts and the web
// UI's (docs/profiling.md lists the same values for the front end): series
// colours in order (Tableau 10, told apart by most colour-blind readers), and
// the colours of the chart's frame.
#pragma once

#include <cstdint>

namespace dlp::internal {

struct ChartColor {
  uint8_t r, g, b;
};

inline constexpr ChartColor kSeriesColors[] = {
    {0x4e, 0x79, 0xa7},  // #4e79a7 blue
    {0xf2, 0x8e, 0x2b},  // #f28e2b orange
    {0xe1, 0x57, 0x59},  // #e15759 red
    {0x76, 0xb7, 0xb2},  // #76b7b2 teal
    {0x59, 0xa1, 0x4f},  // #59a14f green
    {0xed, 0xc9, 0x48},  // #edc948 yellow
    {0xb0, 0x7a, 0xa1},  // #b07aa1 purple
    {0xff, 0x9d, 0xa7},  // #ff9da7 pink
    {0x9c, 0x75, 0x5f},  // #9c755f brown
    {0xba, 0xb0, 0xac},  // #bab0ac grey
};
inline constexpr int kSeriesColorCount = sizeof(kSeriesColors) / sizeof(kSeriesColors[0]);

inline constexpr ChartColor kChartBackground = {0xff, 0xff, 0xff};  // #ffffff
inline constexpr ChartColor kChartGrid = {0xe6, 0xe6, 0xe6};        // #e6e6e6
inline constexpr ChartColor kChartAxis = {0x5a, 0x5a, 0x5a};        // #5a5a5a
inline constexpr ChartColor kChartText = {0x22, 0x22, 0x22};        // #222222
inline constexpr double kChartLineWidth = 1.5;                      // px
inline constexpr double kChartFontSize = 12;                        // px, sans-serif

}  // namespace dlp::internal
