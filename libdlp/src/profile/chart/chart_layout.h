// The layout of a chart image, drawn with any Painter.
#pragma once

#include "profile/chart/painter.h"
#include "profile/chart_module.h"

namespace dlp::internal {

// The title on top, then each panel stacked below it: the panel's title, a
// legend row (a line swatch and each series' name, wrapping), the plot with
// light grid lines at "nice" tick values labelled on both axes, and the axes'
// names. Series past the palette's ten colours are dashed, then dotted;
// beyond those the legend says that styles repeat.
void DrawChart(Painter& painter, const ChartData& chart);

}  // namespace dlp::internal
