// The last, smallest and largest value of each metric of a job, for the runs
// table: read from the job's metrics files (the DLP_METRIC lines each replica
// printed, which the log's rotation leaves whole), through LogReader and so
// through the trust boundary with its caps, at most kMaxMetricBytes of a job's
// files. An ended job's summary never changes, so it is kept (up to a bound,
// then the oldest kept go); a running one's reader goes on from where it
// stopped once its summary is older than `fresh_for`, so each byte is read
// once. A job that never started has none. Thread-safe (reads are serialized).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "server/api/runs_query.h"
#include "server/logs/log_reader.h"

namespace dlp::server {

using MetricSummaryMap = std::map<std::string, MetricSummary>;

// Folds metric lines into summaries, by replica; Result() picks each metric
// from the first replica of `ranks` that reported it (rank 0's, as a
// trainer logs it).
class MetricSummaryBuilder {
 public:
  void Add(const std::string& replica, const std::string& name, double value, int64_t step);
  MetricSummaryMap Result(const std::vector<JobReplica>& ranks) const;

 private:
  std::map<std::string, MetricSummaryMap> by_replica_;
};

// What the summaries read of one job's metrics files at most.
inline constexpr uint64_t kMaxMetricBytes = 64ull << 20;

class MetricSummaries {
 public:
  explicit MetricSummaries(size_t max_kept = 200'000, absl::Duration fresh_for = absl::Seconds(2))
      : max_kept_(max_kept), fresh_for_(fresh_for) {}

  // `open_logs` is called only when the job's files must be read.
  MetricSummaryMap Of(const Job& job, const std::function<absl::StatusOr<LogFolderOpener>()>& open_logs);

 private:
  struct Entry {
    std::unique_ptr<LogReader> reader;  // until the job has ended and was read to the end
    MetricSummaryBuilder builder;
    MetricSummaryMap metrics;
    absl::Time read;
  };

  const size_t max_kept_;
  const absl::Duration fresh_for_;
  std::mutex mu_;
  std::map<std::string, Entry> kept_;
  std::deque<std::string> order_;  // ids in the order they were kept
};

}  // namespace dlp::server
