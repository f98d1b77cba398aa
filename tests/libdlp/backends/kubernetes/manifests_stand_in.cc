// A stand-in for libdlp's RenderManifests until the renderer lands: the three
// objects in their order, with the labels the backend relies on. Test-only;
// delete once libdlp/src/backends/kubernetes/manifests.cc exists.
#include "backends/kubernetes/manifests.h"

namespace dlp::internal::k8s {

absl::StatusOr<WorkloadResource> WorkloadResourceOf(const std::string& flavour) {
  if (flavour == "jobset")
    return WorkloadResource{"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet"};
  if (flavour == "job") return WorkloadResource{"batch", "v1", "jobs", "Job"};
  if (flavour == "trainjob") {
    return WorkloadResource{"trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob"};
  }
  if (flavour == "volcano") return WorkloadResource{"batch.volcano.sh", "v1alpha1", "jobs", "Job"};
  return absl::InvalidArgumentError("unknown flavour '" + flavour + "'");
}

absl::StatusOr<std::vector<nlohmann::json>> RenderManifests(const JobSpec& spec,
                                                            const RenderOptions& options) {
  auto workload = WorkloadResourceOf(options.flavour);
  if (!workload.ok()) return workload.status();
  nlohmann::json labels = {{"app.kubernetes.io/managed-by", "dlp"},
                           {"dlp.dev/job-id", options.job_id}};
  nlohmann::json workload_labels = labels;
  if (!options.queue.empty()) workload_labels["kueue.x-k8s.io/queue-name"] = options.queue;
  auto meta = [&](const std::string& name, const nlohmann::json& with) {
    return nlohmann::json{{"name", name}, {"namespace", options.name_space}, {"labels", with}};
  };
  const std::string group =
      workload->group.empty() ? workload->version : workload->group + "/" + workload->version;
  return std::vector<nlohmann::json>{
      {{"apiVersion", "v1"},
       {"kind", "ConfigMap"},
       {"metadata", meta(options.job_id + "-group", labels)},
       {"data", {{"group.json", "{}"}}}},
      {{"apiVersion", "v1"},
       {"kind", "Service"},
       {"metadata", meta(options.job_id, labels)},
       {"spec", {{"clusterIP", "None"}, {"selector", labels}}}},
      {{"apiVersion", group},
       {"kind", workload->kind},
       {"metadata", meta(options.job_id, workload_labels)},
       {"spec", {{"suspend", !options.queue.empty()}, {"replicas", spec.replicas.size()}}}}};
}

}  // namespace dlp::internal::k8s
