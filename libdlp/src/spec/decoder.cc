// The one decoder of a job spec: its JSON form (schema/api.schema.json's
// JobSpec) to a JobSpec. dlpd's JSON comes here as sent; a dlp-job(5) file
// comes here as JSON too (spec/job_document.cc), its values keeping their
// file positions, with `document` set: required fields, defaults of a file
// and every rule of spec/rules.h are then checked here, with positions.
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "dlp/spec.h"
#include "spec/decoder.h"
#include "spec/field_names.h"
#include "spec/rules.h"
#include "spec/depends_on.h"
#include "spec/success_policy.h"
#include "spec/suggest.h"

namespace dlp::internal {
namespace {

using Json = nlohmann::json;

Problem NoProblem(absl::string_view) { return std::nullopt; }

class Decoder {
 public:
  Decoder(SpecReader& r, const SpecShape& shape, Diagnostics& diagnostics)
      : r_(r), shape_(shape), rules_(shape.document), diagnostics_(diagnostics) {}

  JobSpec Decode(const Json& value) {
    JobSpec spec;
    if (!r_.CheckObject(value, "", "a job spec (an object)", kJsonSpecFields)) return spec;
    if (const Json* n = Child(value, "name")) {
      if (auto v = r_.String(*n, "name")) spec.name = *v;
    }
    if (const Json* n = Child(value, "labels")) {
      if (auto v = r_.StringMap(*n, "labels", NoProblem, NoProblem)) spec.labels = *v;
    }
    Named(value, "framework", "framework", kFrameworks, ParseFramework, spec.framework);
    if (const Json* n = Child(value, "queue")) {
      if (auto v = r_.String(*n, "queue"); v && Check("queue", CheckQueueName(*v))) {
        spec.queue = *v;
      }
    }
    if (const Json* n = Child(value, "priority")) Priority(*n, spec);
    if (const Json* n = Child(value, "activeDeadlineSeconds")) {
      const char* path = "activeDeadlineSeconds";
      if (auto v = r_.Int(*n, path); v && Check(path, CheckDeadlineSeconds(*v))) {
        spec.active_deadline_seconds = *v;
      }
    }
    Workdir(value, spec);
    if (const Json* n = Child(value, "image")) {
      if (auto v = r_.String(*n, "image"); v && Check("image", CheckImage(*v))) spec.image = *v;
    }
    if (const Json* n = Child(value, "restartPolicy")) RestartPolicySection(*n, spec);
    if (const Json* n = Child(value, "logs")) LogsSection(*n, spec);
    Preemption(value, spec);
    Named(value, "tracing", "tracing", kTracingNames, ParseTracing, spec.tracing);
    if (const Json* n = Child(value, "dependsOn")) spec.depends_on = DependsOn(*n);
    if (const Json* n = Child(value, "replicas")) Replicas(*n, spec);
    // After the replicas: each role it names must be one of theirs.
    if (const Json* n = Child(value, "successPolicy")) spec.success_policy = Success(*n, spec);
    return spec;
  }

 private:
  static const Json* Child(const Json& object, absl::string_view key) {
    return SpecReader::Child(object, key);
  }
  // A rule of spec/rules.h, checked here for a document (ValidateJobSpec
  // checks the JSON form's).
  bool Check(absl::string_view path, const Problem& problem) {
    return !rules_ || r_.Check(path, problem);
  }

  // A member named from `names`, read by `parse`.
  template <typename T, typename Parse, size_t N>
  void Named(const Json& object, const std::string& path, absl::string_view what,
             const absl::string_view (&names)[N], Parse parse, T& out) {
    Named(object, path, what, std::span<const absl::string_view>(names), parse, out);
  }
  template <typename T, typename Parse, size_t N>
  void Named(const Json& object, const std::string& path, absl::string_view what,
             const std::array<absl::string_view, N>& names, Parse parse, T& out) {
    Named(object, path, what, std::span<const absl::string_view>(names), parse, out);
  }
  // `path` is the member's; its key is the last segment.
  template <typename T, typename Parse>
  void Named(const Json& object, const std::string& path, absl::string_view what,
             std::span<const absl::string_view> names, Parse parse, T& out) {
    const Json* n = Child(object, path.substr(path.rfind('.') + 1));
    if (n == nullptr) return;
    if (auto v = r_.String(*n, path)) {
      if (auto parsed = parse(std::string_view(*v))) {
        out = *parsed;
      } else {
        r_.Report(path, UnknownName(what, *v, names));
      }
    }
  }

