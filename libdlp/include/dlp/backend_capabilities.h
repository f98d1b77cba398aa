// What a backend may offer beyond its jobs. Backend's accessors (dlp/backend.h)
// return each interface where the backend has it and null where it does not;
// dlp::Client asks for the one a call needs and otherwise returns
// Unimplemented: "the slurm backend does not support " + kFeature.
//
// Who offers what today: a dlpd (the local and remote backends) all of them
// but ObjectRenderer; Slurm pipelines and artifacts; Kubernetes pipelines and
// ObjectRenderer. Each is as thread-safe as its backend.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dlp/admin.h"
#include "dlp/artifacts.h"
#include "dlp/backend.h"
#include "dlp/job.h"
#include "dlp/pipeline.h"
#include "dlp/queue.h"
#include "dlp/sweep.h"

namespace dlp {

// Pipelines (dlp/pipeline.h): submitted at once, each job waiting for those
// it depends on. SubmitPipeline takes a spec ValidatePipelineSpec accepted;
// NotFound for an unknown id; CancelPipeline cancels every job not yet ended.
class PipelineService {
 public:
  static constexpr char kFeature[] = "pipelines";
  virtual ~PipelineService() = default;
  virtual absl::StatusOr<Pipeline> SubmitPipeline(const PipelineSpec& spec) = 0;
  virtual absl::StatusOr<Pipeline> GetPipeline(std::string_view id) = 0;
  virtual absl::StatusOr<std::vector<Pipeline>> ListPipelines() = 0;
  virtual absl::StatusOr<Pipeline> CancelPipeline(std::string_view id) = 0;
  // Removes the pipeline with its jobs (as JobHistory::Delete does each) and
  // returns it as it was: FailedPrecondition while a job of it has not ended,
  // unless `force` (cancelled first, deleted once its jobs ended).
  // Unimplemented where the system that ran it keeps its history.
  virtual absl::StatusOr<Pipeline> DeletePipeline(std::string_view id, bool /*force*/) {
    return absl::UnimplementedError("pipeline " + std::string(id) +
                                    " is kept by the system that ran it; it cannot be deleted "
                                    "through dlp");
  }
  // True where nothing but a process stepping the pipeline moves it on
  // (Kubernetes: dlp/pipeline_driver.h); false where the backend does itself.
  virtual bool SteppedInForeground() const { return false; }
  // One step (StepPipeline in dlp/pipeline_driver.h says what it does);
  // where the backend moves pipelines on itself, only GetPipeline.
  virtual absl::StatusOr<Pipeline> StepPipeline(std::string_view id) { return GetPipeline(id); }
};

// Sweeps run by the backend itself, going on after restarts (dlp/sweep.h;
// elsewhere a sweep runs in the foreground). NotFound for an unknown sweep.
class SweepService {
 public:
  static constexpr char kFeature[] = "sweeps";
  virtual ~SweepService() = default;
  virtual absl::StatusOr<Sweep> SubmitSweep(const SweepSpec& spec) = 0;
  virtual absl::StatusOr<Sweep> GetSweep(std::string_view id) = 0;
  virtual absl::StatusOr<std::vector<Sweep>> ListSweeps() = 0;
  virtual absl::StatusOr<Sweep> CancelSweep(std::string_view id) = 0;
  // Removes the sweep with its trials' jobs; FailedPrecondition while it is
  // active, unless `force` (cancelled first, deleted once its trials ended).
  virtual absl::StatusOr<Sweep> DeleteSweep(std::string_view id, bool force) = 0;
};

// What a job kept (its output folder, dlp/artifacts.h): the files under
// `path` (empty: all; a file: that one) with their SHA-256, and one file's
// bytes. NotFound for an unknown job or path; InvalidArgument for a path
// that leaves the folder.
class ArtifactStore {
 public:
  static constexpr char kFeature[] = "artifacts";
  virtual ~ArtifactStore() = default;
  virtual absl::StatusOr<std::vector<Artifact>> Artifacts(std::string_view id,
                                                          std::string_view path) = 0;
  virtual absl::Status ReadArtifact(std::string_view id, std::string_view path,
                                    const ByteSink& sink) = 0;
};

// A model registry (Client's functions of the same names say what they do).
class ModelRegistry {
 public:
  static constexpr char kFeature[] = "a model registry (a dlpd has one)";
  virtual ~ModelRegistry() = default;
  virtual absl::StatusOr<ModelVersion> RegisterModel(const ModelRegistration& reg) = 0;
  virtual absl::StatusOr<std::vector<ModelVersion>> ListModels() = 0;
  virtual absl::StatusOr<ModelVersion> GetModel(std::string_view ref) = 0;
  virtual absl::Status ReadModel(std::string_view ref, const ByteSink& sink) = 0;
  virtual absl::StatusOr<ModelVersion> SetModelAlias(std::string_view name, std::string_view alias,
                                                     int version) = 0;
};

// What the scheduler tells everyone: why a job waits (JobExplanation) and
// each queue's standing (dlp/queue.h). NotFound for an unknown job or queue.
class Scheduler {
 public:
  static constexpr char kFeature[] = "scheduler explanations and queue standings (a dlpd has them)";
  virtual ~Scheduler() = default;
  virtual absl::StatusOr<JobExplanation> Why(std::string_view id) = 0;
  virtual absl::StatusOr<std::vector<QueueUsage>> QueueUsages() = 0;
  virtual absl::StatusOr<QueueUsage> GetQueueUsage(std::string_view name) = 0;
};

// The queues' settings (dlp/queue.h), a dlpd owner's to change.
class QueueAdmin {
 public:
  static constexpr char kFeature[] = "queues (a dlpd has them)";
  virtual ~QueueAdmin() = default;
  virtual absl::StatusOr<Queue> CreateQueue(const Queue& queue) = 0;
  virtual absl::StatusOr<Queue> UpdateQueue(const Queue& queue) = 0;
  virtual absl::StatusOr<Queue> DeleteQueue(std::string_view name) = 0;
  virtual absl::StatusOr<std::vector<Queue>> ListQueues() = 0;
};

// Tenants and their tokens (dlp/admin.h), a dlpd owner's to manage.
class TenantAdmin {
 public:
  static constexpr char kFeature[] = "tenants and tokens (a dlpd has them)";
  virtual ~TenantAdmin() = default;
  virtual absl::StatusOr<Tenant> CreateTenant(const Tenant& tenant) = 0;
  virtual absl::StatusOr<std::vector<Tenant>> ListTenants() = 0;
  virtual absl::StatusOr<int> DeleteTenant(std::string_view name) = 0;
  virtual absl::StatusOr<Tenant> SetTenantQueues(std::string_view tenant,
                                                 const std::vector<std::string>& queues) = 0;
  // nullopt: dlpd's --tenant-disk-quota applies again.
  virtual absl::StatusOr<Tenant> SetTenantDiskQuota(std::string_view tenant,
                                                    std::optional<int64_t> bytes) = 0;
  virtual absl::StatusOr<NewToken> CreateToken(std::string_view tenant,
                                               std::optional<absl::Time> expires) = 0;
  virtual absl::StatusOr<std::vector<TokenInfo>> ListTokens(std::string_view tenant) = 0;
  virtual absl::StatusOr<TokenInfo> RevokeToken(int64_t id) = 0;
};

// Running jobs watched live: each replica's latest resource sample, and a
// sign-in link to the web UI that charts them (docs/ui.md).
class JobMonitor {
 public:
  static constexpr char kFeature[] =
      "usage samples and a web UI (a dlpd has them: use a local or remote context)";
  virtual ~JobMonitor() = default;
  virtual absl::StatusOr<std::vector<ReplicaUsage>> Usage(std::string_view id) = 0;
  // Single-use, for the caller's identity.
  virtual absl::StatusOr<UiSignInLink> UiSignIn() = 0;
};

// Job records the backend keeps itself, so that it can delete them. (Slurm's
// accounting and Kubernetes' objects keep their own history.)
class JobHistory {
 public:
  static constexpr char kFeature[] =
      "deleting jobs (the system it runs them on keeps their history itself)";
  virtual ~JobHistory() = default;
  // Deletes an ended job: its record, events and files (logs, traces,
  // output); returns it as it was. FailedPrecondition while it is Queued or
  // Running, unless `force`: then the backend cancels it and deletes it once
  // it has ended. A job of a sweep or pipeline is refused either way, and
  // left running.
  virtual absl::StatusOr<Job> Delete(std::string_view id, bool force) = 0;
};

// A backend whose jobs are objects in another system (Kubernetes): those
// objects for a validated spec, as a JSON list (`dlp render -o json`).
class ObjectRenderer {
 public:
  static constexpr char kFeature[] = "rendering objects as JSON";
  virtual ~ObjectRenderer() = default;
  virtual absl::StatusOr<std::string> RenderObjects(const JobSpec& spec) = 0;
};

}  // namespace dlp
