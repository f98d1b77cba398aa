// The dlpd API client (docs/api.md) as a Backend. The remote backend talks to a
// fixed server; the local backend supplies a connector that finds, and if need
// be starts, the user's own dlpd.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "dlp/backend.h"
#include "dlp/backend_capabilities.h"
#include "http/http_client.h"

namespace dlp::internal {

class ApiConnector {
 public:
  virtual ~ApiConnector() = default;
  // The client to use. `refresh`: the last one could not connect, look again
  // (the local dlpd may have restarted on another port). Thread-safe.
  virtual absl::StatusOr<std::shared_ptr<const HttpClient>> Connect(bool refresh) = 0;
};

// A dlpd offers every capability but ObjectRenderer (it runs jobs as processes).
class ApiBackend final : public Backend,
                         public PipelineService,
                         public SweepService,
                         public ArtifactStore,
                         public ModelRegistry,
                         public Scheduler,
                         public QueueAdmin,
                         public TenantAdmin,
                         public JobMonitor,
                         public JobHistory {
 public:
  ApiBackend(std::string name, std::unique_ptr<ApiConnector> connector);

  PipelineService* pipelines() override { return this; }
  SweepService* sweeps() override { return this; }
  ArtifactStore* artifacts() override { return this; }
  ModelRegistry* models() override { return this; }
  Scheduler* scheduler() override { return this; }
  QueueAdmin* queue_admin() override { return this; }
  TenantAdmin* tenant_admin() override { return this; }
  JobMonitor* monitor() override { return this; }
  JobHistory* history() override { return this; }

  std::string Name() const override { return name_; }
  absl::StatusOr<Job> Submit(const JobSpec& spec) override;
  absl::StatusOr<Job> Get(std::string_view id) override;
  absl::StatusOr<std::vector<Job>> List(const ListFilter& filter) override;
  absl::StatusOr<Job> Cancel(std::string_view id) override;
  absl::StatusOr<Job> Delete(std::string_view id, bool force) override;
  absl::StatusOr<Job> Wait(std::string_view id, absl::Duration timeout) override;
  absl::Status Logs(std::string_view id, const LogOptions& options,
                    const LogSink& sink) override;
  absl::StatusOr<std::vector<Event>> Events(std::string_view id) override;
  absl::StatusOr<JobExplanation> Why(std::string_view id) override;  // GET /v1/jobs/ID/why
  absl::StatusOr<std::string> Render(const JobSpec& spec) override;
  // GET /v1/jobs/ID/traces and /usage (api_backend_monitor.cc).
  absl::StatusOr<std::vector<TraceFile>> TraceFiles(std::string_view id) override;
  absl::StatusOr<std::vector<ReplicaUsage>> Usage(std::string_view id) override;
  // POST /v1/ui/codes (api_backend_monitor.cc).
  absl::StatusOr<UiSignInLink> UiSignIn() override;
  // /v1/jobs/ID/artifacts and /v1/models (api_backend_artifacts.cc).
  absl::StatusOr<std::vector<Artifact>> Artifacts(std::string_view id,
                                                  std::string_view path) override;
  absl::Status ReadArtifact(std::string_view id, std::string_view path,
                            const ByteSink& sink) override;
  absl::StatusOr<ModelVersion> RegisterModel(const ModelRegistration& reg) override;
  absl::StatusOr<std::vector<ModelVersion>> ListModels() override;
  absl::StatusOr<ModelVersion> GetModel(std::string_view ref) override;
  absl::Status ReadModel(std::string_view ref, const ByteSink& sink) override;
  absl::StatusOr<ModelVersion> SetModelAlias(std::string_view name, std::string_view alias,
                                             int version) override;
  // /v1/pipelines (api_backend_pipelines.cc).
  absl::StatusOr<Pipeline> SubmitPipeline(const PipelineSpec& spec) override;
  absl::StatusOr<Pipeline> GetPipeline(std::string_view id) override;
  absl::StatusOr<std::vector<Pipeline>> ListPipelines() override;
  absl::StatusOr<Pipeline> CancelPipeline(std::string_view id) override;
  absl::StatusOr<Pipeline> DeletePipeline(std::string_view id, bool force) override;
  // /v1/admin (api_backend_admin.cc).
  absl::StatusOr<Tenant> CreateTenant(const Tenant& tenant) override;
  absl::StatusOr<std::vector<Tenant>> ListTenants() override;
  absl::StatusOr<int> DeleteTenant(std::string_view name) override;
  absl::StatusOr<NewToken> CreateToken(std::string_view tenant,
                                       std::optional<absl::Time> expires) override;
  absl::StatusOr<std::vector<TokenInfo>> ListTokens(std::string_view tenant) override;
  absl::StatusOr<TokenInfo> RevokeToken(int64_t id) override;
  absl::StatusOr<Tenant> SetTenantQueues(std::string_view tenant,
                                         const std::vector<std::string>& queues) override;
  absl::StatusOr<Tenant> SetTenantDiskQuota(std::string_view tenant,
                                            std::optional<int64_t> bytes) override;
  // /v1/admin/queues and /v1/queues (api_backend_queues.cc).
  absl::StatusOr<Queue> CreateQueue(const Queue& queue) override;
  absl::StatusOr<Queue> UpdateQueue(const Queue& queue) override;
  absl::StatusOr<Queue> DeleteQueue(std::string_view name) override;
  absl::StatusOr<std::vector<Queue>> ListQueues() override;
  absl::StatusOr<std::vector<QueueUsage>> QueueUsages() override;
  absl::StatusOr<QueueUsage> GetQueueUsage(std::string_view name) override;
  // /v1/sweeps (api_backend_sweeps.cc).
  absl::StatusOr<Sweep> SubmitSweep(const SweepSpec& spec) override;
  absl::StatusOr<Sweep> GetSweep(std::string_view id) override;
  absl::StatusOr<std::vector<Sweep>> ListSweeps() override;
  absl::StatusOr<Sweep> CancelSweep(std::string_view id) override;
  absl::StatusOr<Sweep> DeleteSweep(std::string_view id, bool force) override;

 private:
  // Runs `call` with a client; once more with a fresh one if it could not connect
  // (the request never reached a server, so nothing is done twice).
  template <typename Call>
  auto WithClient(const Call& call) -> decltype(call(std::declval<const HttpClient&>()));
  // GET, POST or DELETE `path` through WithClient: the body of a 2xx reply.
  absl::StatusOr<std::string> GetBody(const std::string& path, const Query& query = {});
  // GET `path` through WithClient, its body streamed to `sink` (a retry only
  // when the first connection failed, so no byte is delivered twice).
  absl::Status StreamBody(const std::string& path, const Query& query, const ByteSink& sink);
  absl::StatusOr<std::string> PostBody(const std::string& path, const std::string& json);
  absl::StatusOr<std::string> DeleteBody(const std::string& path,
                                         absl::Duration timeout = absl::Seconds(30));
  // DELETE of a job, pipeline or sweep, `force`: with ?force=true, waiting as
  // long as dlpd may take to cancel it and see its jobs end.
  absl::StatusOr<std::string> ForcedDeleteBody(const std::string& path, bool force);

  std::string name_;
  std::unique_ptr<ApiConnector> connector_;
};

// One LogLine from an NDJSON object of GET /v1/jobs/ID/logs.
absl::StatusOr<LogLine> ParseNdjsonLogLine(std::string_view json);

}  // namespace dlp::internal
