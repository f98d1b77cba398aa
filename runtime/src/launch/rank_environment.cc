#include "launch/rank_environment.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "contract/env_names.h"
#include "nlohmann/json.hpp"

namespace dlp::launch {
namespace {

namespace env = contract::env;
using contract::Framework;

std::string TfTaskType(const std::string& role) {
  if (role == "rank") return "worker";
  if (role == "master") return "chief";
  return role;
}

int RoleCount(const RankLayout& layout, const std::string& role) {
  int count = 0;
  for (const RankPlan& r : layout.ranks) count += r.role == role ? 1 : 0;
  return count;
}

}  // namespace

std::string TfConfig(const RankLayout& layout, const RankPlan& rank, const ClusterInfo& cluster) {
  nlohmann::json spec = nlohmann::json::object();
  nlohmann::json members = nlohmann::json::object();
  for (const RankPlan& r : layout.ranks) {
    const std::string type = TfTaskType(r.role);
    if (type == "evaluator") continue;  // TensorFlow keeps evaluators out of the cluster
    const int port =
        r.rank < static_cast<int>(cluster.tf_ports.size()) ? cluster.tf_ports[r.rank] : 0;
    members[type].push_back(absl::StrCat(r.host, ":", port));
  }
  spec["cluster"] = members;
  spec["task"] = {{"type", TfTaskType(rank.role)}, {"index", rank.index}};
  return spec.dump();
}

std::map<std::string, std::string> RankEnvironment(const RankLayout& layout, const RankPlan& rank,
                                                   const ClusterInfo& cluster) {
  std::map<std::string, std::string> vars = rank.env;
  const std::string world = absl::StrCat(layout.ranks.size());
  auto both = [&vars](const std::string& name, const std::string& value) {
    vars[name] = value;
    vars[env::kDlpPrefix + name] = value;
  };
  both(env::kRank, absl::StrCat(rank.rank));
  both(env::kLocalRank, absl::StrCat(rank.local_rank));
  both(env::kWorldSize, world);
  both(env::kLocalWorldSize, absl::StrCat(rank.local_world_size));
  both(env::kNodeRank, absl::StrCat(rank.node_rank));
  both(env::kMasterAddr, cluster.master_addr);
  both(env::kMasterPort, absl::StrCat(cluster.master_port));
  vars[env::kGroupRank] = vars[env::kNodeRank];
  vars[env::kNumNodes] = absl::StrCat(layout.num_nodes);
  vars[env::kRole] = rank.role;
  vars[env::kReplicaIndex] = absl::StrCat(rank.index);
  vars[env::kReplica] = rank.name;
  vars[env::kRestartCount] = absl::StrCat(cluster.round);
  vars[env::kTorchRestartCount] = absl::StrCat(cluster.round);
  vars[env::kTorchMaxRestarts] = absl::StrCat(cluster.max_restarts);
  vars[env::kTorchRunId] = cluster.run_id.empty() ? "none" : cluster.run_id;
  vars[env::kGroupWorldSize] = absl::StrCat(layout.num_nodes);
  // torchrun's roles are dlp's; its one role of plain -np ranks is "default".
  vars[env::kRoleName] = rank.role == "rank" ? "default" : rank.role;
  vars[env::kRoleRank] = absl::StrCat(rank.index);
  vars[env::kRoleWorldSize] = absl::StrCat(RoleCount(layout, rank.role));
  vars[env::kRdzvRound] = absl::StrCat(cluster.round);
  vars[env::kStoreAddr] = cluster.store_addr;
  if (!cluster.secret_hex.empty()) vars[env::kRdzvSecret] = cluster.secret_hex;
  vars[env::kHostId] = rank.host;
  vars[env::kFramework] = std::string(contract::FrameworkName(cluster.framework));
  if (rank.assign_gpus) {
    vars[env::kCudaVisibleDevices] =
        rank.visible_devices.value_or(absl::StrJoin(rank.gpu_ids, ","));
  }

  if (cluster.framework == Framework::kTensorFlow) {
    vars[env::kTfConfig] = TfConfig(layout, rank, cluster);
  } else if (cluster.framework == Framework::kHorovod) {
    vars["HOROVOD_RANK"] = absl::StrCat(rank.rank);
    vars["HOROVOD_SIZE"] = world;
    vars["HOROVOD_LOCAL_RANK"] = absl::StrCat(rank.local_rank);
    vars["HOROVOD_LOCAL_SIZE"] = absl::StrCat(rank.local_world_size);
    vars["HOROVOD_CROSS_RANK"] = absl::StrCat(rank.node_rank);
    vars["HOROVOD_CROSS_SIZE"] = absl::StrCat(layout.num_nodes);
    vars["HOROVOD_HOSTNAME"] = rank.host;
    vars["HOROVOD_CONTROLLER"] = "gloo";
    vars["HOROVOD_CPU_OPERATIONS"] = "gloo";
  } else if (cluster.framework == Framework::kJax) {
    vars[env::kJaxCoordinatorAddress] = absl::StrCat(cluster.master_addr, ":", cluster.master_port);
    vars[env::kJaxProcessId] = absl::StrCat(rank.rank);
    vars[env::kJaxNumProcesses] = world;
    vars[env::kJaxLocalProcessId] = absl::StrCat(rank.local_rank);
  }
  return vars;
}

}  // namespace dlp::launch
