#include "spec/decoder.h"

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "dlp/spec.h"
#include "spec/depends_on.h"
#include "spec/field_names.h"
#include "spec/reader.h"
#include "spec/rules.h"
#include "spec/success_policy.h"
#include "spec/suggest.h"

namespace dlp::internal {
namespace {

constexpr absl::string_view kTopFields[] = {"apiVersion", "kind", "metadata", "spec"};
constexpr absl::string_view kMetadataFields[] = {"name", "labels"};
constexpr absl::string_view kSpecFields[] = {"framework",
                                             "queue",
                                             "priority",
                                             "replicas",
                                             "workdir",
                                             "restartPolicy",
                                             "activeDeadlineSeconds",
                                             "env",
                                             "logs",
                                             "preemptible",
                                             "tracing",
                                             "preemption",
                                             "image",
                                             "dependsOn",
                                             "successPolicy"};
constexpr absl::string_view kReplicaFields[] = {"count", "minCount", "command", "env",
                                                "resources"};

Problem NoProblem(absl::string_view) { return std::nullopt; }

class Decoder {
 public:
  Decoder(const DecodeOptions& options, Diagnostics& diagnostics)
      : options_(options), diagnostics_(diagnostics), r_(diagnostics) {}

  JobSpec Decode(const YAML::Node& root) {
    JobSpec spec;
    if (!r_.CheckMap(root, "", "a job spec (a map with apiVersion, kind, metadata and spec)",
                     kTopFields)) {
      return spec;
    }
    r_.Fixed(root, "apiVersion", kApiVersion, kTopFields);
    r_.Fixed(root, "kind", kKind, kTopFields);
    Metadata(root, spec);
    const YAML::Node body = YamlReader::Child(root, "spec");
    if (!YamlReader::Present(body)) {
      r_.Required(root, "", "spec", kTopFields, "required; a job needs spec.replicas");
    } else if (r_.CheckMap(body, "spec", "a map", kSpecFields)) {
      Body(body, spec);
    }
    return spec;
  }

 private:
  void Metadata(const YAML::Node& root, JobSpec& spec) {
    const YAML::Node meta = YamlReader::Child(root, "metadata");
    if (YamlReader::Present(meta) && r_.CheckMap(meta, "metadata", "a map", kMetadataFields)) {
      const YAML::Node name = YamlReader::Child(meta, "name");
      if (YamlReader::Present(name)) {
        if (auto v = r_.String(name, "metadata.name")) spec.name = *v;
      }
      const YAML::Node labels = YamlReader::Child(meta, "labels");
      if (YamlReader::Present(labels)) {
        if (auto v = r_.StringMap(labels, "metadata.labels", CheckLabelKey, CheckLabelValue);
            v && r_.Check(labels, "metadata.labels", CheckLabelCount(v->size()))) {
          spec.labels = *v;
        }
      }
      if (options_.name.empty() && YamlReader::Present(name)) {
        r_.Check(name, "metadata.name", CheckJobName(spec.name));
      }
    }
    if (!options_.name.empty()) {
      spec.name = options_.name;
      if (Problem p = CheckJobName(spec.name)) diagnostics_.AddPlain("--name: " + *p);
    } else if (spec.name.empty()) {
      if (YamlReader::Present(meta)) {
        r_.Required(meta, "metadata", "name", kMetadataFields,
                    "required; a job needs a name (or pass --name)");
      } else {
        r_.Required(root, "", "metadata", kTopFields,
                    "metadata.name is required; a job needs a name (or pass --name)");
      }
    }
  }

