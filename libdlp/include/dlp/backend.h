// The Backend interface: one implementation per place jobs run (local dlpd,
// remote dlpd, Slurm, Kubernetes), chosen by a context's `backend` name.
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
#include "dlp/admin.h"
#include "dlp/artifacts.h"
#include "dlp/config.h"
#include "dlp/job.h"
#include "dlp/pipeline.h"
#include "dlp/queue.h"

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
  // Deletes an ended job: its record, events and files (logs, traces,
  // output); returns it as it was. FailedPrecondition while it is Queued or
  // Running; Unimplemented where the backend's jobs live in another system
  // (Slurm's accounting, Kubernetes' objects), which keeps its own history.
  virtual absl::StatusOr<Job> Delete(std::string_view id) {
    return absl::UnimplementedError("the " + Name() + " backend cannot delete job " +
                                    std::string(id) + ": its history is kept by the " + Name() +
                                    " system itself");
  }
  // Blocks until the job is terminal or `timeout` passes; returns its latest state
  // either way (the caller checks IsTerminal).
  virtual absl::StatusOr<Job> Wait(std::string_view id, absl::Duration timeout) = 0;
  virtual absl::Status Logs(std::string_view id, const LogOptions& options,
                            const LogSink& sink) = 0;
  virtual absl::StatusOr<std::vector<Event>> Events(std::string_view id) = 0;
  // What the backend would run for a validated spec (a command line, a batch
  // script).
  virtual absl::StatusOr<std::string> Render(const JobSpec& spec) = 0;
  // The job's per-rank trace files as they are now (a running job's are
  // partial). NotFound for an unknown job; Unimplemented where the backend
  // cannot reach them.
  virtual absl::StatusOr<std::vector<TraceFile>> TraceFiles(std::string_view id) {
    return absl::UnimplementedError("the " + Name() + " backend has no trace files for job " +
                                    std::string(id));
  }
  // The latest CPU/memory/GPU sample of each running replica of the job.
  virtual absl::StatusOr<std::vector<ReplicaUsage>> Usage(std::string_view id) {
    return absl::UnimplementedError("the " + Name() + " backend has no usage for job " +
                                    std::string(id));
  }
  // Why the job waits, with the scheduler's decision trace (JobExplanation).
  // NotFound for an unknown job; Unimplemented where the backend has none.
  virtual absl::StatusOr<JobExplanation> Why(std::string_view id) {
    return absl::UnimplementedError("the " + Name() + " backend does not explain job " +
                                    std::string(id));
  }

  // A single-use sign-in link to the web UI of the dlpd behind this backend,
  // for the caller's identity. Unimplemented where the backend is not a dlpd.
  virtual absl::StatusOr<UiSignInLink> UiSignIn() {
    return absl::UnimplementedError("the " + Name() +
                                    " backend has no web UI (a dlpd serves one: use a local or "
                                    "remote context)");
  }

  // What the job kept (its output folder, dlp/artifacts.h): the files under
  // `path` (empty: all; a file: that one) with their SHA-256, and one file's
  // bytes. NotFound for an unknown job or path; InvalidArgument for a path
  // that leaves the folder; Unimplemented where the backend cannot reach it.
  virtual absl::StatusOr<std::vector<Artifact>> Artifacts(std::string_view id,
                                                          std::string_view /*path*/) {
    return absl::UnimplementedError("the " + Name() + " backend has no artifacts for job " +
                                    std::string(id));
  }
  virtual absl::Status ReadArtifact(std::string_view id, std::string_view /*path*/,
                                    const ByteSink&) {
    return absl::UnimplementedError("the " + Name() + " backend has no artifacts for job " +
                                    std::string(id));
  }

  // The model registry of a dlpd (Client's functions of the same names say
  // what they do). Unimplemented where the backend is not a dlpd.
  virtual absl::StatusOr<ModelVersion> RegisterModel(const ModelRegistration&) {
    return NoModels();
  }
  virtual absl::StatusOr<std::vector<ModelVersion>> ListModels() { return NoModels(); }
  virtual absl::StatusOr<ModelVersion> GetModel(std::string_view) { return NoModels(); }
  virtual absl::Status ReadModel(std::string_view, const ByteSink&) { return NoModels(); }
  virtual absl::StatusOr<ModelVersion> SetModelAlias(std::string_view, std::string_view, int) {
    return NoModels();
  }

  // Pipelines (dlp/pipeline.h): submitted at once, each job waiting for
  // those it depends on. Submit takes a spec ValidatePipelineSpec accepted;
  // NotFound for an unknown id; Cancel cancels every job not yet ended;
  // Delete removes the pipeline with its jobs (as Delete does each), and
  // returns it as it was: FailedPrecondition while a job of it has not
  // ended, unless `force` (cancelled first, deleted once its jobs ended).
  // Unimplemented where the backend has none.
  virtual absl::StatusOr<Pipeline> SubmitPipeline(const PipelineSpec&) { return NoPipelines(); }
  virtual absl::StatusOr<Pipeline> GetPipeline(std::string_view) { return NoPipelines(); }
  virtual absl::StatusOr<std::vector<Pipeline>> ListPipelines() { return NoPipelines(); }
  virtual absl::StatusOr<Pipeline> CancelPipeline(std::string_view) { return NoPipelines(); }
  virtual absl::StatusOr<Pipeline> DeletePipeline(std::string_view id, bool /*force*/) {
    return absl::UnimplementedError("the " + Name() + " backend cannot delete pipeline " +
                                    std::string(id) + ": its history is kept by the " + Name() +
                                    " system itself");
  }

  // Tenants and tokens of a dlpd (Client's functions of the same names say
  // what they do). Unimplemented where the backend is not a dlpd.
  virtual absl::StatusOr<Tenant> CreateTenant(const Tenant&) { return NoTenants(); }
  virtual absl::StatusOr<std::vector<Tenant>> ListTenants() { return NoTenants(); }
  virtual absl::StatusOr<int> DeleteTenant(std::string_view) { return NoTenants(); }
  virtual absl::StatusOr<NewToken> CreateToken(std::string_view, std::optional<absl::Time>) {
    return NoTenants();
  }
  virtual absl::StatusOr<std::vector<TokenInfo>> ListTokens(std::string_view) {
    return NoTenants();
  }
  virtual absl::StatusOr<TokenInfo> RevokeToken(int64_t) { return NoTenants(); }
  virtual absl::StatusOr<Tenant> SetTenantQueues(std::string_view,
                                                 const std::vector<std::string>&) {
    return NoTenants();
  }
  virtual absl::StatusOr<Tenant> SetTenantDiskQuota(std::string_view, std::optional<int64_t>) {
    return NoTenants();
  }
  // Queues of a dlpd (dlp/queue.h); Unimplemented elsewhere.
  virtual absl::StatusOr<Queue> CreateQueue(const Queue&) { return NoTenants(); }
  virtual absl::StatusOr<Queue> UpdateQueue(const Queue&) { return NoTenants(); }
  virtual absl::StatusOr<Queue> DeleteQueue(std::string_view) { return NoTenants(); }
  virtual absl::StatusOr<std::vector<Queue>> ListQueues() { return NoTenants(); }
  virtual absl::StatusOr<std::vector<QueueUsage>> QueueUsages() { return NoTenants(); }
  virtual absl::StatusOr<QueueUsage> GetQueueUsage(std::string_view) { return NoTenants(); }

 private:
  absl::Status NoModels() const {
    return absl::UnimplementedError("the " + Name() +
                                    " backend has no model registry (a dlpd has one)");
  }
  absl::Status NoPipelines() const {
    return absl::UnimplementedError("the " + Name() + " backend has no pipelines");
  }
  absl::Status NoTenants() const {
    return absl::UnimplementedError("the " + Name() +
                                    " backend has no tenants, tokens or queues (a dlpd has them)");
  }
};

// Creates the backend named by context.backend. InvalidArgument for an unknown
// backend name or a context missing a required field.
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(const Context& context);

// Names CreateBackend accepts, for help texts and completions.
std::vector<std::string> BackendNames();

}  // namespace dlp
