#include "server/api/metric_summaries.h"

#include <algorithm>
#include <cmath>

#include "dlp/profile.h"

namespace dlp::server {

void MetricSummaryBuilder::Add(const std::string& replica, const std::string& name, double value,
                               int64_t step) {
  MetricSummary& m = by_replica_[replica][name];
  if (m.count == 0 || std::isnan(m.min)) m.min = value;
  if (m.count == 0 || std::isnan(m.max)) m.max = value;
  if (!std::isnan(value)) {
    m.min = std::min(m.min, value);
    m.max = std::max(m.max, value);
  }
  m.last = value;
  m.step = step;
  ++m.count;
}

MetricSummaryMap MetricSummaryBuilder::Result(const std::vector<JobReplica>& ranks) const {
  MetricSummaryMap out;
  for (const JobReplica& replica : ranks) {
    auto it = by_replica_.find(replica.name);
    if (it == by_replica_.end()) continue;
    for (const auto& [name, summary] : it->second) out.emplace(name, summary);
  }
  return out;
}

MetricSummaryMap MetricSummaries::Of(
    const Job& job, const std::function<absl::StatusOr<LogFolderOpener>()>& open_logs) {
  if (!job.started) return {};
  const absl::Time now = absl::Now();
  const bool ended = IsTerminal(job.state);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kept_.find(job.id);
  if (it != kept_.end() && (!it->second.reader || now - it->second.read < fresh_for_)) {
    return it->second.metrics;
  }
  if (it == kept_.end()) {
    absl::StatusOr<LogFolderOpener> folder = open_logs();
    if (!folder.ok()) return {};
    LogReaderOptions options;
    options.folder = std::move(*folder);
    options.metrics_only = true;
    options.max_bytes = kMaxMetricBytes;
    it = kept_.emplace(job.id, Entry{}).first;
    it->second.reader = std::make_unique<LogReader>(std::move(options));
    order_.push_back(job.id);
  }
  Entry& entry = it->second;
  do {  // what was written since the last read, a chunk of each file at a time
    for (const LogEntry& e : entry.reader->ReadNew(/*final=*/ended)) {
      if (std::optional<MetricPoint> p =
              MetricFromLogLine(LogLine{e.replica, e.stream, e.parsed_time, e.text})) {
        entry.builder.Add(e.replica, p->name, p->value, p->step);
      }
    }
  } while (!entry.reader->caught_up());
  entry.metrics = entry.builder.Result(job.replicas);
  entry.read = now;
  if (ended) entry.reader.reset();  // read to the end: nothing more will come
  MetricSummaryMap metrics = entry.metrics;
  while (order_.size() > max_kept_) {
    kept_.erase(order_.front());
    order_.pop_front();
  }
  return metrics;
}

}  // namespace dlp::server