  void Body(const YAML::Node& body, JobSpec& spec) {
    if (YAML::Node n = YamlReader::Child(body, "framework"); YamlReader::Present(n)) {
      if (auto v = r_.String(n, "spec.framework")) {
        if (auto f = FrameworkFromName(*v)) {
          spec.framework = *f;
        } else {
          r_.Report(n, "spec.framework", UnknownName("framework", *v, kFrameworks));
        }
      }
    }
    if (YAML::Node n = YamlReader::Child(body, "queue"); YamlReader::Present(n)) {
      if (auto v = r_.String(n, "spec.queue"); v && r_.Check(n, "spec.queue", CheckQueueName(*v))) {
        spec.queue = *v;
      }
    }
    if (YAML::Node n = YamlReader::Child(body, "priority"); YamlReader::Present(n)) {
      Priority(n, spec);
    }
    if (YAML::Node n = YamlReader::Child(body, "activeDeadlineSeconds"); YamlReader::Present(n)) {
      const char* path = "spec.activeDeadlineSeconds";
      if (auto v = r_.Int(n, path); v && r_.Check(n, path, CheckDeadlineSeconds(*v))) {
        spec.active_deadline_seconds = *v;
      }
    }
    Workdir(body, spec);
    if (YAML::Node n = YamlReader::Child(body, "image"); YamlReader::Present(n)) {
      if (auto v = r_.String(n, "spec.image"); v && r_.Check(n, "spec.image", CheckImage(*v))) {
        spec.image = *v;
      }
    }
    RestartPolicySection(body, spec);
    LogsSection(body, spec);
    PreemptionSection(body, spec);
    TracingField(body, spec);
    if (YAML::Node n = YamlReader::Child(body, "dependsOn"); YamlReader::Present(n)) {
      spec.depends_on = DecodeDependsOn(n, "spec.dependsOn", r_);
    }
    std::map<std::string, std::string> shared_env;
    if (YAML::Node n = YamlReader::Child(body, "env"); YamlReader::Present(n)) {
      if (auto v = r_.StringMap(n, "spec.env", CheckEnvName, NoProblem)) shared_env = *v;
    }
    const YAML::Node replicas = YamlReader::Child(body, "replicas");
    if (!YamlReader::Present(replicas)) {
      r_.Required(body, "spec", "replicas", kSpecFields,
                  "required; e.g. replicas: {worker: {count: 2, command: [python3, train.py]}}");
      return;
    }
    if (!r_.CheckMap(replicas, "spec.replicas", "a map of roles (chief, ps, worker, evaluator)",
                     kRoles, "role")) {
      return;
    }
    if (replicas.size() == 0) {
      r_.Report(replicas, "spec.replicas",
                "needs at least one role (chief, ps, worker, evaluator)");
    }
    int64_t total = 0;  // at most 4 roles of at most kMaxReplicasPerRole: no overflow
    for (absl::string_view role : kRoles) {  // canonical order
      const YAML::Node n = YamlReader::Child(replicas, role);
      if (!YamlReader::Present(n)) continue;
      ReplicaSpec replica = Replica(n, role);
      std::map<std::string, std::string> env = shared_env;
      for (auto& [k, v] : replica.env) env[k] = v;
      replica.env = std::move(env);
      r_.Check(n, JoinPath(JoinPath("spec.replicas", role), "env"), CheckEnv(replica.env));
      total += replica.count;
      spec.replicas.push_back(std::move(replica));
    }
    r_.Check(replicas, "spec.replicas", CheckTotalReplicas(total));
    // After the replicas: each role it names must be one of theirs.
    if (YAML::Node n = YamlReader::Child(body, "successPolicy"); YamlReader::Present(n)) {
      spec.success_policy = DecodeSuccessPolicy(n, "spec.successPolicy", spec.replicas, r_);
    }
  }

  ReplicaSpec Replica(const YAML::Node& node, absl::string_view role) {
    ReplicaSpec replica;
    replica.role = std::string(role);
    const std::string path = JoinPath("spec.replicas", role);
    if (!r_.CheckMap(node, path, "a map with count, minCount, command, env and resources",
                     kReplicaFields)) {
      return replica;
    }
    bool count_ok = true;  // minCount is checked only against a valid count
    if (YAML::Node n = YamlReader::Child(node, "count"); YamlReader::Present(n)) {
      const std::string p = path + ".count";
      count_ok = false;
      if (auto v = r_.Int(n, p); v && r_.Check(n, p, CheckCount(role, *v))) {
        replica.count = static_cast<int>(*v);
        count_ok = true;
      }
    }
    if (YAML::Node n = YamlReader::Child(node, "minCount"); count_ok && YamlReader::Present(n)) {
      const std::string p = path + ".minCount";
      if (auto v = r_.Int(n, p); v && r_.Check(n, p, CheckMinCount(role, *v, replica.count))) {
        replica.min_count = static_cast<int>(*v);
      }
    }
    const YAML::Node command = YamlReader::Child(node, "command");
    const std::string command_path = path + ".command";
    if (!YamlReader::Present(command)) {
      r_.Required(node, path, "command", kReplicaFields,
                  "required; e.g. command: [python3, train.py]");
    } else if (auto v = r_.StringList(command, command_path)) {
      r_.Check(command, command_path, CheckCommand(*v));
      replica.command = *v;
    }
    if (YAML::Node n = YamlReader::Child(node, "env"); YamlReader::Present(n)) {
      if (auto v = r_.StringMap(n, path + ".env", CheckEnvName, NoProblem)) replica.env = *v;
    }
    if (YAML::Node n = YamlReader::Child(node, "resources"); YamlReader::Present(n)) {
      Resources(n, path + ".resources", replica.resources);
    }
    return replica;
  }

