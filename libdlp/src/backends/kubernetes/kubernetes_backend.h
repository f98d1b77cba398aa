// The Kubernetes backend: a dlp job is a ConfigMap (the group file and dlp's
// record of the job: its spec, flavour and whether it was cancelled), a
// headless Service and a workload (JobSet, Job, TrainJob or Volcano Job), all
// labelled app.kubernetes.io/managed-by=dlp and dlp.dev/job-id=ID
// (manifests.h renders them). State comes from the cluster on every call;
// nothing is kept on the client machine.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "backends/kubernetes/api_client.h"
#include "backends/kubernetes/manifests.h"
#include "backends/kubernetes/pipelines.h"
#include "backends/kubernetes/status_mapping.h"
#include "dlp/backend.h"
#include "dlp/backend_capabilities.h"

namespace dlp::internal::k8s {

// A context's fields (docs/kubernetes.md): kubeconfig, context, namespace,
// flavour, queue, image, gpu-resource, gpu-type-label, training-runtime.
struct KubernetesOptions {
  std::string kubeconfig;    // ':'-separated files; empty: $KUBECONFIG or ~/.kube/config
  std::string kube_context;  // empty: the kubeconfig's current-context
  std::string name_space;    // empty: the kube context's, else "default"
  RenderOptions render;      // flavour, queue, image, gpu_resource, training_runtime
};

// InvalidArgument for an unknown flavour.
absl::StatusOr<KubernetesOptions> KubernetesOptionsOf(const Context& context);

// A random job id, DNS-safe and short ("k3x9q2ab"): the objects' names join
// it to the job's name (manifests.h).
std::string NewJobId();

// Pipelines move on only while a `dlp` process steps them (pipelines.h); a
// job's objects have a JSON form (`dlp render -o json`).
class KubernetesBackend final : public Backend, public PipelineService, public ObjectRenderer {
 public:
  explicit KubernetesBackend(KubernetesOptions options);

  std::string Name() const override { return "kubernetes"; }
  PipelineService* pipelines() override { return this; }
  ObjectRenderer* objects() override { return this; }
  absl::StatusOr<Job> Submit(const JobSpec& spec) override;
  absl::StatusOr<Job> Get(std::string_view id) override;
  absl::StatusOr<std::vector<Job>> List(const ListFilter& filter) override;
  absl::StatusOr<Job> Cancel(std::string_view id) override;
  absl::StatusOr<Job> Wait(std::string_view id, absl::Duration timeout) override;
  absl::Status Logs(std::string_view id, const LogOptions& options, const LogSink& sink) override;
  absl::StatusOr<std::vector<Event>> Events(std::string_view id) override;
  // Multi-document YAML, after a note on an elastic role it runs at its count.
  absl::StatusOr<std::string> Render(const JobSpec& spec) override;
  absl::StatusOr<std::string> RenderObjects(const JobSpec& spec) override;  // a JSON list
  absl::StatusOr<std::vector<TraceFile>> TraceFiles(std::string_view id) override;

  // Pipelines (pipelines.h); StepPipeline moves one on (dlp/pipeline_driver.h).
  absl::StatusOr<Pipeline> SubmitPipeline(const PipelineSpec& spec) override;
  absl::StatusOr<Pipeline> GetPipeline(std::string_view id) override;
  absl::StatusOr<std::vector<Pipeline>> ListPipelines() override;
  absl::StatusOr<Pipeline> CancelPipeline(std::string_view id) override;
  bool SteppedInForeground() const override { return true; }
  absl::StatusOr<Pipeline> StepPipeline(std::string_view id) override;

  // Submit with a given job id and extra labels on every object. Again (a
  // step repeated after an interrupted one): an object that already exists
  // is taken as created, and a job already cancelled is left so.
  absl::StatusOr<Job> SubmitAs(const JobSpec& spec, const std::string& id,
                               const std::map<std::string, std::string>& labels);
  const RenderOptions& render_options() const { return options_.render; }

 private:
  friend class KubernetesPipelines;
  // The API client, from the kubeconfig on first use (so `dlp render` needs none).
  absl::StatusOr<const ApiClient*> Api();
  const std::string& Namespace() const { return name_space_; }
  // The objects of `spec` under this context, without a job id (render.cc).
  absl::StatusOr<std::vector<nlohmann::json>> Manifests(const JobSpec& spec) const;
  // One job's objects; NotFound when its record does not exist.
  absl::StatusOr<JobObjects> Read(const ApiClient& api, std::string_view id);
  absl::StatusOr<ResourceType> WorkloadTypeOf(const nlohmann::json& record) const;
  // One Wait: reads the job, then watches its workload until it ends or the
  // timeout passes; keeps each state it reads in last_waited_.
  absl::StatusOr<Job> WatchJob(std::string_view id, absl::Duration timeout);

  KubernetesOptions options_;
  std::once_flag connect_once_;
  absl::StatusOr<std::unique_ptr<ApiClient>> api_ = absl::UnknownError("not connected");
  std::string name_space_;
  // What a Wait last read, and when: Wait's answer while the API server
  // cannot be reached.
  std::optional<Job> last_waited_;
  absl::Time last_answer_ = absl::InfinitePast();
  KubernetesPipelines pipelines_{*this};
};

}  // namespace dlp::internal::k8s