  // An integer, or a class name stored as its integer ("high": 100).
  void Priority(const Json& n, JobSpec& spec) {
    const char* path = "priority";
    if (n.is_string() && (!r_.text_scalars() || (!n.get_ref<const std::string&>().empty() &&
                                                  absl::ascii_isalpha(static_cast<unsigned char>(
                                                      n.get_ref<const std::string&>()[0]))))) {
      if (std::optional<int> value = PriorityClassValue(n.get<std::string>())) {
        spec.priority = *value;
      } else {
        r_.Report(path, absl::StrCat(UnknownName("priority class", n.get<std::string>(),
                                                 kPriorityClassNames),
                                     "; or an integer"));
      }
      return;
    }
    if (auto v = r_.Int(n, path); v && Check(path, CheckPriority(*v))) {
      spec.priority = static_cast<int>(*v);
    }
  }

  // A document's relative workdir resolves against its folder, which is the
  // workdir when there is none.
  void Workdir(const Json& value, JobSpec& spec) {
    const Json* n = Child(value, "workdir");
    std::optional<std::string> given;
    if (n != nullptr) given = r_.String(*n, "workdir");
    if (!shape_.document) {
      if (given) spec.workdir = *given;
      return;
    }
    std::filesystem::path dir = shape_.base_dir;
    if (given && given->empty()) {
      r_.Report("workdir", "must not be empty; leave it out for the spec file's folder");
    } else if (given) {
      dir = dir / *given;  // an absolute path replaces dir
    }
    spec.workdir = dir.lexically_normal().string();
    if (spec.workdir.size() > 1 && spec.workdir.back() == '/') spec.workdir.pop_back();
    if (Problem p = CheckWorkdir(spec.workdir)) {
      if (n != nullptr) {
        r_.Report("workdir", *p);
      } else {
        diagnostics_.AddPlain("spec.workdir (the spec file's folder): " + *p);
      }
    }
  }

  void RestartPolicySection(const Json& node, JobSpec& spec) {
    const std::string path = "restartPolicy";
    if (!r_.CheckObject(node, path, "a map with policy, maxRestarts and backoffSeconds",
                        kRestartFields)) {
      return;
    }
    RestartPolicy& rp = spec.restart_policy;
    bool policy_known = true;  // else maxRestarts is only range-checked
    if (Child(node, "policy") != nullptr) {
      policy_known = false;
      std::optional<RestartPolicyKind> kind;
      Named(node, path + ".policy", "restart policy", kRestartPolicies, ParseRestartPolicy, kind);
      if (kind) {
        rp.policy = *kind;
        policy_known = true;
      }
    }
    const bool restarts = rp.policy != RestartPolicyKind::kNever;
    rp.max_restarts = restarts ? kDefaultMaxRestarts : 0;
    if (const Json* n = Child(node, "maxRestarts")) {
      const std::string p = path + ".maxRestarts";
      const RestartPolicyKind as = policy_known ? rp.policy : RestartPolicyKind::kOnFailure;
      if (auto v = r_.Int(*n, p); v && Check(p, CheckMaxRestarts(as, *v))) {
        rp.max_restarts = static_cast<int>(*v);
      }
    }
    if (const Json* n = Child(node, "backoffSeconds")) {
      const std::string p = path + ".backoffSeconds";
      if (auto v = r_.Int(*n, p); v && Check(p, CheckBackoffSeconds(*v))) {
        rp.backoff_seconds = static_cast<int>(*v);
      }
    }
  }

  // A quantity at `path` by `parse` (spec.h's one grammar), then `rule`.
  template <typename Parse, typename Rule>
  std::optional<int64_t> Quantity(const Json& n, const std::string& path, Parse parse,
                                  Rule rule) {
    std::optional<std::string> text = r_.Quantity(n, path);
    if (!text) return std::nullopt;
    absl::StatusOr<int64_t> v = parse(*text);
    if (!v.ok()) {
      r_.Report(path, v.status().message());
      return std::nullopt;
    }
    if (!Check(path, rule(*v))) return std::nullopt;
    return *v;
  }

  // logs.maxBytes: a byte quantity as for memory ("100Mi", "1G", 1048576).
  void LogsSection(const Json& node, JobSpec& spec) {
    if (!r_.CheckObject(node, "logs", "a map with maxBytes", kLogsFields)) return;
    if (const Json* n = Child(node, "maxBytes")) {
      if (auto v = Quantity(*n, "logs.maxBytes", ParseMemoryBytes, CheckLogMaxBytes)) {
        spec.logs.max_bytes = *v;
      }
    }
  }

  // preemptible and preemption.gracePeriodSeconds.
  void Preemption(const Json& value, JobSpec& spec) {
    if (const Json* n = Child(value, "preemptible")) {
      if (auto v = r_.Bool(*n, "preemptible")) spec.preemptible = *v;
    }
    const Json* node = Child(value, "preemption");
    if (node == nullptr ||
        !r_.CheckObject(*node, "preemption", "a map with gracePeriodSeconds", kPreemptionFields)) {
      return;
    }
    if (const Json* n = Child(*node, "gracePeriodSeconds")) {
      const char* p = "preemption.gracePeriodSeconds";
      if (auto v = r_.Int(*n, p); v && Check(p, CheckPreemptionGraceSeconds(*v))) {
        spec.preemption.grace_period_seconds = static_cast<int>(*v);
      }
    }
  }

