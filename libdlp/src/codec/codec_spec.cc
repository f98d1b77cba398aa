// JobSpec <-> JSON, the form of docs/api.md ("JobSpec (as submitted)").
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "codec/codec_internal.h"
#include "dlp/codec.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "spec/field_names.h"
#include "spec/rules.h"

namespace dlp {
namespace internal {
namespace {

std::optional<Framework> FrameworkFromJson(absl::string_view name) {
  for (Framework f : {Framework::kNone, Framework::kPyTorch, Framework::kTensorFlow,
                      Framework::kHorovod, Framework::kJax}) {
    if (ToAbsl(FrameworkName(f)) == name) return f;
  }
  return std::nullopt;
}

std::optional<RestartPolicyKind> PolicyFromJson(absl::string_view name) {
  for (RestartPolicyKind k :
       {RestartPolicyKind::kNever, RestartPolicyKind::kOnFailure, RestartPolicyKind::kExitCode}) {
    if (ToAbsl(RestartPolicyName(k)) == name) return k;
  }
  return std::nullopt;
}

// The members of the JSON form (docs/api.md) where they differ from YAML's.
constexpr absl::string_view kSpecMembers[] = {"name",
                                               "labels",
                                               "framework",
                                               "queue",
                                               "priority",
                                               "replicas",
                                               "workdir",
                                               "image",
                                               "restartPolicy",
                                               "successPolicy",
                                               "activeDeadlineSeconds",
                                               "logs",
                                               "preemptible",
                                               "tracing",
                                               "preemption",
                                               "dependsOn"};
constexpr absl::string_view kReplicaMembers[] = {"role",    "count", "minCount",
                                                 "command", "env",   "resources"};

absl::Status Prefixed(absl::string_view path, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", status.message()));
}

// cpu: "500m", "2" or a number of CPUs; memory: "2Gi", a number of bytes or null.
absl::Status ReadResources(const Json& object, absl::string_view path, Resources* out) {
  if (const auto it = object.find("cpu"); it != object.end() && !it->is_null()) {
    const std::string p = absl::StrCat(path, ".cpu");
    if (it->is_string()) {
      absl::StatusOr<int64_t> millis = ParseCpuMillis(it->get<std::string>());
      if (!millis.ok()) return Prefixed(p, millis.status());
      out->cpu_millis = *millis;
    } else if (it->is_number()) {
      // A number of CPUs; anything past the spec's maximum is refused by
      // ValidateJobSpec, but must first convert without overflow.
      const double cpus = it->get<double>();
      if (!std::isfinite(cpus) || std::fabs(cpus) > 1e12) {
        return absl::InvalidArgumentError(absl::StrCat(p, ": ", it->dump(), " is out of range"));
      }
      out->cpu_millis = std::llround(cpus * 1000);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(p, ": expected a CPU quantity, got ", it->type_name()));
    }
  }
  if (const auto it = object.find("memory"); it != object.end() && !it->is_null()) {
    const std::string p = absl::StrCat(path, ".memory");
    if (it->is_string()) {
      absl::StatusOr<int64_t> bytes = ParseMemoryBytes(it->get<std::string>());
      if (!bytes.ok()) return Prefixed(p, bytes.status());
      out->memory_bytes = *bytes;
    } else if (it->is_number_integer()) {
      if (it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX) {
        return absl::InvalidArgumentError(absl::StrCat(p, ": ", it->dump(), " is out of range"));
      }
      out->memory_bytes = it->get<int64_t>();
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(p, ": expected a memory quantity, got ", it->type_name()));
    }
  }
  if (const auto it = object.find("gpu"); it != object.end() && !it->is_null()) {
    const std::string p = absl::StrCat(path, ".gpu");
    if (it->is_string()) {
      absl::StatusOr<int64_t> millis = ParseGpuMillis(it->get<std::string>());
      if (!millis.ok()) return Prefixed(p, millis.status());
      out->gpu_millis = *millis;
    } else if (it->is_number()) {
      // A number of GPUs (0.5); ValidateJobSpec checks the range and grain.
      const double gpus = it->get<double>();
      if (!std::isfinite(gpus) || std::fabs(gpus) > 1e12) {
        return absl::InvalidArgumentError(absl::StrCat(p, ": ", it->dump(), " is out of range"));
      }
      const double millis = gpus * 1000;
      if (std::fabs(millis - std::round(millis)) > 1e-6) {
        return absl::InvalidArgumentError(
            absl::StrCat(p, ": ", it->dump(), " is finer than 0.001, a thousandth of a GPU"));
      }
      out->gpu_millis = std::llround(millis);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(p, ": expected a number of GPUs, got ", it->type_name()));
    }
  }
  return ReadString(object, path, "gpuType", &out->gpu_type);
}

