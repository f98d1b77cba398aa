// The pieces every flavour shares: metadata and labels, and the pod template
// that runs one rank of a role with dlp-run in pod mode.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/kubernetes/render_input.h"
#include "contract/env_names.h"
#include "dlp/spec.h"

namespace dlp::internal::k8s {
namespace {

namespace names = contract::env;

Json EnvVar(const std::string& name, const std::string& value) {
  return {{"name", name}, {"value", value}};
}

}  // namespace

Json CommonLabels(const RenderInput& in) {
  // The job's own labels (metadata.labels) go on every object and pod, for
  // users' selectors; dlp's keys are set last, so a job cannot take them over.
  Json labels = Json::object();
  for (const auto& [key, value] : in.spec.labels) labels[key] = value;
  labels[kJobIdLabel] = in.options.job_id.empty() ? in.base : in.options.job_id;
  labels[kManagedByLabel] = kManagedBy;
  return labels;
}

Json ObjectMeta(const RenderInput& in, const std::string& name) {
  return {{"name", name}, {"namespace", in.options.name_space}, {"labels", CommonLabels(in)}};
}

bool AddKueueLabels(const RenderInput& in, Json& metadata) {
  if (in.options.queue.empty()) return false;
  metadata["labels"][kQueueNameLabel] = in.options.queue;
  if (!in.priority_class.empty()) metadata["labels"][kPriorityClassLabel] = in.priority_class;
  return true;
}

Json RoleResources(const Resources& resources, const std::string& gpu_resource) {
  Json requests = {{"cpu", FormatCpuMillis(resources.cpu_millis)}};
  Json limits = Json::object();
  if (resources.memory_bytes > 0) {
    requests["memory"] = FormatMemoryBytes(resources.memory_bytes);
    limits["memory"] = requests["memory"];
  }
  if (resources.gpu_millis > 0) {
    // Extended resources come in whole units with requests equal to limits;
    // a fraction takes a whole device, as dlp-run does without dlpd.
    const std::string gpus = absl::StrCat((resources.gpu_millis + 999) / 1000);
    requests[gpu_resource] = gpus;
    limits[gpu_resource] = gpus;
  }
  Json out = {{"requests", requests}};
  if (!limits.empty()) out["limits"] = limits;
  return out;
}

std::string GpuTypeLabelValue(const std::string& gpu_type) {
  // Label values allow no spaces; feature discovery writes them as '-'.
  return absl::StrReplaceAll(gpu_type, {{" ", "-"}});
}

void AddGpuTypeSelector(const RenderInput& in, const ReplicaSpec& role, Json& pod_spec) {
  if (role.resources.gpu_type.empty()) return;
  pod_spec["nodeSelector"][in.options.gpu_type_label] = GpuTypeLabelValue(role.resources.gpu_type);
}

Json GroupVolume(const RenderInput& in) {
  return {{"name", kGroupVolume}, {"configMap", {{"name", in.config_map}}}};
}

Json GroupVolumeMount() {
  return {{"name", kGroupVolume}, {"mountPath", kGroupMountDir}, {"readOnly", true}};
}

Json PodVolumes(const RenderInput& in) {
  Json volumes = Json::array();
  volumes.push_back(GroupVolume(in));
  if (!in.options.output_claim.empty()) {
    volumes.push_back({{"name", kOutputVolume},
                       {"persistentVolumeClaim", {{"claimName", in.options.output_claim}}}});
  }
  return volumes;
}

Json PodVolumeMounts(const RenderInput& in) {
  Json mounts = Json::array();
  mounts.push_back(GroupVolumeMount());
  if (!in.options.output_claim.empty()) {
    mounts.push_back({{"name", kOutputVolume}, {"mountPath", kOutputsMountDir}});
    mounts.push_back({{"name", kOutputVolume},
                      {"mountPath", kOwnOutputDir},
                      {"subPath", CommonLabels(in)[kJobIdLabel]}});
  }
  return mounts;
}

std::string OutputDirOf(const std::string& job_id) {
  return absl::StrCat(kOutputsMountDir, "/", job_id);
}

Json RoleContainer(const RenderInput& in, const ReplicaSpec& role, const std::string& host_pattern,
                   const std::string& container_name) {
  Json env = Json::array();
  for (const auto& [name, value] : role.env) env.push_back(EnvVar(name, value));
  env.push_back(EnvVar(names::kPodRole, role.role));
  env.push_back(EnvVar(names::kPodHostPattern, host_pattern));
  env.push_back(EnvVar(names::kJobName, in.spec.name));
  if (!in.options.rdzv_secret.empty()) {
    env.push_back(EnvVar(names::kRdzvSecret, in.options.rdzv_secret));
  }
  if (!in.options.job_id.empty()) env.push_back(EnvVar(names::kJobId, in.options.job_id));
  if (!in.options.output_claim.empty()) env.push_back(EnvVar(names::kOutputDir, kOwnOutputDir));
  if (in.options.flavour == "jobset") {
    // Each JobSet restart recreates the pods with this label raised: the
    // ranks' DLP_RESTART_COUNT.
    env.push_back(
        {{"name", names::kRestartCount},
         {"valueFrom",
          {{"fieldRef",
            {{"fieldPath", absl::StrCat("metadata.labels['", kJobSetRestartLabel, "']")}}}}}});
  }
  Json container = {
      {"name", container_name},
      {"image", in.image},
      {"command",
       {in.options.dlp_run, "--group", absl::StrCat(kGroupMountDir, "/", kGroupKey),
        "--rank-source", "kubernetes", "--relay-traces"}},
      {"env", env},
      {"resources", RoleResources(role.resources, in.options.gpu_resource)},
      {"volumeMounts", PodVolumeMounts(in)},
  };
  if (!in.spec.workdir.empty()) container["workingDir"] = in.spec.workdir;
  return container;
}

Json RolePodTemplate(const RenderInput& in, const ReplicaSpec& role,
                     const std::string& host_pattern, const std::string& subdomain) {
  Json labels = CommonLabels(in);
  labels[kRoleLabel] = role.role;
  Json spec = {
      {"restartPolicy", "Never"},
      {"containers", {RoleContainer(in, role, host_pattern)}},
      {"volumes", PodVolumes(in)},
  };
  if (!subdomain.empty()) spec["subdomain"] = subdomain;
  AddGpuTypeSelector(in, role, spec);
  // Without Kueue, a nonzero priority asks the scheduler through a PriorityClass.
  if (in.options.queue.empty() && !in.priority_class.empty()) {
    spec["priorityClassName"] = in.priority_class;
  }
  return {{"metadata", {{"labels", labels}}}, {"spec", spec}};
}

Json ExitCodePodFailurePolicy() {
  Json codes = Json::array();
  for (int code = 1; code <= 127; ++code) codes.push_back(code);
  return {{"rules",
           {{{"action", "FailJob"},
             {"onExitCodes",
              {{"containerName", kContainerName}, {"operator", "In"}, {"values", codes}}}}}}};
}

}  // namespace dlp::internal::k8s