  void Resources(const YAML::Node& node, const std::string& path, dlp::Resources& out) {
    if (!r_.CheckMap(node, path, "a map with cpu, memory, gpu and gpuType", kResourceFields))
      return;
    if (YAML::Node n = YamlReader::Child(node, "cpu"); YamlReader::Present(n)) {
      const std::string p = path + ".cpu";
      if (auto v = r_.String(n, p)) {
        absl::StatusOr<int64_t> millis = ParseCpuMillis(*v);
        if (!millis.ok()) {
          r_.Report(n, p, millis.status().message());
        } else if (r_.Check(n, p, CheckCpuMillis(*millis))) {
          out.cpu_millis = *millis;
        }
      }
    }
    if (YAML::Node n = YamlReader::Child(node, "memory"); YamlReader::Present(n)) {
      const std::string p = path + ".memory";
      if (auto v = r_.String(n, p)) {
        absl::StatusOr<int64_t> bytes = ParseMemoryBytes(*v);
        if (!bytes.ok()) {
          r_.Report(n, p, bytes.status().message());
        } else if (r_.Check(n, p, CheckMemoryBytes(*bytes))) {
          out.memory_bytes = *bytes;
        }
      }
    }
    if (YAML::Node n = YamlReader::Child(node, "gpu"); YamlReader::Present(n)) {
      const std::string p = path + ".gpu";
      if (auto v = r_.String(n, p)) {
        absl::StatusOr<int64_t> millis = ParseGpuMillis(*v);
        if (!millis.ok()) {
          r_.Report(n, p, millis.status().message());
        } else if (r_.Check(n, p, CheckGpuMillis(*millis))) {
          out.gpu_millis = *millis;
        }
      }
    }
    if (YAML::Node n = YamlReader::Child(node, "gpuType"); YamlReader::Present(n)) {
      const std::string p = path + ".gpuType";
      if (auto v = r_.String(n, p); v && r_.Check(n, p, CheckGpuType(*v))) out.gpu_type = *v;
    }
  }

  void Workdir(const YAML::Node& body, JobSpec& spec) {
    std::filesystem::path dir = options_.base_dir;
    const YAML::Node n = YamlReader::Child(body, "workdir");
    if (YamlReader::Present(n)) {
      if (auto v = r_.String(n, "spec.workdir")) {
        if (v->empty()) {
          r_.Report(n, "spec.workdir",
                    "must not be empty; leave it out for the spec file's folder");
        } else {
          dir = dir / *v;  // an absolute *v replaces dir
        }
      }
    }
    spec.workdir = dir.lexically_normal().string();
    if (spec.workdir.size() > 1 && spec.workdir.back() == '/') spec.workdir.pop_back();
    if (Problem p = CheckWorkdir(spec.workdir)) {
      if (YamlReader::Present(n)) {
        r_.Report(n, "spec.workdir", *p);
      } else {
        diagnostics_.AddPlain("spec.workdir (the spec file's folder): " + *p);
      }
    }
  }

  void RestartPolicySection(const YAML::Node& body, JobSpec& spec) {
    const YAML::Node node = YamlReader::Child(body, "restartPolicy");
    if (!YamlReader::Present(node)) return;
    const std::string path = "spec.restartPolicy";
    if (!r_.CheckMap(node, path, "a map with policy, maxRestarts and backoffSeconds",
                     kRestartFields)) {
      return;
    }
    RestartPolicy& rp = spec.restart_policy;
    bool policy_known = true;  // else maxRestarts is only range-checked
    if (YAML::Node n = YamlReader::Child(node, "policy"); YamlReader::Present(n)) {
      policy_known = false;
      if (auto v = r_.String(n, path + ".policy")) {
        if (auto p = RestartPolicyFromName(*v)) {
          rp.policy = *p;
          policy_known = true;
        } else {
          r_.Report(n, path + ".policy", UnknownName("restart policy", *v, kRestartPolicies));
        }
      }
    }
    const bool restarts = rp.policy != RestartPolicyKind::kNever;
    rp.max_restarts = restarts ? kDefaultMaxRestarts : 0;
    if (YAML::Node n = YamlReader::Child(node, "maxRestarts"); YamlReader::Present(n)) {
      const std::string p = path + ".maxRestarts";
      const RestartPolicyKind as = policy_known ? rp.policy : RestartPolicyKind::kOnFailure;
      if (auto v = r_.Int(n, p); v && r_.Check(n, p, CheckMaxRestarts(as, *v))) {
        rp.max_restarts = static_cast<int>(*v);
      }
    }
    if (YAML::Node n = YamlReader::Child(node, "backoffSeconds"); YamlReader::Present(n)) {
      const std::string p = path + ".backoffSeconds";
      if (auto v = r_.Int(n, p); v && r_.Check(n, p, CheckBackoffSeconds(*v))) {
        rp.backoff_seconds = static_cast<int>(*v);
      }
    }
  }

