// ValidateJobSpec: the rules of dlp-job(5) on a JobSpec built in code or
// received over the API (where there is no file position to report).
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/spec.h"
#include "spec/rules.h"

namespace dlp {
namespace {

class Validator {
 public:
  void Check(absl::string_view path, const internal::Problem& problem) {
    if (problem) problems_.push_back(absl::StrCat(path, ": ", *problem));
  }
  absl::Status ToStatus() const {
    if (problems_.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrJoin(problems_, "\n"));
  }

 private:
  std::vector<std::string> problems_;
};

void ValidateReplica(const ReplicaSpec& r, Validator& v) {
  const std::string path = absl::StrCat("spec.replicas.", r.role);
  v.Check(path + ".count", internal::CheckCount(r.role, r.count));
  if (r.command.empty() || r.command[0].empty()) {
    v.Check(path + ".command", "must name a program to run; e.g. command: [python3, train.py]");
  }
  for (const auto& [name, value] : r.env) {
    v.Check(absl::StrCat(path, ".env.", name), internal::CheckEnvName(name));
  }
  v.Check(path + ".resources.cpu", internal::CheckCpuMillis(r.resources.cpu_millis));
  v.Check(path + ".resources.memory", internal::CheckMemoryBytes(r.resources.memory_bytes));
  v.Check(path + ".resources.gpu", internal::CheckGpu(r.resources.gpu));
}

}  // namespace

absl::Status ValidateJobSpec(const JobSpec& spec) {
  Validator v;
  v.Check("metadata.name", internal::CheckJobName(spec.name));
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
  int previous = -1;
  for (const ReplicaSpec& r : spec.replicas) {
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
  if (!spec.workdir.empty() && spec.workdir[0] != '/') {
    v.Check("spec.workdir", absl::StrCat("\"", spec.workdir, "\" must be an absolute path"));
  }
  const RestartPolicy& rp = spec.restart_policy;
  v.Check("spec.restartPolicy.maxRestarts", internal::CheckMaxRestarts(rp.policy, rp.max_restarts));
  v.Check("spec.restartPolicy.backoffSeconds", internal::CheckBackoffSeconds(rp.backoff_seconds));
  v.Check("spec.activeDeadlineSeconds",
          internal::CheckDeadlineSeconds(spec.active_deadline_seconds));
  v.Check("spec.logs.maxBytes", internal::CheckLogMaxBytes(spec.logs.max_bytes));
  return v.ToStatus();
}

}  // namespace dlp
