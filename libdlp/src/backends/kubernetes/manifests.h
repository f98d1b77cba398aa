// A validated JobSpec as Kubernetes objects (docs/kubernetes.md, "Mapping").
// The backend creates them in order; `dlp render --backend kubernetes` prints
// them. Pure: no I/O, the same spec and options give the same objects.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/spec.h"
#include "nlohmann/json.hpp"

namespace dlp::internal::k8s {

// What a context (or `dlp render` flags) add to a spec.
struct RenderOptions {
  std::string flavour = "jobset";  // jobset | job | trainjob | volcano
  std::string name_space = "default";
  // dlp.dev/job-id label and object names; set by Submit. Empty (`dlp render`):
  // objects are named after the job, and labelled with that name.
  std::string job_id;
  std::string queue;                // Kueue LocalQueue (or Volcano queue); empty: none
  std::string image;                // when spec.image is empty
  std::string gpu_resource = "nvidia.com/gpu";
  // The node label a role's resources.gpuType selects on.
  std::string gpu_type_label = "nvidia.com/gpu.product";
  // trainjob: a ClusterTrainingRuntime's name, or TrainingRuntime/NAME for one
  // in the job's namespace.
  std::string training_runtime;
  std::string dlp_run = "dlp-run";  // the launcher's path inside the image
  // A PersistentVolumeClaim (ReadWriteMany) every pod mounts at
  // kOutputsMountDir: each job's DLP_OUTPUT_DIR is its folder there, which
  // later jobs of a pipeline read as ${jobs.NAME.outputDir}. Empty: none.
  std::string output_claim;
  // The ranks' rendezvous secret (DLP_RDZV_SECRET, docs/runtime-contract.md),
  // drawn by Submit for each job: every pod carries it, so it is readable to
  // whoever may read the workload in its namespace. Empty (`dlp render`): the
  // pods carry none, and whoever applies them must add one.
  std::string rdzv_secret;
};

// Where a pod sees the output folder of job `job_id` (on output_claim).
inline constexpr char kOutputsMountDir[] = "/dlp/outputs";
std::string OutputDirOf(const std::string& job_id);

// The objects to create, in creation order: the ConfigMap with the group file,
// the headless Service, then the workload (JobSet, Job, TrainJob or Volcano Job).
// InvalidArgument naming the field for a spec the flavour cannot express.
absl::StatusOr<std::vector<nlohmann::json>> RenderManifests(const JobSpec& spec,
                                                            const RenderOptions& options);

// The flavour's workload kind and API group/version/resource, for the client's
// URLs ("jobsets", "jobset.x-k8s.io", "v1alpha2").
struct WorkloadResource {
  std::string group;     // "" for the core group
  std::string version;
  std::string resource;  // plural
  std::string kind;
};
absl::StatusOr<WorkloadResource> WorkloadResourceOf(const std::string& flavour);

}  // namespace dlp::internal::k8s
