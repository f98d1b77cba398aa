// The Backend interface: one implementation per place jobs run (local dlpd,
// remote dlpd, Slurm, Kubernetes), chosen by a context's `backend` name.
// Every backend runs jobs (submit, get, list, cancel, wait, logs, events,
// render, traces); what only some offer (pipelines, sweeps, artifacts,
// models, queues, tenants, ...) are capability interfaces
// (dlp/backend_capabilities.h) that Backend's accessors return or not.
// Implementations are safe to call from several threads unless noted.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/config.h"
#include "dlp/job.h"

namespace dlp {

struct ListFilter {
  std::optional<JobState> state;
  std::map<std::string, std::string> labels;  // all must match
  std::string queue;                          // empty: any
  int limit = 0;                              // 0: every job; else the newest `limit`
  int64_t before = 0;  // > 0: only jobs with a smaller id (an older page; dlpd only)
};

struct LogOptions {
  std::string replica;  // "worker-0"; empty: every replica, interleaved by time
  bool follow = false;  // keep streaming until the job is terminal and its logs drained
  int64_t tail = -1;    // last N lines per replica; -1: all
  std::optional<absl::Time> since;
  // false: leave out metric lines (`DLP_METRIC name=value step=N` on stdout,
  // IsMetricLine in dlp/profile.h) before `tail` counts lines. Every backend
  // honours it where the logs are read (dlpd: the logs endpoint's metrics=0).
  bool metrics = true;
  // true: only metric lines, from the files that keep every one whatever the
  // log's rotation (dlpd: metrics=only); `metrics` is then ignored.
  bool metrics_only = false;
};

struct LogLine {
  std::string replica;
  std::string stream;  // "stdout" or "stderr"
  absl::Time time;
  std::string text;  // without the trailing newline
};

// Called for each line in order; return false to stop early.
using LogSink = std::function<bool(const LogLine&)>;

// Receives a file's bytes in order; returns false to stop early.
using ByteSink = std::function<bool(std::string_view)>;

// A file a job's ranks wrote next to their logs (a per-rank trace).
struct TraceFile {
  std::string name;  // "rank-3.trace.json"
  std::string content;
};

// The latest resource sample of one running replica.
struct ReplicaUsage {
  std::string replica;  // "worker-0"
  int pid = 0;
  double cpu_percent = 0;         // of one core
  int64_t rss_bytes = 0;
  double gpu_util_percent = -1;   // -1: no GPU or no NVML
  int64_t gpu_memory_bytes = -1;  // -1: no GPU or no NVML
  absl::Time time;
};

// A link that signs a browser in to a dlpd's web UI once (docs/ui.md).
struct UiSignInLink {
  std::string url;  // "http://127.0.0.1:8470/login?code=..."
  absl::Duration valid_for = absl::ZeroDuration();
};

// What a backend may offer beyond its jobs (dlp/backend_capabilities.h).
class PipelineService;
class SweepService;
class ArtifactStore;
class ModelRegistry;
class Scheduler;
class QueueAdmin;
class TenantAdmin;
class JobMonitor;
class JobHistory;
class ObjectRenderer;

// Jobs: what every backend does in full. The rest is a capability, asked for
// through the accessors at the end.
class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string Name() const = 0;

  // Submits a spec that ValidateJobSpec accepted (Client::Submit checks it;
  // backends do not check it again). Returns the job as acknowledged (durably stored):
  // InvalidArgument for a spec the backend cannot run (e.g. it can never fit),
  // Unavailable when the backend cannot be reached.
  virtual absl::StatusOr<Job> Submit(const JobSpec& spec) = 0;
  // NotFound when no job has this id.
  virtual absl::StatusOr<Job> Get(std::string_view id) = 0;
  virtual absl::StatusOr<std::vector<Job>> List(const ListFilter& filter) = 0;
  // Requests cancellation; returns once the request is recorded. Cancelling a
  // terminal job is not an error (the job is returned unchanged).
  virtual absl::StatusOr<Job> Cancel(std::string_view id) = 0;
  // Blocks until the job is terminal or `timeout` passes; returns its latest state
  // either way (the caller checks IsTerminal).
  virtual absl::StatusOr<Job> Wait(std::string_view id, absl::Duration timeout) = 0;
  virtual absl::Status Logs(std::string_view id, const LogOptions& options,
                            const LogSink& sink) = 0;
  virtual absl::StatusOr<std::vector<Event>> Events(std::string_view id) = 0;
  // What the backend would run for a validated spec (a command line, a batch
  // script, manifests), as text. Contacts no server.
  virtual absl::StatusOr<std::string> Render(const JobSpec& spec) = 0;
  // The job's per-rank trace files as they are now (a running job's are
  // partial). NotFound for an unknown job.
  virtual absl::StatusOr<std::vector<TraceFile>> TraceFiles(std::string_view id) = 0;

  // ---- Capabilities (dlp/backend_capabilities.h) ----
  // Each returns the interface when this backend offers it, null when it does
  // not. The interface belongs to the backend and lives as long as it does.
  // Client turns a null into Unimplemented naming the backend and what it lacks.

  virtual PipelineService* pipelines() { return nullptr; }
  virtual SweepService* sweeps() { return nullptr; }
  virtual ArtifactStore* artifacts() { return nullptr; }
  virtual ModelRegistry* models() { return nullptr; }
  virtual Scheduler* scheduler() { return nullptr; }
  virtual QueueAdmin* queue_admin() { return nullptr; }
  virtual TenantAdmin* tenant_admin() { return nullptr; }
  virtual JobMonitor* monitor() { return nullptr; }
  virtual JobHistory* history() { return nullptr; }
  virtual ObjectRenderer* objects() { return nullptr; }
};

// Creates the backend named by context.backend. InvalidArgument for an unknown
// backend name or a context missing a required field.
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(const Context& context);

// Names CreateBackend accepts, for help texts and completions.
std::vector<std::string> BackendNames();

}  // namespace dlp
