// dlp::Client: the entry point for programs that submit and watch jobs.
//
//   auto client = dlp::Client::Create();            // current context
//   auto spec = dlp::LoadJobSpec("job.yaml");
//   auto job = (*client)->Submit(*spec);
//   auto done = (*client)->Wait(job->id);
//
// Everything the `dlp` command does goes through these functions; the CLI only
// prints what they return. A Client owns its Backend and is thread-safe: its
// functions may be called from several threads at once. Callbacks in options
// run on the calling thread. Errors are those of the backend: NotFound for an
// unknown job, Unavailable when the backend cannot be reached. A call that
// needs what the backend does not offer (a capability of
// dlp/backend_capabilities.h: pipelines, artifacts, models, queues, tenants,
// ...) returns Unimplemented: "the slurm backend does not support tenants and
// tokens (a dlpd has them)".
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
#include "dlp/backend.h"
#include "dlp/config.h"
#include "dlp/job.h"
#include "dlp/pipeline.h"
#include "dlp/profile.h"
#include "dlp/queue.h"

namespace dlp {

struct ClientOptions {
  std::string context;      // empty: $DLP_CONTEXT, then the config's current-context
  std::string config_path;  // empty: $DLP_CONFIG, then ~/.config/dlp/config.yaml
  // Non-empty: the context's fields under this backend instead of its own
  // (`dlp render --backend slurm`); one of BackendNames().
  std::string backend;
  // Context fields set on top of the context's own (`dlp render --field
  // flavour=job`), as `dlp config set-context --field` would write them.
  std::map<std::string, std::string> fields;
};

// The context a Client with these options uses. NotFound for an unknown
// context (listing the known ones), InvalidArgument for a config that does not
// parse or a `backend` that BackendNames() lacks. Reads the config file only.
absl::StatusOr<Context> ResolveContext(const ClientOptions& options);

enum class RenderFormat {
  kText,  // a command line and group file, a batch script, multi-document YAML
  kJson,  // the objects a backend would create, as a JSON list (kubernetes)
};

// `dlp render`: what the backend of the context ResolveContext(options) picks
// would run or create for `spec`, validated first (InvalidArgument). Contacts
// no server and reads no credentials: the kubernetes backend renders from the
// context's fields alone (docs/kubernetes.md), without a kubeconfig.
// InvalidArgument for kJson on a backend that runs a command line.
absl::StatusOr<std::string> RenderJob(const ClientOptions& options, const JobSpec& spec,
                                      RenderFormat format = RenderFormat::kText);

// `dlp render` of a pipeline: each job (in PipelineOrder) as RenderJob renders
// it, after ValidatePipelineSpec (InvalidArgument). Ids exist only once
// submitted: a dependsOn entry shows as ${jobs.NAME.id} and
// ${jobs.NAME.outputDir} is left as it is.
struct RenderedJob {
  std::string name;  // in the pipeline
  std::string text;
};
absl::StatusOr<std::vector<RenderedJob>> RenderPipeline(const ClientOptions& options,
                                                        const PipelineSpec& spec,
                                                        RenderFormat format = RenderFormat::kText);

struct WaitOptions {
  absl::Duration timeout = absl::InfiniteDuration();
  // Called with the job each time its state is re-read (about every second,
  // and once more when it is terminal): for progress lines.
  std::function<void(const Job&)> on_update;
  // Polled at least every 500 ms while waiting: true ends the wait with
  // Cancelled (the job keeps running). For Ctrl-C.
  std::function<bool()> cancelled;
};

// Which of a job's metrics Client::Metrics returns.
struct MetricsFilter {
  std::string name;     // "loss"; empty: every metric
  std::string replica;  // "worker-0"; empty: every replica
};

class Client {
 public:
  // The client of the context ResolveContext(options) picks, with its backend
  // (CreateBackend). Connects to nothing yet.
  static absl::StatusOr<std::unique_ptr<Client>> Create(const ClientOptions& options = {});
  Client(Context context, std::unique_ptr<Backend> backend);

  const Context& context() const { return context_; }
  // The backend, to ask what it offers beyond jobs (its capability accessors,
  // dlp/backend_capabilities.h). Owned by the client; thread-safe.
  Backend& backend() const { return *backend_; }

  // ---- Jobs ----

