// JobSpec <-> JSON, the form of schema/api.schema.json's JobSpec: the one
// encoder (a spec's YAML is this reshaped), and the one decoder's entry
// (spec/decoder.h) for JSON text.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "codec/codec_internal.h"
#include "dlp/codec.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "spec/decoder.h"

namespace dlp {
namespace internal {

OrderedJson DependsOnJson(const std::vector<JobDependency>& depends_on) {
  OrderedJson list = OrderedJson::array();
  for (const JobDependency& d : depends_on) {
    list.push_back({{"job", d.job}, {"condition", DependencyConditionName(d.condition)}});
  }
  return list;
}

OrderedJson GpuJson(int64_t millis) {
  if (millis % 1000 == 0) return OrderedJson(millis / 1000);
  return OrderedJson(static_cast<double>(millis) / 1000);
}

OrderedJson SpecToJsonValue(const JobSpec& spec) {
  OrderedJson replicas = OrderedJson::array();
  for (const ReplicaSpec& r : spec.replicas) {
    OrderedJson resources = {{"cpu", FormatCpuMillis(r.resources.cpu_millis)},
                             {"memory", FormatMemoryBytes(r.resources.memory_bytes)},
                             {"gpu", GpuJson(r.resources.gpu_millis)}};
    if (!r.resources.gpu_type.empty()) resources["gpuType"] = r.resources.gpu_type;
    OrderedJson replica = {{"role", r.role}, {"count", r.count}};
    if (r.min_count != 0) replica["minCount"] = r.min_count;  // absent: rigid
    replica["command"] = r.command;
    replica["env"] = OrderedJson(r.env);
    replica["resources"] = std::move(resources);
    replicas.push_back(std::move(replica));
  }
  OrderedJson json{
      {"name", spec.name},
      {"labels", OrderedJson(spec.labels)},
      {"framework", FrameworkName(spec.framework)},
      {"queue", spec.queue},
      {"priority", spec.priority},
      {"replicas", replicas},
      {"workdir", spec.workdir},
      {"restartPolicy",
       {{"policy", RestartPolicyName(spec.restart_policy.policy)},
        {"maxRestarts", spec.restart_policy.max_restarts},
        {"backoffSeconds", spec.restart_policy.backoff_seconds}}},
      {"activeDeadlineSeconds", spec.active_deadline_seconds},
  };
  // Written only when set, as logs: specs stored before read the same.
  if (!spec.image.empty()) json["image"] = spec.image;
  if (spec.logs.max_bytes != 0) json["logs"] = {{"maxBytes", spec.logs.max_bytes}};
  // Written only when not the default, as logs: specs stored before read the same.
  if (!spec.preemptible) json["preemptible"] = false;
  if (spec.tracing != Tracing::kSampled) json["tracing"] = TracingName(spec.tracing);
  if (spec.preemption != PreemptionSpec()) {
    json["preemption"] = {{"gracePeriodSeconds", spec.preemption.grace_period_seconds}};
  }
  if (!spec.depends_on.empty()) json["dependsOn"] = DependsOnJson(spec.depends_on);
  if (!spec.success_policy.roles.empty()) {
    json["successPolicy"] = {{"roles", spec.success_policy.roles}};
  }
  return json;
}

}  // namespace internal

std::string JobSpecToJson(const JobSpec& spec, int indent) {
  return internal::DumpJson(internal::SpecToJsonValue(spec), indent);
}

absl::StatusOr<JobSpec> JobSpecFromJson(std::string_view json) {
  if (json.size() > internal::kMaxSpecBytes) {
    return absl::InvalidArgumentError(absl::StrCat("a job spec of ", json.size(),
                                                   " bytes; at most ", internal::kMaxSpecBytes,
                                                   " (", internal::kMaxSpecBytes >> 20, " MiB)"));
  }
  DLP_ASSIGN_OR_RETURN(internal::Json value, internal::ParseJson(json, "a job spec"));
  // nlohmann refuses invalid UTF-8 (with its position) but takes "\u0000".
  DLP_RETURN_IF_ERROR(internal::RefuseNulEscapes(json, "a job spec"));
  return internal::DecodeJsonSpec(value, "");
}

}  // namespace dlp