  void Replicas(const Json& node, JobSpec& spec) {
    if (!node.is_array()) {
      r_.Report("replicas", absl::StrCat("expected a list of replicas, got ", r_.Describe(node)));
      return;
    }
    if (shape_.document && node.empty()) {
      r_.Report("replicas", "needs at least one role (chief, ps, worker, evaluator)");
    }
    int64_t total = 0;  // at most 4 roles of at most kMaxReplicasPerRole: no overflow
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string path = absl::StrCat("replicas[", i, "]");
      ReplicaSpec replica = Replica(node[i], path);
      total += replica.count;
      spec.replicas.push_back(std::move(replica));
    }
    Check("replicas", CheckTotalReplicas(total));
  }

  ReplicaSpec Replica(const Json& node, const std::string& path) {
    ReplicaSpec replica;
    if (!r_.CheckObject(node, path, "a map with count, minCount, command, env and resources",
                        shape_.document ? kDocumentReplicaFields
                                        : std::span<const absl::string_view>(kJsonReplicaFields),
                        "field", shape_.document ? "role" : "")) {
      return replica;
    }
    if (const Json* n = Child(node, "role")) {
      if (auto v = r_.String(*n, path + ".role")) replica.role = *v;
    }
    bool count_ok = true;  // minCount is checked only against a valid count
    if (const Json* n = Child(node, "count")) {
      const std::string p = path + ".count";
      count_ok = false;
      if (auto v = r_.Int(*n, p); v && Check(p, CheckCount(replica.role, *v))) {
        replica.count = static_cast<int>(*v);
        count_ok = true;
      }
    }
    if (const Json* n = Child(node, "minCount"); count_ok && n != nullptr) {
      const std::string p = path + ".minCount";
      if (auto v = r_.Int(*n, p);
          v && Check(p, CheckMinCount(replica.role, *v, replica.count))) {
        replica.min_count = static_cast<int>(*v);
      }
    }
    const std::string command_path = path + ".command";
    if (const Json* n = Child(node, "command")) {
      if (auto v = r_.StringList(*n, command_path)) {
        Check(command_path, CheckCommand(*v));
        replica.command = *v;
      }
    } else if (shape_.document) {
      r_.Required(node, path, "command", kDocumentReplicaFields,
                  "required; e.g. command: [python3, train.py]");
    }
    if (const Json* n = Child(node, "env")) {
      if (auto v = r_.StringMap(*n, path + ".env", rules_ ? CheckEnvName : NoProblem, NoProblem)) {
        replica.env = *v;
      }
    }
    // spec.env is in here already, merged by the document (spec/job_document.cc).
    if (rules_) r_.Check(path, CheckEnv(replica.env), "env");
    if (const Json* n = Child(node, "resources")) {
      Resources(*n, path + ".resources", replica.resources);
    }
    return replica;
  }

  void Resources(const Json& node, const std::string& path, dlp::Resources& out) {
    if (!r_.CheckObject(node, path, "a map with cpu, memory, gpu and gpuType", kResourceFields)) {
      return;
    }
    if (const Json* n = Child(node, "cpu")) {
      if (auto v = Quantity(*n, path + ".cpu", ParseCpuMillis, CheckCpuMillis)) {
        out.cpu_millis = *v;
      }
    }
    if (const Json* n = Child(node, "memory")) {
      if (auto v = Quantity(*n, path + ".memory", ParseMemoryBytes, CheckMemoryBytes)) {
        out.memory_bytes = *v;
      }
    }
    if (const Json* n = Child(node, "gpu")) {
      if (auto v = Quantity(*n, path + ".gpu", ParseGpuMillis, CheckGpuMillis)) {
        out.gpu_millis = *v;
      }
    }
    if (const Json* n = Child(node, "gpuType")) {
      const std::string p = path + ".gpuType";
      if (auto v = r_.String(*n, p); v && Check(p, CheckGpuType(*v))) out.gpu_type = *v;
    }
  }

  std::vector<JobDependency> DependsOn(const Json& node) {
    return DecodeDependsOn(node, "dependsOn", rules_, r_);
  }
  SuccessPolicy Success(const Json& node, const JobSpec& spec) {
    return DecodeSuccessPolicy(node, "successPolicy", spec.replicas, rules_, r_);
  }

  SpecReader& r_;
  const SpecShape& shape_;
  const bool rules_;
  Diagnostics& diagnostics_;
};

}  // namespace

JobSpec DecodeSpecValue(const Json& value, const SpecShape& shape, SpecReader& reader,
                        Diagnostics& diagnostics) {
  return Decoder(reader, shape, diagnostics).Decode(value);
}

}  // namespace dlp::internal