  // Validates the spec (ValidateJobSpec: InvalidArgument) and submits it;
  // returns the job once the backend has stored it.
  absl::StatusOr<Job> Submit(const JobSpec& spec);
  absl::StatusOr<Job> Get(std::string_view id);
  absl::StatusOr<std::vector<Job>> List(const ListFilter& filter = {});
  // Requests cancellation; a terminal job is returned unchanged.
  absl::StatusOr<Job> Cancel(std::string_view id);
  // Deletes an ended job's record and files (JobHistory::Delete; `force`
  // cancels a job that has not ended first).
  absl::StatusOr<Job> Delete(std::string_view id, bool force = false);
  // Until the job is terminal; returns it then. DeadlineExceeded ("timed out
  // waiting for job 7: still Running") when options.timeout passes first,
  // Cancelled when options.cancelled says so.
  absl::StatusOr<Job> Wait(std::string_view id, const WaitOptions& options = {});
  // Calls `sink` with each line in order (see LogOptions; with follow, until
  // the job is terminal and its logs are drained, or `sink` returns false).
  absl::Status Logs(std::string_view id, const LogOptions& options, const LogSink& sink);
  absl::StatusOr<std::vector<Event>> Events(std::string_view id);
  // Why the job waits: reason, place in its queue, estimated start and the
  // scheduler's decision trace (Scheduler).
  absl::StatusOr<JobExplanation> Why(std::string_view id);
  // Validates the spec (InvalidArgument) and returns what the backend would
  // run for it (a command line, a batch script). Contacts no server.
  absl::StatusOr<std::string> Render(const JobSpec& spec);

  // ---- Pipelines (dlp/pipeline.h; PipelineService) ----

  // Validates the pipeline (ValidatePipelineSpec: InvalidArgument) and
  // submits all its jobs at once; returns it once the backend stored them.
  absl::StatusOr<Pipeline> SubmitPipeline(const PipelineSpec& spec);
  absl::StatusOr<Pipeline> GetPipeline(std::string_view id);
  absl::StatusOr<std::vector<Pipeline>> ListPipelines();
  // Cancels every job of the pipeline that has not ended.
  absl::StatusOr<Pipeline> CancelPipeline(std::string_view id);
  // Deletes the pipeline and its jobs' records and files; returns it as it
  // was. FailedPrecondition while a job of it has not ended, unless `force`:
  // it is cancelled first and deleted once its jobs have ended. Registered
  // models stay. Unimplemented where the backend keeps its own history.
  absl::StatusOr<Pipeline> DeletePipeline(std::string_view id, bool force = false);

  // ---- What running jobs report ----

  // The job's per-rank trace files as they are now (partial while it runs).
  absl::StatusOr<std::vector<TraceFile>> TraceFiles(std::string_view id);
  // The latest CPU/memory/GPU sample of each running replica (JobMonitor).
  absl::StatusOr<std::vector<ReplicaUsage>> Usage(std::string_view id);
  // A link that signs a browser in to the dlpd's web UI, once and within a
  // minute (docs/ui.md; JobMonitor). NotFound when the dlpd serves no UI
  // (--no-ui).
  absl::StatusOr<UiSignInLink> UiSignIn();
  // Per replica, the latest step and the step rate over its last metrics.
  absl::StatusOr<std::map<std::string, StepRate>> StepRates(std::string_view id);
  // The metrics the job's ranks reported, in log order.
  absl::StatusOr<std::vector<MetricPoint>> Metrics(std::string_view id,
                                                   const MetricsFilter& filter = {});
  // A profiling window over the running job (RecordProfileWindow on its trace
  // files, until it stops running). On a job that has ended, returns the files
  // it wrote at once (`windowed` false, on_open not called).
  absl::StatusOr<WindowedTraces> ProfileWindow(std::string_view id,
                                               const ProfileWindowOptions& options);

  // ---- What jobs keep: artifacts and models (ArtifactStore, ModelRegistry) ----

  // The files under the job's output folder (DLP_OUTPUT_DIR), or under its
  // sub-path `path` (a folder or one file), with size, SHA-256 and mtime.
  // NotFound for an unknown job (another tenant's included) or path.
  absl::StatusOr<std::vector<Artifact>> ListArtifacts(std::string_view id,
                                                      std::string_view path = "");
  // Writes the artifacts under `path` (empty: all) into `dir`, each at its
  // path relative to the output folder, and checks each one's size and
  // SHA-256 against the listing (DataLoss, and no file left, on a mismatch).
  // Returns what was written (`Artifact::path` as written under `dir`).
  absl::StatusOr<std::vector<Artifact>> DownloadArtifacts(std::string_view id,
                                                          std::string_view path,
                                                          const std::string& dir);