absl::StatusOr<ReplicaSpec> ReplicaFromJson(const Json& value, const std::string& path,
                                            UnknownFields unknown) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected an object, got ", value.type_name()));
  }
  if (unknown == UnknownFields::kRefuse) {
    DLP_RETURN_IF_ERROR(RefuseUnknownMembers(value, path, kReplicaMembers));
  }
  ReplicaSpec r;
  DLP_RETURN_IF_ERROR(ReadString(value, path, "role", &r.role));
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "count", &r.count));
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "minCount", &r.min_count));
  DLP_RETURN_IF_ERROR(ReadStringList(value, path, "command", &r.command));
  DLP_RETURN_IF_ERROR(ReadStringMap(value, path, "env", &r.env));
  DLP_ASSIGN_OR_RETURN(const Json* resources, ReadObject(value, path, "resources"));
  if (resources != nullptr) {
    if (unknown == UnknownFields::kRefuse) {
      DLP_RETURN_IF_ERROR(RefuseUnknownMembers(*resources, path + ".resources", kResourceFields));
    }
    DLP_RETURN_IF_ERROR(ReadResources(*resources, path + ".resources", &r.resources));
  }
  return r;
}

// "priority": an integer, or one of the named classes of dlp-job(5) as in YAML.
absl::Status ReadPriority(const Json& value, absl::string_view path, int* out) {
  const auto m = value.find("priority");
  if (m == value.end() || !m->is_string()) return ReadInt(value, path, "priority", out);
  const std::string name = m->get<std::string>();
  if (std::optional<int> v = PriorityClassValue(name)) {
    *out = *v;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      path, path.empty() ? "" : ".", "priority: unknown priority class \"", name,
      "\" (expected an integer or one of: low, normal, high, critical)"));
}

}  // namespace

OrderedJson DependsOnJson(const std::vector<JobDependency>& depends_on) {
  OrderedJson list = OrderedJson::array();
  for (const JobDependency& d : depends_on) {
    list.push_back({{"job", d.job}, {"condition", DependencyConditionName(d.condition)}});
  }
  return list;
}

absl::StatusOr<std::vector<JobDependency>> DependsOnFromJson(const Json& object,
                                                             absl::string_view path,
                                                             UnknownFields unknown) {
  std::vector<JobDependency> out;
  DLP_ASSIGN_OR_RETURN(const Json* list, ReadArray(object, path, "dependsOn"));
  if (list == nullptr) return out;
  if (list->size() > static_cast<size_t>(kMaxDependencies)) {
    return absl::InvalidArgumentError(absl::StrCat(path, path.empty() ? "" : ".",
                                                   "dependsOn: ", list->size(),
                                                   " dependencies; at most ", kMaxDependencies));
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string p = absl::StrCat(path, path.empty() ? "" : ".", "dependsOn[", i, "]");
    if (!(*list)[i].is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat(p, ": expected an object, got ", (*list)[i].type_name()));
    }
    if (unknown == UnknownFields::kRefuse) {
      DLP_RETURN_IF_ERROR(RefuseUnknownMembers((*list)[i], p, kDependencyFields));
    }
    JobDependency d;
    DLP_RETURN_IF_ERROR(ReadString((*list)[i], p, "job", &d.job));
    std::string condition = "succeeded";
    DLP_RETURN_IF_ERROR(ReadString((*list)[i], p, "condition", &condition));
    std::optional<DependencyCondition> c = ParseDependencyCondition(condition);
    if (!c) {
      return absl::InvalidArgumentError(
          absl::StrCat(p, ".condition: unknown condition \"", condition,
                       "\" (expected one of: succeeded, failed, finished)"));
    }
    d.condition = *c;
    out.push_back(std::move(d));
  }
  return out;
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

