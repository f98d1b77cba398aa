// Profiles and metrics of a job, from what its ranks wrote: per-rank Chrome
// trace files (runtime/include/dlp/trace.h) and `DLP_METRIC name=value step=N`
// lines in its logs. Used by `dlp profile`, `dlp metrics` and `dlp top`; the
// files and lines come from a Client (Client::TraceFiles, Client::Logs) or a
// folder (ReadTraceDir).
//
// Everything here is pure computation over strings and thread-safe, except
// WriteChart and ReadTraceDir (file I/O) and RecordProfileWindow (which blocks
// for the window and calls back into its caller).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/backend.h"

namespace dlp {

// TraceFile (dlp/backend.h): one rank's trace file, as written by the
// runtime: "rank-3.trace.json" or "rank-3.restart-1.trace.json".

struct PhaseTime {
  std::string name;   // "data", "forward", "backward", "optimizer"...
  double mean_ms = 0;  // per step
};

struct RankProfile {
  int rank = 0;
  std::string host;
  int steps = 0;
  double step_p50_ms = 0, step_p95_ms = 0, step_max_ms = 0;
  double comm_ms = 0;  // mean per step inside collectives (waiting included)
  double work_ms = 0;  // mean per step outside collectives
  std::vector<PhaseTime> phases;
  double clock_offset_us = 0;  // applied to line this rank up with rank 0
};

// The slowest rank by work per step (collective waits excluded: in
// synchronous training every rank's step takes as long as the slowest one's,
// and the others spend the difference waiting in the allreduce).
struct Straggler {
  int rank = -1;
  double ratio = 0;        // its work time / the median work time
  std::string phase;       // the phase that exceeds its median the most
  double phase_excess_ms = 0;
  // "rank 3 is 1.42× the median step time (excluding collective waits): data loading"
  std::string Describe() const;
};

struct RestartSegment {
  int restart = 0;
  int steps = 0;             // rank 0's (or the lowest rank's) steps
  double seconds = 0;        // first step start to last step end
  double steps_per_s = 0;
  double samples_per_s = 0;  // from the step spans' "samples" argument, all ranks
};

struct CollectiveStats {
  std::string op;
  int count = 0;
  int64_t bytes = 0;      // median size (the whole buffer for allgather and reduce-scatter)
  double busbw_GBps = 0;  // median bus bandwidth
  double median_ms = 0;   // median time in the call
  // Whether the bandwidth says something: a barrier moves no data, and under
  // 1 KiB a call's time is its latency.
  bool HasBandwidth() const { return op != "barrier" && bytes >= 1024; }
};

struct Profile {
  int ranks = 0;
  std::vector<RankProfile> per_rank;  // by rank
  // Of step time, over all ranks: collectives on the step's own thread, where
  // the step waits for them.
  double comm_share = 0;
  double compute_share = 0;  // 1 - comm_share
  // Of step time: collectives on other threads inside the step (a trainer's
  // gradient buckets), which backward's compute hides except for the step's wait.
  double overlapped_comm_share = 0;
  int allreduce_count = 0;
  int64_t allreduce_bytes = 0;      // median size
  double allreduce_busbw_GBps = 0;  // median over allreduce spans
  // Every collective seen, by name ("allreduce", "reduce_scatter", "allgather",
  // "broadcast"): a sharded optimizer's gradient goes through the middle two.
  std::vector<CollectiveStats> collectives;
  std::optional<Straggler> straggler;  // when one rank is ≥ threshold × the median
  std::vector<RestartSegment> restarts;
};

struct ProfileOptions {
  // For windows over a running job: per file name, ignore events that start at
  // or before this timestamp (µs, the file's own clock). See LatestTimestamps.
  std::map<std::string, double> after_us;
  // And events that start at or after this timestamp (the window's end).
  std::map<std::string, double> before_us;
  double straggler_threshold = 1.10;
};

// InvalidArgument when no file holds a trace event.
absl::StatusOr<Profile> SummarizeTraces(const std::vector<TraceFile>& files,
                                        const ProfileOptions& options = {});
// One Chrome trace ({"traceEvents":[...]}) of every file: pid = rank, one track
// (tid) per category and thread, clock offsets applied, time 0 = first event.
absl::StatusOr<std::string> MergeTraces(const std::vector<TraceFile>& files,
                                        const ProfileOptions& options = {});
// The latest event timestamp in each file (for ProfileOptions::after_us).
std::map<std::string, double> LatestTimestamps(const std::vector<TraceFile>& files);

// A window over a running job: it opened at `start` (this host's wall clock),
// when the files' LatestTimestamps were `flushed`, and lasted `length`. Places
// it on each file's own clock through the file's wall clock anchor (dlp_meta),
// never before what the file had already written when the window opened (the
// runtime writes in batches, so that is up to a second old); a file without an
// anchor starts after what it had written and one without either is not
// bounded. Assumes the hosts' wall clocks agree with this one's (NTP).
ProfileOptions WindowOptions(const std::vector<TraceFile>& files,
                             const std::map<std::string, double>& flushed, absl::Time start,
                             absl::Duration length);
// Whether every bounded file has written an event at or after its window's
// end, i.e. the window's events have been written.
bool WindowWritten(const std::vector<TraceFile>& files, const ProfileOptions& window);
std::string ProfileToJson(const Profile& profile);

// Reads a job's trace files as they are now (Client::TraceFiles, ReadTraceDir).
using TraceSource = std::function<absl::StatusOr<std::vector<TraceFile>>()>;

struct ProfileWindowOptions {
  absl::Duration length = absl::Seconds(30);
  // After the window, how long the ranks get to write its last events (the
  // runtime writes about every second).
  absl::Duration write_grace = absl::Seconds(5);
  // Called once the window opens, e.g. to say "profiling for 30s...".
  std::function<void()> on_open;
  // Polled every 50 ms: true closes the window early (it then covers the time
  // so far) and stops waiting for writes. Ctrl-C handling goes here.
  std::function<bool()> cancelled;
  // Polled while waiting for writes: false (the job ended) stops waiting.
  // Empty: the source is always live.
  std::function<bool()> running;
};

// The files after a window and its bounds, for SummarizeTraces / MergeTraces.
struct WindowedTraces {
  std::vector<TraceFile> files;
  ProfileOptions options;
  bool windowed = false;  // false: the job had ended, `files` are all it wrote
};

// Reads `source`, waits out the window, then reads it again until every rank
// has written past the window's end (WindowWritten), the job stops running,
// `cancelled` or `write_grace` passes. Returns the first error of `source`.
// Blocks the calling thread; the callbacks run on it.
absl::StatusOr<WindowedTraces> RecordProfileWindow(const TraceSource& source,
                                                   const ProfileWindowOptions& options);

// "rank-N.trace.json" or "rank-N.restart-K.trace.json".
bool IsTraceFileName(const std::string& name);
// What ReadTraceDir reads at most: the files are written by a job, which
// chooses their size.
struct TraceReadLimits {
  uint64_t max_file_bytes = UINT64_MAX;
  uint64_t max_total_bytes = UINT64_MAX;  // of all the files together
};
// The trace files in `dir`, by name (possibly none). NotFound when `dir`
// cannot be read; FailedPrecondition naming the file when one is larger than
// `limits` allow (or the files together are), or is sparse (holes that cost
// no disk): such files are refused, not read in part.
absl::StatusOr<std::vector<TraceFile>> ReadTraceDir(const std::string& dir,
                                                    const TraceReadLimits& limits = {});

// ---- Training metrics ----

struct MetricPoint {
  std::string replica;  // "worker-0"
  std::string name;     // "loss"
  double value = 0;
  int64_t step = 0;
  absl::Time time;  // when the line was written
};

// Parses "DLP_METRIC name=value step=N" (leading text such as a log prefix is
// not allowed; `step=` is optional, default -1). nullopt for any other line.
std::optional<MetricPoint> ParseMetricLine(std::string_view text);
// The metric a log line reports (its replica and time filled in): metrics are
// DLP_METRIC lines on stdout. nullopt for any other line.
std::optional<MetricPoint> MetricFromLogLine(const LogLine& line);
// Whether the line is a metric (what LogOptions::metrics = false leaves out).
bool IsMetricLine(const LogLine& line);
// Whether a read of logs keeps `line`: LogOptions::metrics and metrics_only.
bool MetricFilterKeeps(const LogLine& line, bool metrics, bool metrics_only);

// A replica's progress through its steps, from the `step=` of its metrics.
struct StepRate {
  int64_t step = -1;       // the latest step reported; -1: none
  double steps_per_s = 0;  // between the first and last step read; 0: unknown
};
// Per replica, from the metric lines among `lines` (in log order; other lines
// are skipped). Used by `dlp top` over the last lines of each replica.
std::map<std::string, StepRate> StepRatesFromLogs(const std::vector<LogLine>& lines);
std::string MetricsToJson(const std::vector<MetricPoint>& points);
std::string MetricsToCsv(const std::vector<MetricPoint>& points);

// ---- Comparing runs (dlp metrics --compare; profile/compare.cc) ----

// Whether a smaller or a larger value of a metric is better: names with
// "loss", "error", "err", "perplexity" or "time" are minimised, others maximised.
enum class MetricGoal { kMinimize, kMaximize };
MetricGoal GuessMetricGoal(std::string_view name);

// One metric of one run: its last value (in log order) and its best.
struct RunMetric {
  int points = 0;
  double final_value = 0;
  int64_t final_step = -1;
  double best = 0;
  int64_t best_step = -1;
};

struct MetricComparison {
  std::string name;
  MetricGoal goal = MetricGoal::kMaximize;
  std::map<std::string, RunMetric> runs;  // by run (job id); runs without the metric absent
};

// Of the replicas that reported metric `name` in `points`, the one of lowest
// rank (roles in rank order: chief, ps, worker, evaluator; then the index):
// rank 0's where it reported the metric, as a trainer logs it. "" for none.
std::string LowestRankReporting(const std::vector<MetricPoint>& points, std::string_view name);

// Per metric name (sorted), each run's final and best value, from the points
// of its lowest-rank replica that reported the metric (LowestRankReporting).
// `runs`: (job id, its points in log order).
std::vector<MetricComparison> CompareRuns(
    const std::vector<std::pair<std::string, std::vector<MetricPoint>>>& runs);
// {"jobs":[...],"metrics":[{"name","goal":"min"|"max","runs":{"ID":{"points","final",
//  "finalStep","best","bestStep"}}}]}
std::string ComparisonToJson(const std::vector<std::string>& jobs,
                             const std::vector<MetricComparison>& metrics);

// One line of a chart: (x, y) points, drawn in order.
struct Series {
  std::string label;
  std::vector<std::pair<double, double>> points;
};
// A chart in braille characters (2×4 dots per cell), `width`×`height` cells
// of plot area plus axes and a legend; series are told apart by their marks
// in the legend and, when `color`, by ANSI colours (six; the legend says so
// when series share them).
std::string PlotText(const std::vector<Series>& series, int width, int height,
                     const std::string& title, bool color);
// Each series with every point's y replaced by the mean of its last `n`
// points (the point itself included); n <= 1 leaves them as they are.
std::vector<Series> SmoothSeries(std::vector<Series> series, int n);
// Each y replaced by its log10 (NaN for y <= 0, which breaks the line): a
// log scale for PlotText, which draws linear axes.
std::vector<Series> Log10Series(std::vector<Series> series);

// ---- Metric charts (dlp metrics --plot/--png/--svg, the web UI's Metrics page) ----

// Which series a metric's panel holds for each job: its lowest-rank replica
// (LowestRankReporting; the default: rank 0, as a trainer logs), every
// replica, or one named aggregate of the replicas' values at each step.
enum class ReplicaSeries { kLowestRank, kEach, kMean, kMin, kMax };
// "rank0", "each", "mean", "min", "max"; InvalidArgument for anything else.
absl::StatusOr<ReplicaSeries> ParseReplicaSeries(std::string_view text);

// One plot of a chart image: panels are stacked, each with its own y axis.
struct ChartPanel {
  std::string title;    // may be empty
  std::string y_label;  // the metric
  std::vector<Series> series;
};

// One panel per metric name (sorted), x = step (or seconds since the first
// point when `by_time`). `runs`: (job id, its points in log order); with
// several runs series are labelled "JOB/replica" (or "JOB/mean of N replicas").
std::vector<ChartPanel> MetricPanels(
    const std::vector<std::pair<std::string, std::vector<MetricPoint>>>& runs,
    ReplicaSeries which, bool by_time);

struct ChartOptions {
  std::string title;
  std::string x_label = "step";
  std::string y_label = "value";  // WriteChart's one panel
  int width = 800;
  int height = 480;    // of each panel; the image is clamped to 64..8192 either way
  bool log_y = false;  // logarithmic y axes (values <= 0 are left out)
};
enum class ChartImageFormat { kPng, kSvg };
// Writes line charts with a title, panels stacked top to bottom (each with
// axes labelled with tick values and a legend naming each series), in the web
// UI's colours (docs/profiling.md); series of 40 points or fewer get a mark at
// each point; series past the ten colours are dashed, then dotted. SVG text is
// <text>. Drawn by dlp's chart module, libdlp_chart.so (Cairo), opened on
// first use: Unavailable when it cannot be loaded or the file cannot be written.
absl::Status WriteCharts(const std::vector<ChartPanel>& panels, const ChartOptions& options,
                         ChartImageFormat format, const std::string& path);
// One panel of `series`, named by options.y_label.
absl::Status WriteChart(const std::vector<Series>& series, const ChartOptions& options,
                        ChartImageFormat format, const std::string& path);

}  // namespace dlp