  // Registers a file of a job's output folder as the next version of the
  // model `reg.name` (1 when new), setting `reg.alias` on it when given.
  // InvalidArgument for a bad name or alias; NotFound for an unknown job
  // or file. Another tenant's job is unknown.
  absl::StatusOr<ModelVersion> RegisterModel(const ModelRegistration& reg);
  // Every version of the caller's models (the owner: everyone's), by name
  // then version.
  absl::StatusOr<std::vector<ModelVersion>> ListModels();
  // One version: "NAME" (the latest), "NAME:3" or "NAME@staging"; the owner
  // may prefix a tenant's: "alice/NAME@staging". NotFound.
  absl::StatusOr<ModelVersion> GetModel(std::string_view ref);
  // Writes the version's file into `dir` under its name and checks its
  // SHA-256 (DataLoss on a mismatch). Returns the version; `file` is the path
  // written.
  absl::StatusOr<ModelVersion> DownloadModel(std::string_view ref, const std::string& dir);
  // Points NAME@ALIAS at `version` (moving it from another version).
  // NotFound for an unknown model or version.
  absl::StatusOr<ModelVersion> SetModelAlias(std::string_view name, std::string_view alias,
                                             int version);

  // ---- Tenants and tokens (a dlpd's owner only; TenantAdmin) ----
  // Other tenants' tokens get PermissionDenied.

  // Creates a tenant whose jobs run as `unix_user` (empty: the tenant's name)
  // and may use `queues`. InvalidArgument for a bad name, AlreadyExists when
  // it exists, NotFound for an unknown queue.
  absl::StatusOr<Tenant> CreateTenant(std::string_view name, std::string_view unix_user = "",
                                      const std::vector<std::string>& queues = {});
  // The queues the tenant may use become exactly `queues`. NotFound for an
  // unknown tenant or queue.
  absl::StatusOr<Tenant> SetTenantQueues(std::string_view tenant,
                                         const std::vector<std::string>& queues);
  // The tenant's own disk quota becomes `bytes` (0: none); nullopt: dlpd's
  // --tenant-disk-quota applies again. NotFound for an unknown tenant.
  absl::StatusOr<Tenant> SetTenantDiskQuota(std::string_view tenant, std::optional<int64_t> bytes);
  absl::StatusOr<std::vector<Tenant>> ListTenants();
  // Deletes the tenant and revokes its tokens; returns how many were revoked.
  // NotFound for an unknown tenant; FailedPrecondition (naming them) while it
  // has Queued or Running jobs.
  absl::StatusOr<int> DeleteTenant(std::string_view name);
  // A new token for the tenant, valid until `expires` (none: until revoked).
  // The returned token is the only copy in clear. NotFound for an unknown
  // tenant.
  absl::StatusOr<NewToken> CreateToken(std::string_view tenant,
                                       std::optional<absl::Time> expires = std::nullopt);
  // Every token (of `tenant` when not empty), oldest first, without secrets.
  absl::StatusOr<std::vector<TokenInfo>> ListTokens(std::string_view tenant = "");
  // Revokes the token: requests with it get 401 from then on. NotFound for an
  // unknown id.
  absl::StatusOr<TokenInfo> RevokeToken(int64_t id);

  // ---- Queues (dlp/queue.h) ----
  // Changing them is for a dlpd's owner (others get PermissionDenied) and
  // takes effect at the scheduler's next round (QueueAdmin); reading their
  // standing is for everyone (Scheduler).

  // InvalidArgument for a bad name or setting, AlreadyExists when it exists.
  absl::StatusOr<Queue> CreateQueue(const Queue& queue);
  // Replaces the settings of the queue named queue.name. NotFound.
  absl::StatusOr<Queue> UpdateQueue(const Queue& queue);
  // NotFound; FailedPrecondition (with their count) while jobs are Queued or
  // Running in it. Returns the queue as it was.
  absl::StatusOr<Queue> DeleteQueue(std::string_view name);
  absl::StatusOr<std::vector<Queue>> ListQueues();
  // Every queue's standing: configured ones, then those that jobs name.
  absl::StatusOr<std::vector<QueueUsage>> QueueUsages();
  // NotFound for a queue neither configured nor named by an active job.
  absl::StatusOr<QueueUsage> GetQueueUsage(std::string_view name);

 private:
  Context context_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace dlp
