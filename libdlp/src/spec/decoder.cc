// The one decoder of a job spec: its JSON form (schema/api.schema.json's
// JobSpec) to a JobSpec. dlpd's JSON comes here as sent; a dlp-job(5) file
// comes here as JSON too (spec/job_document.cc), its values keeping their
// file positions, with `document` set: required fields, defaults of a file
// and every rule of spec/rules.h are then checked here, with positions.
// Members are found, refused when unknown, type- and enum-checked through the
// schema's field tables (schema/fields.h); the code here says what each means.
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "dlp/spec.h"
#include "spec/decoder.h"
#include "spec/depends_on.h"
#include "spec/field_names.h"
#include "spec/rules.h"
#include "spec/success_policy.h"
#include "spec/suggest.h"

namespace dlp::internal {
namespace {

using Json = nlohmann::json;
namespace js = schema::job_spec;
namespace rs = schema::replica_spec;

// The job contract's names (contract/names.h) are the schema's, in its order.
template <size_t N, size_t M>
constexpr bool SameNames(const std::array<std::string_view, N>& ours,
                         const absl::string_view (&schemas)[M]) {
  if (N != M) return false;
  for (size_t i = 0; i < N; ++i) {
    if (absl::string_view(ours[i].data(), ours[i].size()) != schemas[i]) return false;
  }
  return true;
}
static_assert(SameNames(contract::kFrameworkNames, js::kFrameworkValues),
              "framework names differ from schema/api.schema.json's");
static_assert(SameNames(contract::kRestartPolicyNames,
                        schema::job_spec_restart_policy::kPolicyValues),
              "restart policy names differ from schema/api.schema.json's");

Problem NoProblem(absl::string_view) { return std::nullopt; }

// "a map with a, b and c": an object's fields but `except`.
std::string MapWith(std::span<const absl::string_view> names, absl::string_view except = "") {
  std::string out = "a map with ";
  std::vector<absl::string_view> shown;
  for (absl::string_view n : names) {
    if (n != except) shown.push_back(n);
  }
  for (size_t i = 0; i < shown.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : i + 1 == shown.size() ? " and " : ", ", shown[i]);
  }
  return out;
}

class Decoder {
 public:
  Decoder(SpecReader& r, const SpecShape& shape, Diagnostics& diagnostics)
      : r_(r), shape_(shape), rules_(shape.document), diagnostics_(diagnostics) {}

  JobSpec Decode(const Json& value) {
    JobSpec spec;
    if (!r_.CheckObject(value, "", "a job spec (an object)", schema::kJobSpec)) return spec;
    if (auto v = r_.String(value, "", js::kName)) spec.name = *v;
    if (auto v = r_.StringMap(value, "", js::kLabels, NoProblem, NoProblem)) spec.labels = *v;
    Named(value, "", js::kFramework, "framework", ParseFramework, spec.framework);
    if (auto v = r_.String(value, "", js::kQueue); v && Check("queue", CheckQueueName(*v))) {
      spec.queue = *v;
    }
    if (const Json* n = Child(value, js::kPriority)) Priority(*n, spec);
    if (auto v = r_.Int(value, "", js::kActiveDeadlineSeconds);
        v && Check("activeDeadlineSeconds", CheckDeadlineSeconds(*v))) {
      spec.active_deadline_seconds = *v;
    }
    Workdir(value, spec);
    if (auto v = r_.String(value, "", js::kImage); v && Check("image", CheckImage(*v))) {
      spec.image = *v;
    }
    if (const Json* n = Child(value, js::kRestartPolicy)) RestartPolicySection(*n, spec);
    if (const Json* n = Child(value, js::kLogs)) LogsSection(*n, spec);
    Preemption(value, spec);
    Named(value, "", js::kTracing, "tracing", ParseTracing, spec.tracing);
    if (const Json* n = Child(value, js::kDependsOn)) spec.depends_on = DependsOn(*n);
    if (const Json* n = Child(value, js::kReplicas)) Replicas(*n, spec);
    // After the replicas: each role it names must be one of theirs.
    if (const Json* n = Child(value, js::kSuccessPolicy)) spec.success_policy = Success(*n, spec);
    return spec;
  }

 private:
  static const Json* Child(const Json& object, const schema::Field& field) {
    return SpecReader::Child(object, field);
  }
  // A rule of spec/rules.h, checked here for a document (ValidateJobSpec
  // checks the JSON form's).
  bool Check(absl::string_view path, const Problem& problem) {
    return !rules_ || r_.Check(path, problem);
  }

