// What running jobs report, read through the backend: trace files, resource
// usage, and the metric lines of their logs (step rates, metric series).
#include "absl/strings/str_cat.h"
#include "client/capability.h"
#include "dlp/client.h"
#include "dlp/status.h"

namespace dlp {
namespace {

// `dlp top` reads this many recent metric lines of each replica for its step rate.
constexpr int64_t kStepRateLines = 200;

}  // namespace

absl::StatusOr<std::vector<TraceFile>> Client::TraceFiles(std::string_view id) {
  return backend_->TraceFiles(id);
}

absl::StatusOr<std::vector<ReplicaUsage>> Client::Usage(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(JobMonitor * monitor, internal::Offered(*backend_, backend_->monitor()));
  return monitor->Usage(id);
}

absl::StatusOr<UiSignInLink> Client::UiSignIn() {
  DLP_ASSIGN_OR_RETURN(JobMonitor * monitor, internal::Offered(*backend_, backend_->monitor()));
  return monitor->UiSignIn();
}

absl::StatusOr<std::map<std::string, StepRate>> Client::StepRates(std::string_view id) {
  LogOptions options;
  options.tail = kStepRateLines;
  options.metrics_only = true;
  std::vector<LogLine> lines;
  DLP_RETURN_IF_ERROR(backend_->Logs(id, options, [&](const LogLine& line) {
    if (IsMetricLine(line)) lines.push_back(line);
    return true;
  }));
  return StepRatesFromLogs(lines);
}

absl::StatusOr<std::vector<MetricPoint>> Client::Metrics(std::string_view id,
                                                         const MetricsFilter& filter) {
  LogOptions options;
  options.replica = filter.replica;
  options.metrics_only = true;
  std::vector<MetricPoint> points;
  DLP_RETURN_IF_ERROR(backend_->Logs(id, options, [&](const LogLine& line) {
    std::optional<MetricPoint> p = MetricFromLogLine(line);
    if (p && (filter.name.empty() || p->name == filter.name)) points.push_back(std::move(*p));
    return true;
  }));
  return points;
}

absl::StatusOr<WindowedTraces> Client::ProfileWindow(std::string_view id,
                                                     const ProfileWindowOptions& options) {
  auto running = [&] {
    absl::StatusOr<Job> job = backend_->Get(id);
    return job.ok() && !IsTerminal(job->state);
  };
  if (!running()) {
    WindowedTraces recorded;
    DLP_ASSIGN_OR_RETURN(recorded.files, backend_->TraceFiles(id));
    return recorded;
  }
  ProfileWindowOptions window = options;
  window.running = running;
  return RecordProfileWindow([&] { return backend_->TraceFiles(id); }, window);
}

}  // namespace dlp