  // spec.logs.maxBytes: a byte quantity as for memory ("100Mi", "1G", 1048576).
  void LogsSection(const YAML::Node& body, JobSpec& spec) {
    const YAML::Node node = YamlReader::Child(body, "logs");
    if (!YamlReader::Present(node) ||
        !r_.CheckMap(node, "spec.logs", "a map with maxBytes", kLogsFields)) {
      return;
    }
    if (YAML::Node n = YamlReader::Child(node, "maxBytes"); YamlReader::Present(n)) {
      const std::string p = "spec.logs.maxBytes";
      if (auto v = r_.String(n, p)) {
        absl::StatusOr<int64_t> bytes = ParseMemoryBytes(*v);
        if (!bytes.ok()) {
          r_.Report(n, p, bytes.status().message());
        } else if (r_.Check(n, p, CheckLogMaxBytes(*bytes))) {
          spec.logs.max_bytes = *bytes;
        }
      }
    }
  }

  // An integer, or a class name stored as its integer ("high": 100).
  void Priority(const YAML::Node& n, JobSpec& spec) {
    const char* path = "spec.priority";
    if (n.IsScalar() && !n.Scalar().empty() &&
        absl::ascii_isalpha(static_cast<unsigned char>(n.Scalar()[0]))) {
      if (std::optional<int> value = PriorityClassValue(n.Scalar())) {
        spec.priority = *value;
      } else {
        r_.Report(n, path,
                  absl::StrCat(UnknownName("priority class", n.Scalar(), kPriorityClassNames),
                               "; or an integer"));
      }
      return;
    }
    if (auto v = r_.Int(n, path); v && r_.Check(n, path, CheckPriority(*v))) {
      spec.priority = static_cast<int>(*v);
    }
  }

  // spec.tracing: sampled, full or off.
  void TracingField(const YAML::Node& body, JobSpec& spec) {
    YAML::Node n = YamlReader::Child(body, "tracing");
    if (!YamlReader::Present(n)) return;
    if (auto v = r_.String(n, "spec.tracing")) {
      if (auto t = ParseTracing(*v)) {
        spec.tracing = *t;
      } else {
        r_.Report(n, "spec.tracing", UnknownName("tracing", *v, kTracingNames));
      }
    }
  }

  // spec.preemptible and spec.preemption.gracePeriodSeconds.
  void PreemptionSection(const YAML::Node& body, JobSpec& spec) {
    if (YAML::Node n = YamlReader::Child(body, "preemptible"); YamlReader::Present(n)) {
      if (auto v = r_.Bool(n, "spec.preemptible")) spec.preemptible = *v;
    }
    const YAML::Node node = YamlReader::Child(body, "preemption");
    if (!YamlReader::Present(node) ||
        !r_.CheckMap(node, "spec.preemption", "a map with gracePeriodSeconds", kPreemptionFields)) {
      return;
    }
    if (YAML::Node n = YamlReader::Child(node, "gracePeriodSeconds"); YamlReader::Present(n)) {
      const char* p = "spec.preemption.gracePeriodSeconds";
      if (auto v = r_.Int(n, p); v && r_.Check(n, p, CheckPreemptionGraceSeconds(*v))) {
        spec.preemption.grace_period_seconds = static_cast<int>(*v);
      }
    }
  }

  const DecodeOptions& options_;
  Diagnostics& diagnostics_;
  YamlReader r_;
};

}  // namespace

JobSpec DecodeJobSpec(const YAML::Node& root, const DecodeOptions& options,
                      Diagnostics& diagnostics) {
  return Decoder(options, diagnostics).Decode(root);
}

}  // namespace dlp::internal
