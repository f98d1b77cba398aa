#include "backends/remote/render.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/shell_quote.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {

std::string GroupJson(const JobSpec& spec) {
  nlohmann::ordered_json group;
  group["framework"] = std::string(FrameworkName(spec.framework));
  group["workdir"] = spec.workdir;
  nlohmann::ordered_json roles = nlohmann::ordered_json::array();
  for (const ReplicaSpec& replica : spec.replicas) {
    nlohmann::ordered_json role;
    role["role"] = replica.role;
    role["count"] = replica.count;
    role["command"] = replica.command;
    role["env"] = replica.env;
    role["gpus"] = replica.resources.gpu;
    roles.push_back(std::move(role));
  }
  group["roles"] = std::move(roles);
  group["restartPolicy"] = std::string(RestartPolicyName(spec.restart_policy.policy));
  group["maxRestarts"] = spec.restart_policy.max_restarts;
  group["backoffSeconds"] = spec.restart_policy.backoff_seconds;
  return group.dump(2);
}

std::string RenderDlpRun(const JobSpec& spec) {
  std::vector<std::string> env = {absl::StrCat("DLP_JOB_ID=ID"),
                                  absl::StrCat("DLP_JOB_NAME=", ShellQuoteIfNeeded(spec.name))};
  std::vector<std::string> argv = {"dlp-run", "--group", "STATE/jobs/ID/group.json",
                                   "--log-dir", "STATE/jobs/ID/logs", "--status-file",
                                   "STATE/jobs/ID/status.json"};
  int gpus = 0;
  for (const ReplicaSpec& replica : spec.replicas) gpus += replica.count * replica.resources.gpu;
  if (gpus > 0) {
    argv.push_back("--gpus");
    argv.push_back("(assigned at start)");
  }
  std::string out = "# dlp-run command line (ID: the job id, STATE: dlpd's state folder)\n";
  absl::StrAppend(&out, absl::StrJoin(env, " "), " ",
                  absl::StrJoin(argv, " ", [](std::string* o, const std::string& w) {
                    o->append(ShellQuoteIfNeeded(w));
                  }),
                  "\n# STATE/jobs/ID/group.json\n", GroupJson(spec), "\n");
  return out;
}

}  // namespace dlp::internal
