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

namespace js = schema::job_spec;

OrderedJson DependsOnJson(const std::vector<JobDependency>& depends_on) {
  namespace fields = schema::dependency;
  OrderedJson list = OrderedJson::array();
  for (const JobDependency& d : depends_on) {
    OrderedJson item = OrderedJson::object();
    Put(item, fields::kJob, d.job);
    Put(item, fields::kCondition, DependencyConditionName(d.condition));
    list.push_back(std::move(item));
  }
  return list;
}

OrderedJson GpuJson(int64_t millis) {
  if (millis % 1000 == 0) return OrderedJson(millis / 1000);
  return OrderedJson(static_cast<double>(millis) / 1000);
}

namespace {

OrderedJson ReplicaJson(const ReplicaSpec& r) {
  namespace fields = schema::replica_spec;
  namespace res = schema::replica_spec_resources;
  OrderedJson resources = OrderedJson::object();
  Put(resources, res::kCpu, FormatCpuMillis(r.resources.cpu_millis));
  Put(resources, res::kMemory, FormatMemoryBytes(r.resources.memory_bytes));
  Put(resources, res::kGpu, GpuJson(r.resources.gpu_millis));
  if (!r.resources.gpu_type.empty()) Put(resources, res::kGpuType, r.resources.gpu_type);
  OrderedJson replica = OrderedJson::object();
  Put(replica, fields::kRole, r.role);
  Put(replica, fields::kCount, r.count);
  if (r.min_count != 0) Put(replica, fields::kMinCount, r.min_count);  // absent: rigid
  Put(replica, fields::kCommand, r.command);
  Put(replica, fields::kEnv, r.env);
  Put(replica, fields::kResources, std::move(resources));
  return replica;
}

OrderedJson RestartPolicyJson(const RestartPolicy& policy) {
  namespace fields = schema::job_spec_restart_policy;
  OrderedJson json = OrderedJson::object();
  Put(json, fields::kPolicy, RestartPolicyName(policy.policy));
  Put(json, fields::kMaxRestarts, policy.max_restarts);
  Put(json, fields::kBackoffSeconds, policy.backoff_seconds);
  return json;
}

}  // namespace

OrderedJson SpecToJsonValue(const JobSpec& spec) {
  OrderedJson replicas = OrderedJson::array();
  for (const ReplicaSpec& r : spec.replicas) replicas.push_back(ReplicaJson(r));
  OrderedJson json = OrderedJson::object();
  Put(json, js::kName, spec.name);
  Put(json, js::kLabels, spec.labels);
  Put(json, js::kFramework, FrameworkName(spec.framework));
  Put(json, js::kQueue, spec.queue);
  Put(json, js::kPriority, spec.priority);
  Put(json, js::kReplicas, std::move(replicas));
  Put(json, js::kWorkdir, spec.workdir);
  Put(json, js::kRestartPolicy, RestartPolicyJson(spec.restart_policy));
  Put(json, js::kActiveDeadlineSeconds, spec.active_deadline_seconds);
  // Written only when set, as logs: specs stored before read the same.
  if (!spec.image.empty()) Put(json, js::kImage, spec.image);
  if (spec.logs.max_bytes != 0) {
    OrderedJson logs = OrderedJson::object();
    Put(logs, schema::job_spec_logs::kMaxBytes, spec.logs.max_bytes);
    Put(json, js::kLogs, std::move(logs));
  }
  // Written only when not the default, as logs: specs stored before read the same.
  if (!spec.preemptible) Put(json, js::kPreemptible, false);
  if (spec.tracing != Tracing::kSampled) Put(json, js::kTracing, TracingName(spec.tracing));
  if (spec.preemption != PreemptionSpec()) {
    OrderedJson preemption = OrderedJson::object();
    Put(preemption, schema::job_spec_preemption::kGracePeriodSeconds,
        spec.preemption.grace_period_seconds);
    Put(json, js::kPreemption, std::move(preemption));
  }
  if (!spec.depends_on.empty()) Put(json, js::kDependsOn, DependsOnJson(spec.depends_on));
  if (!spec.success_policy.roles.empty()) {
    OrderedJson success = OrderedJson::object();
    Put(success, schema::job_spec_success_policy::kRoles, spec.success_policy.roles);
    Put(json, js::kSuccessPolicy, std::move(success));
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
