// Metric lines (docs/runtime-contract.md, "Metrics"): a rank reports a point by
// printing "DLP_METRIC name=value [step=N]" on stdout. dlp-run keeps them, as
// log lines, in each replica's metrics file apart from its rotated log; every
// reader of metrics parses them here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlp::contract {

struct MetricText {
  std::string name;
  double value = 0;
  int64_t step = -1;  // -1: none given
};

// The point a line of stdout reports; nullopt for any other line.
std::optional<MetricText> ParseMetricText(std::string_view text);

// DIR/NAME.metrics next to DIR/NAME.log: the replica's metric lines in the log
// line format (contract/log_line.h), appended as produced, never rotated.
inline constexpr std::string_view kMetricsFileSuffix = ".metrics";
// Past this size dlp-run appends no more points to a metrics file, and says so
// once (kMetricsDropped, on stderr, in the file and the log): a bound on the
// disk a job's curve takes, far above any real curve (millions of points).
inline constexpr int64_t kMaxMetricsFileBytes = int64_t{256} << 20;
inline constexpr std::string_view kMetricsDropped =
    "[dlp-run: the metrics file reached its limit; further metric points are dropped]";

}  // namespace dlp::contract
