// ValidateJobSpec: the rules of dlp-job(5) on a JobSpec built in code or
// received over the API (where there is no file position to report).
#include <set>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/spec.h"
#include "spec/rules.h"

namespace dlp {
namespace {

// Keeps the first kShown problems (as the YAML diagnostics do): a spec with
// thousands of bad labels gets a short answer.
class Validator {
 public:
  void Check(absl::string_view path, const internal::Problem& problem) {
    if (!problem) return;
    if (problems_.size() < kShown) {
      problems_.push_back(absl::StrCat(path, ": ", *problem));
    } else {
      ++more_;
    }
  }
  absl::Status ToStatus() const {
    if (problems_.empty()) return absl::OkStatus();
    std::string text = absl::StrJoin(problems_, "\n");
    if (more_ > 0) absl::StrAppend(&text, "\n... and ", more_, " more problems");
    return absl::InvalidArgumentError(text);
  }

 private:
  static constexpr size_t kShown = 20;
  std::vector<std::string> problems_;
  size_t more_ = 0;
};

void ValidateReplica(const ReplicaSpec& r, Validator& v) {
  const std::string path = absl::StrCat("spec.replicas.", r.role);
  v.Check(path + ".count", internal::CheckCount(r.role, r.count));
  if (r.min_count != 0) {
    v.Check(path + ".minCount", internal::CheckMinCount(r.role, r.min_count, r.count));
  }
  v.Check(path + ".command", internal::CheckCommand(r.command));
  for (const auto& [name, value] : r.env) {
    v.Check(absl::StrCat(path, ".env.", name), internal::CheckEnvName(name));
  }
  v.Check(path + ".env", internal::CheckEnv(r.env));
  v.Check(path + ".resources.cpu", internal::CheckCpuMillis(r.resources.cpu_millis));
  v.Check(path + ".resources.memory", internal::CheckMemoryBytes(r.resources.memory_bytes));
  v.Check(path + ".resources.gpu", internal::CheckGpuMillis(r.resources.gpu_millis));
  if (!r.resources.gpu_type.empty()) {
    v.Check(path + ".resources.gpuType", internal::CheckGpuType(r.resources.gpu_type));
  }
}

void ValidateSuccessPolicy(const JobSpec& spec, Validator& v) {
  std::set<std::string> seen;
  const std::vector<std::string>& roles = spec.success_policy.roles;
  // At most one entry per role of kRoles can be valid: the rest is refused unread.
  for (size_t i = 0; i < roles.size() && i < 2 * internal::kRoles.size(); ++i) {
    const std::string path = absl::StrCat("spec.successPolicy.roles[", i, "]");
    if (internal::Problem problem = internal::CheckSuccessRole(roles[i], spec.replicas)) {
      v.Check(path, problem);
    } else if (!seen.insert(roles[i]).second) {
      v.Check(path, absl::StrCat("role ", roles[i], " is listed twice"));
    }
  }
  if (roles.size() > 2 * internal::kRoles.size()) {
    v.Check("spec.successPolicy.roles",
            absl::StrCat(roles.size(), " roles; a job has at most ", internal::kRoles.size()));
  }
}

}  // namespace

absl::Status ValidateJobSpec(const JobSpec& spec) {
  Validator v;
  v.Check("metadata.name", internal::CheckJobName(spec.name));
  v.Check("metadata.labels", internal::CheckLabelCount(spec.labels.size()));
  for (const auto& [key, value] : spec.labels) {
    const std::string path = absl::StrCat("metadata.labels.", key);
    v.Check(path, internal::CheckLabelKey(key));
    v.Check(path, internal::CheckLabelValue(value));
  }
  v.Check("spec.queue", internal::CheckQueueName(spec.queue));
  v.Check("spec.priority", internal::CheckPriority(spec.priority));
  if (spec.replicas.empty()) {
    v.Check("spec.replicas", "needs at least one role (chief, ps, worker, evaluator)");
  }
  if (spec.replicas.size() > internal::kRoles.size()) {
    v.Check("spec.replicas", absl::StrCat(spec.replicas.size(),
                                          " roles; expected at most one each "
                                          "of chief, ps, worker, evaluator"));
    return v.ToStatus();
  }
  int previous = -1;
  int64_t total = 0;  // each count is checked below; int64 cannot wrap over a vector of ints
  for (const ReplicaSpec& r : spec.replicas) {
    total += r.count;
    const int index = internal::RoleIndex(r.role);
    if (index < 0) {
      v.Check(
          absl::StrCat("spec.replicas.", r.role),
          absl::StrCat("unknown role; expected one of: ", absl::StrJoin(internal::kRoles, ", ")));
      continue;
    }
    if (index <= previous) {
      v.Check("spec.replicas", absl::StrCat("role ", r.role,
                                            " is out of order or repeated; roles come once each, "
                                            "in the order chief, ps, worker, evaluator"));
    }
    previous = std::max(previous, index);
    ValidateReplica(r, v);
  }
  v.Check("spec.replicas", internal::CheckTotalReplicas(total));
  if (!spec.workdir.empty() && spec.workdir[0] != '/') {
    v.Check("spec.workdir", absl::StrCat("\"", absl::CHexEscape(spec.workdir.substr(0, 200)),
                                         "\" must be an absolute path"));
  }
  v.Check("spec.workdir", internal::CheckWorkdir(spec.workdir));
  if (!spec.image.empty()) v.Check("spec.image", internal::CheckImage(spec.image));
  const RestartPolicy& rp = spec.restart_policy;
  v.Check("spec.restartPolicy.maxRestarts", internal::CheckMaxRestarts(rp.policy, rp.max_restarts));
  v.Check("spec.restartPolicy.backoffSeconds", internal::CheckBackoffSeconds(rp.backoff_seconds));
  if (!spec.success_policy.roles.empty()) ValidateSuccessPolicy(spec, v);
  v.Check("spec.activeDeadlineSeconds",
          internal::CheckDeadlineSeconds(spec.active_deadline_seconds));
  v.Check("spec.logs.maxBytes", internal::CheckLogMaxBytes(spec.logs.max_bytes));
  v.Check("spec.preemption.gracePeriodSeconds",
          internal::CheckPreemptionGraceSeconds(spec.preemption.grace_period_seconds));
  v.Check("spec.dependsOn", internal::CheckDependencyCount(spec.depends_on.size()));
  std::set<std::string> seen;
  for (size_t i = 0;
       i < spec.depends_on.size() && i < static_cast<size_t>(internal::kMaxDependencies); ++i) {
    const std::string& job = spec.depends_on[i].job;
    const std::string path = absl::StrCat("spec.dependsOn[", i, "].job");
    v.Check(path, internal::CheckDependencyJob(job));
    if (!seen.insert(job).second) v.Check(path, absl::StrCat("job ", job, " is listed twice"));
  }
  return v.ToStatus();
}

}  // namespace dlp
