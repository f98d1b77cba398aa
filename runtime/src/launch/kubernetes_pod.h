// dlp-run in a pod of a Kubernetes workload (`--rank-source kubernetes`): each
// pod is one rank of the group file. The manifests
// (libdlp/src/backends/kubernetes/) set DLP_POD_ROLE per role and
// DLP_POD_HOST_PATTERN; the pod's replica index is JOB_COMPLETION_INDEX
// (Indexed Jobs: JobSet, Job, TrainJob) or VC_TASK_INDEX (Volcano's env plugin).
// rank = the role's offset in the group (roles chief, ps, worker, evaluator,
// replicas consecutive, as under dlpd) + the index; rank 0 is pod 0 of the
// first role, reached by its stable host name through the headless Service,
// and hosts the rendezvous store on a fixed port (29400, or --rdzv-port).
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "launch/rank_layout.h"
#include "launch/scheduler_task.h"

namespace dlp::launch {

inline constexpr int kDefaultPodStorePort = 29400;

// Whether the environment describes such a pod (DLP_POD_ROLE set).
bool InKubernetesPod(const std::map<std::string, std::string>& env);

// `pattern` with "{role}" and "{index}" replaced: the host of replica `index`
// of `role`. A pattern without them names one host for every rank.
std::string PodHost(const std::string& pattern, const std::string& role, int index);

// The task of this pod among the group's ranks as LayOutRanks numbers them.
// InvalidArgument naming the variable that is missing or does not fit the
// group (a role it lacks, an index past the role's count).
absl::StatusOr<SchedulerTask> ReadKubernetesTask(const std::map<std::string, std::string>& env,
                                                 const RankLayout& layout, int rdzv_port);

// A pod's name resolves only once the pod has an address: waits until `host`
// resolves. Unavailable naming the host when `timeout` passes first.
absl::Status WaitForPodHost(const std::string& host, absl::Duration timeout);

}  // namespace dlp::launch