  // A member named from the schema's enum, read by `parse`.
  template <typename T, typename Parse>
  void Named(const Json& object, absl::string_view parent, schema::EnumField field,
             absl::string_view what, Parse parse, T& out) {
    if (auto v = r_.Enum(object, parent, field, what)) {
      if (auto parsed = parse(std::string_view(*v))) {
        out = *parsed;
      } else {  // the schema has a name the code does not: spec_schema_test fails
        r_.Report(JoinPath(parent, field.field.name),
                  UnknownName(what, *v, field.field.values));
      }
    }
  }

  // An integer, or a class name stored as its integer ("high": 100).
  void Priority(const Json& n, JobSpec& spec) {
    const std::string path(js::kPriority.name);
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
    const bool given_any = Child(value, js::kWorkdir) != nullptr;
    std::optional<std::string> given = r_.String(value, "", js::kWorkdir);
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
      if (given_any) {
        r_.Report("workdir", *p);
      } else {
        diagnostics_.AddPlain("spec.workdir (the spec file's folder): " + *p);
      }
    }
  }

  void RestartPolicySection(const Json& node, JobSpec& spec) {
    namespace rp_fields = schema::job_spec_restart_policy;
    const std::string path(js::kRestartPolicy.name);
    if (!r_.CheckObject(node, path, MapWith(rp_fields::kFieldNames),
                        schema::kJobSpecRestartPolicy)) {
      return;
    }
    RestartPolicy& rp = spec.restart_policy;
    bool policy_known = true;  // else maxRestarts is only range-checked
    if (Child(node, rp_fields::kPolicy) != nullptr) {
      policy_known = false;
      std::optional<RestartPolicyKind> kind;
      Named(node, path, rp_fields::kPolicy, "restart policy", ParseRestartPolicy, kind);
      if (kind) {
        rp.policy = *kind;
        policy_known = true;
      }
    }
    const bool restarts = rp.policy != RestartPolicyKind::kNever;
    rp.max_restarts = restarts ? kDefaultMaxRestarts : 0;
    const RestartPolicyKind as = policy_known ? rp.policy : RestartPolicyKind::kOnFailure;
    if (auto v = r_.Int(node, path, rp_fields::kMaxRestarts);
        v && Check(JoinPath(path, rp_fields::kMaxRestarts.name), CheckMaxRestarts(as, *v))) {
      rp.max_restarts = static_cast<int>(*v);
    }
    if (auto v = r_.Int(node, path, rp_fields::kBackoffSeconds);
        v && Check(JoinPath(path, rp_fields::kBackoffSeconds.name), CheckBackoffSeconds(*v))) {
      rp.backoff_seconds = static_cast<int>(*v);
    }
  }

  // A quantity (spec.h's one grammar: `parse`), then `rule`.
  template <typename Parse, typename Rule>
  std::optional<int64_t> Quantity(const Json& object, absl::string_view parent,
                                  schema::QuantityField field, Parse parse, Rule rule) {
    std::optional<std::string> text = r_.Quantity(object, parent, field);
    if (!text) return std::nullopt;
    const std::string path = JoinPath(parent, field.field.name);
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
    namespace logs = schema::job_spec_logs;
    const std::string path(js::kLogs.name);
    if (!r_.CheckObject(node, path, MapWith(logs::kFieldNames), schema::kJobSpecLogs)) return;
    if (auto v = Quantity(node, path, logs::kMaxBytes, ParseMemoryBytes, CheckLogMaxBytes)) {
      spec.logs.max_bytes = *v;
    }
  }

  // preemptible and preemption.gracePeriodSeconds.
  void Preemption(const Json& value, JobSpec& spec) {
    namespace preemption = schema::job_spec_preemption;
    if (auto v = r_.Bool(value, "", js::kPreemptible)) spec.preemptible = *v;
    const Json* node = Child(value, js::kPreemption);
    const std::string path(js::kPreemption.name);
    if (node == nullptr || !r_.CheckObject(*node, path, MapWith(preemption::kFieldNames),
                                           schema::kJobSpecPreemption)) {
      return;
    }
    if (auto v = r_.Int(*node, path, preemption::kGracePeriodSeconds);
        v && Check(JoinPath(path, preemption::kGracePeriodSeconds.name),
                   CheckPreemptionGraceSeconds(*v))) {
      spec.preemption.grace_period_seconds = static_cast<int>(*v);
    }
  }

