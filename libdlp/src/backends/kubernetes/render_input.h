// What RenderManifests builds every object from, and the pieces the flavours
// share (metadata, the pod template of a role). Private to manifests*.cc and
// flavour_*.cc; docs/kubernetes.md ("Mapping") says what each field becomes.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "backends/kubernetes/manifests.h"
#include "dlp/job.h"
#include "nlohmann/json.hpp"

namespace dlp::internal::k8s {

using Json = nlohmann::json;

inline constexpr char kJobIdLabel[] = "dlp.dev/job-id";
inline constexpr char kRoleLabel[] = "dlp.dev/role";
inline constexpr char kManagedByLabel[] = "app.kubernetes.io/managed-by";
inline constexpr char kManagedBy[] = "dlp";
inline constexpr char kQueueNameLabel[] = "kueue.x-k8s.io/queue-name";
inline constexpr char kPriorityClassLabel[] = "kueue.x-k8s.io/priority-class";
// JobSet labels each attempt's pods with its restart count.
inline constexpr char kJobSetRestartLabel[] = "jobset.sigs.k8s.io/restart-attempt";

// Where each pod finds the group file (the ConfigMap's key, mounted).
inline constexpr char kGroupVolume[] = "dlp-group";
inline constexpr char kGroupMountDir[] = "/etc/dlp";
inline constexpr char kGroupKey[] = "group.json";
inline constexpr char kContainerName[] = "dlp";
// Where each pod mounts the context's output-claim: the whole volume (every
// job's output folder, for ${jobs.NAME.outputDir}) and its own folder in it,
// DLP_OUTPUT_DIR, which the kubelet creates as the mount's subPath.
inline constexpr char kOutputVolume[] = "dlp-outputs";
inline constexpr char kOwnOutputDir[] = "/dlp/output";
// Room left in a 63-byte host name for "-evaluator-0-1023" after the base name.
inline constexpr size_t kMaxBaseNameBytes = 40;

struct RenderInput {
  const JobSpec& spec;
  const RenderOptions& options;
  std::string base;        // the workload's and the headless Service's name
  std::string config_map;  // the group file's ConfigMap
  std::string image;
  std::string priority_class;  // "" for the default priority (0)
};

// A DNS-1035 label of at most kMaxBaseNameBytes from the job's name and id
// ("train-7"): lowercase, a letter first, the id kept whole when it fits.
std::string BaseName(const std::string& job_name, const std::string& job_id);
// The (Workload)PriorityClass a spec priority maps to: "dlp-high" for the named
// classes of dlp-job(5), "dlp-priority-250" / "dlp-priority-minus-5" otherwise.
std::string PriorityClassName(int priority);

// The job's metadata.labels, then dlp.dev/job-id and app.kubernetes.io/managed-by.
Json CommonLabels(const RenderInput& in);
// {name, namespace, labels: CommonLabels}.
Json ObjectMeta(const RenderInput& in, const std::string& name);
// Adds the Kueue labels (queue, priority class) to a workload's metadata when
// options.queue is set; returns whether it did (the workload is then suspended).
bool AddKueueLabels(const RenderInput& in, Json& metadata);

// The container that runs one pod's rank of `role`: dlp-run on the group file
// in pod mode, the role's env and resources, every rank's host name pattern.
Json RoleContainer(const RenderInput& in, const ReplicaSpec& role, const std::string& host_pattern,
                   const std::string& container_name = kContainerName);
// requests/limits of one replica (cpu, memory, whole GPUs as options.gpu_resource).
Json RoleResources(const Resources& resources, const std::string& gpu_resource);
// resources.gpuType as a node selector on options.gpu_type_label (GPU feature
// discovery's product label: "NVIDIA H200" selects "NVIDIA-H200"); none when
// the role names no type.
void AddGpuTypeSelector(const RenderInput& in, const ReplicaSpec& role, Json& pod_spec);
std::string GpuTypeLabelValue(const std::string& gpu_type);
// The ConfigMap volume and its mount.
Json GroupVolume(const RenderInput& in);
Json GroupVolumeMount();
// A pod's volumes and a container's mounts: the group file's, and the
// output claim's when options.output_claim is set.
Json PodVolumes(const RenderInput& in);
Json PodVolumeMounts(const RenderInput& in);
// A PodTemplateSpec for `role`: labels, restartPolicy Never, the container, the
// group volume; `subdomain` non-empty sets spec.subdomain.
Json RolePodTemplate(const RenderInput& in, const ReplicaSpec& role,
                     const std::string& host_pattern, const std::string& subdomain = "");
// podFailurePolicy for restartPolicy ExitCode: exit codes 1-127 fail the Job
// at once (no restart); signals and 128-255 leave it to the restart budget.
Json ExitCodePodFailurePolicy();

// The workload of each flavour. InvalidArgument naming the spec field the
// flavour cannot express.
absl::StatusOr<Json> JobSetWorkload(const RenderInput& in);
absl::StatusOr<Json> BatchJobWorkload(const RenderInput& in);
absl::StatusOr<Json> TrainJobWorkload(const RenderInput& in);
absl::StatusOr<Json> VolcanoJobWorkload(const RenderInput& in);

}  // namespace dlp::internal::k8s
