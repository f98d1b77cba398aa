#include "launch/kubernetes_pod.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "contract/env_names.h"

namespace dlp::launch {
namespace {

namespace names = contract::env;

std::string Get(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

}  // namespace

bool InKubernetesPod(const std::map<std::string, std::string>& env) {
  return !Get(env, names::kPodRole).empty();
}

std::string PodHost(const std::string& pattern, const std::string& role, int index) {
  return absl::StrReplaceAll(pattern, {{"{role}", role}, {"{index}", absl::StrCat(index)}});
}

absl::StatusOr<SchedulerTask> ReadKubernetesTask(const std::map<std::string, std::string>& env,
                                                 const RankLayout& layout, int rdzv_port) {
  const std::string role = Get(env, names::kPodRole);
  if (role.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(names::kPodRole, " is not set: not a pod of a dlp Kubernetes workload"));
  }
  const std::string pattern = Get(env, names::kPodHostPattern);
  if (pattern.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(names::kPodHostPattern, " is not set"));
  }
  const char* index_name = names::kJobCompletionIndex;
  std::string index_text = Get(env, index_name);
  if (index_text.empty()) {
    index_name = names::kVolcanoTaskIndex;
    index_text = Get(env, index_name);
  }
  int index = -1;
  if (index_text.empty() || !absl::SimpleAtoi(index_text, &index) || index < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no replica index: ", names::kJobCompletionIndex, " (an Indexed Job) or ",
        names::kVolcanoTaskIndex, " (Volcano) must be a number, got '", index_text, "'"));
  }
  SchedulerTask task;
  task.rank = -1;
  int replicas = 0;  // of this pod's role
  for (const RankPlan& plan : layout.ranks) {
    task.rank_hosts.push_back(PodHost(pattern, plan.role, plan.index));
    if (plan.role != role) continue;
    ++replicas;
    if (plan.index == index) task.rank = plan.rank;
  }
  if (replicas == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(names::kPodRole, "=", role, ": the group file has no such role"));
  }
  if (task.rank < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(index_name, "=", index, ": role ", role, " has ", replicas, " replicas"));
  }
  const int world = static_cast<int>(layout.ranks.size());
  task.world = world;
  // One rank per pod: a pod is a node of its own.
  task.node_rank = task.rank;
  task.num_nodes = world;
  task.host = task.rank_hosts[task.rank];
  task.nodes = {task.rank_hosts[0]};
  task.store_port = rdzv_port != 0 ? rdzv_port : kDefaultPodStorePort;
  // JobSet's restart count (an empty label reads as none).
  const std::string restarts = Get(env, names::kRestartCount);
  if (!restarts.empty() &&
      (!absl::SimpleAtoi(restarts, &task.first_round) || task.first_round < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(names::kRestartCount, "='", restarts, "': must be a count"));
  }
  task.job_id = Get(env, names::kJobId);
  return task;
}

absl::Status WaitForPodHost(const std::string& host, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration backoff = absl::Milliseconds(50);
  while (true) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* result = nullptr;
    const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &result);
    if (rc == 0) {
      freeaddrinfo(result);
      return absl::OkStatus();
    }
    if (absl::Now() + backoff > deadline) {
      return absl::UnavailableError(absl::StrCat("rank 0's pod ", host, " did not resolve within ",
                                                 absl::FormatDuration(timeout), ": ",
                                                 gai_strerror(rc)));
    }
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(backoff));
    backoff = std::min(backoff * 2, absl::Seconds(1));
  }
}

}  // namespace dlp::launch