  void Replicas(const Json& node, JobSpec& spec) {
    const std::string path(js::kReplicas.name);
    if (!node.is_array()) {
      r_.Report(path, absl::StrCat("expected a list of replicas, got ", r_.Describe(node)));
      return;
    }
    if (shape_.document && node.empty()) {
      r_.Report(path, "needs at least one role (chief, ps, worker, evaluator)");
    }
    int64_t total = 0;  // at most 4 roles of at most kMaxReplicasPerRole: no overflow
    for (size_t i = 0; i < node.size(); ++i) {
      ReplicaSpec replica = Replica(node[i], absl::StrCat(path, "[", i, "]"));
      total += replica.count;
      spec.replicas.push_back(std::move(replica));
    }
    Check(path, CheckTotalReplicas(total));
  }

  ReplicaSpec Replica(const Json& node, const std::string& path) {
    ReplicaSpec replica;
    // In a document the role is the replica's key (spec/job_document.cc).
    const std::span<const absl::string_view> names =
        shape_.document ? std::span<const absl::string_view>(kDocumentReplicaFields)
                        : std::span<const absl::string_view>(rs::kFieldNames);
    if (!r_.CheckObject(node, path, MapWith(rs::kFieldNames, rs::kRole.name), names, "field",
                        shape_.document ? rs::kRole.name : "")) {
      return replica;
    }
    if (auto v = r_.String(node, path, rs::kRole)) replica.role = *v;
    // minCount is checked only against a valid count.
    bool count_ok = Child(node, rs::kCount) == nullptr;
    if (auto v = r_.Int(node, path, rs::kCount);
        v && Check(JoinPath(path, rs::kCount.name), CheckCount(replica.role, *v))) {
      replica.count = static_cast<int>(*v);
      count_ok = true;
    }
    if (count_ok) {
      if (auto v = r_.Int(node, path, rs::kMinCount);
          v && Check(JoinPath(path, rs::kMinCount.name),
                     CheckMinCount(replica.role, *v, replica.count))) {
        replica.min_count = static_cast<int>(*v);
      }
    }
    if (auto v = r_.StringList(node, path, rs::kCommand)) {
      Check(JoinPath(path, rs::kCommand.name), CheckCommand(*v));
      replica.command = *v;
    } else if (shape_.document && Child(node, rs::kCommand) == nullptr) {
      r_.Required(node, path, rs::kCommand, names,
                  "required; e.g. command: [python3, train.py]");
    }
    if (auto v = r_.StringMap(node, path, rs::kEnv, rules_ ? CheckEnvName : NoProblem,
                              NoProblem)) {
      replica.env = *v;
    }
    // spec.env is in here already, merged by the document (spec/job_document.cc).
    if (rules_) r_.Check(path, CheckEnv(replica.env), rs::kEnv.name);
    if (const Json* n = Child(node, rs::kResources)) {
      Resources(*n, JoinPath(path, rs::kResources.name), replica.resources);
    }
    return replica;
  }

  void Resources(const Json& node, const std::string& path, dlp::Resources& out) {
    namespace res = schema::replica_spec_resources;
    if (!r_.CheckObject(node, path, MapWith(res::kFieldNames), schema::kReplicaSpecResources)) {
      return;
    }
    if (auto v = Quantity(node, path, res::kCpu, ParseCpuMillis, CheckCpuMillis)) {
      out.cpu_millis = *v;
    }
    if (auto v = Quantity(node, path, res::kMemory, ParseMemoryBytes, CheckMemoryBytes)) {
      out.memory_bytes = *v;
    }
    if (auto v = Quantity(node, path, res::kGpu, ParseGpuMillis, CheckGpuMillis)) {
      out.gpu_millis = *v;
    }
    if (auto v = r_.String(node, path, res::kGpuType);
        v && Check(JoinPath(path, res::kGpuType.name), CheckGpuType(*v))) {
      out.gpu_type = *v;
    }
  }

  std::vector<JobDependency> DependsOn(const Json& node) {
    return DecodeDependsOn(node, std::string(js::kDependsOn.name), rules_, r_);
  }
  SuccessPolicy Success(const Json& node, const JobSpec& spec) {
    return DecodeSuccessPolicy(node, std::string(js::kSuccessPolicy.name), spec.replicas, rules_,
                               r_);
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