absl::StatusOr<JobSpec> SpecFromJsonValue(const Json& value, absl::string_view path,
                                          UnknownFields unknown) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path.empty() ? "job spec" : path, ": expected an object, got ", value.type_name()));
  }
  const bool refuse = unknown == UnknownFields::kRefuse;
  if (refuse) DLP_RETURN_IF_ERROR(RefuseUnknownMembers(value, path, kSpecMembers));
  auto member_path = [&path](absl::string_view name) {
    return absl::StrCat(path, path.empty() ? "" : ".", name);
  };
  JobSpec spec;
  DLP_RETURN_IF_ERROR(ReadString(value, path, "name", &spec.name));
  DLP_RETURN_IF_ERROR(ReadStringMap(value, path, "labels", &spec.labels));
  std::string framework = "none";
  DLP_RETURN_IF_ERROR(ReadString(value, path, "framework", &framework));
  if (auto f = FrameworkFromJson(framework)) {
    spec.framework = *f;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(path, path.empty() ? "" : ".", "framework: unknown framework \"", framework,
                     "\" (expected one of: pytorch, tensorflow, horovod, jax, none)"));
  }
  DLP_RETURN_IF_ERROR(ReadString(value, path, "queue", &spec.queue));
  DLP_RETURN_IF_ERROR(ReadPriority(value, path, &spec.priority));
  DLP_ASSIGN_OR_RETURN(const Json* replicas, ReadArray(value, path, "replicas"));
  if (replicas != nullptr) {
    for (size_t i = 0; i < replicas->size(); ++i) {
      const std::string p = absl::StrCat(path, path.empty() ? "" : ".", "replicas[", i, "]");
      DLP_ASSIGN_OR_RETURN(ReplicaSpec r, ReplicaFromJson((*replicas)[i], p, unknown));
      spec.replicas.push_back(std::move(r));
    }
  }
  DLP_RETURN_IF_ERROR(ReadString(value, path, "workdir", &spec.workdir));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "image", &spec.image));
  DLP_ASSIGN_OR_RETURN(const Json* restart, ReadObject(value, path, "restartPolicy"));
  if (restart != nullptr) {
    const std::string p = member_path("restartPolicy");
    if (refuse) DLP_RETURN_IF_ERROR(RefuseUnknownMembers(*restart, p, kRestartFields));
    std::string policy = "Never";
    DLP_RETURN_IF_ERROR(ReadString(*restart, p, "policy", &policy));
    if (auto k = PolicyFromJson(policy)) {
      spec.restart_policy.policy = *k;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(p, ".policy: unknown restart policy \"", policy,
                       "\" (expected one of: Never, OnFailure, ExitCode)"));
    }
    DLP_RETURN_IF_ERROR(ReadInt(*restart, p, "maxRestarts", &spec.restart_policy.max_restarts));
    DLP_RETURN_IF_ERROR(
        ReadInt(*restart, p, "backoffSeconds", &spec.restart_policy.backoff_seconds));
  }
  DLP_ASSIGN_OR_RETURN(const Json* success, ReadObject(value, path, "successPolicy"));
  if (success != nullptr) {
    const std::string p = member_path("successPolicy");
    if (refuse) DLP_RETURN_IF_ERROR(RefuseUnknownMembers(*success, p, kSuccessPolicyFields));
    DLP_RETURN_IF_ERROR(ReadStringList(*success, p, "roles", &spec.success_policy.roles));
    if (Problem problem = CheckSuccessRoleCount(spec.success_policy.roles.size())) {
      return absl::InvalidArgumentError(absl::StrCat(p, ".roles: ", *problem));
    }
  }
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "activeDeadlineSeconds", &spec.active_deadline_seconds));
  DLP_ASSIGN_OR_RETURN(const Json* logs, ReadObject(value, path, "logs"));
  if (logs != nullptr) {
    const std::string p = member_path("logs");
    if (refuse) DLP_RETURN_IF_ERROR(RefuseUnknownMembers(*logs, p, kLogsFields));
    DLP_RETURN_IF_ERROR(ReadInt(*logs, p, "maxBytes", &spec.logs.max_bytes));
  }
  DLP_RETURN_IF_ERROR(ReadBool(value, path, "preemptible", &spec.preemptible));
  std::string tracing = "sampled";
  DLP_RETURN_IF_ERROR(ReadString(value, path, "tracing", &tracing));
  if (auto t = ParseTracing(tracing)) {
    spec.tracing = *t;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(member_path("tracing"), ": unknown tracing \"",
                                                   tracing, "\" (expected sampled, full or off)"));
  }
  DLP_ASSIGN_OR_RETURN(const Json* preemption, ReadObject(value, path, "preemption"));
  if (preemption != nullptr) {
    const std::string p = member_path("preemption");
    if (refuse) DLP_RETURN_IF_ERROR(RefuseUnknownMembers(*preemption, p, kPreemptionFields));
    DLP_RETURN_IF_ERROR(
        ReadInt(*preemption, p, "gracePeriodSeconds", &spec.preemption.grace_period_seconds));
  }
  DLP_ASSIGN_OR_RETURN(spec.depends_on, DependsOnFromJson(value, path, unknown));
  return spec;
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
  return internal::SpecFromJsonValue(value, "");
}

}  // namespace dlp
