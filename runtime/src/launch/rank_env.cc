#include "launch/rank_env.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace dlp::launch {
namespace {

std::string TfTaskType(const std::string& role) {
  if (role == "rank") return "worker";
  if (role == "master") return "chief";
  return role;
}

}  // namespace

std::string TfConfig(const Layout& layout, const RankPlan& rank, const ClusterInfo& cluster) {
  nlohmann::json spec = nlohmann::json::object();
  nlohmann::json members = nlohmann::json::object();
  for (const RankPlan& r : layout.ranks) {
    const std::string type = TfTaskType(r.role);
    if (type == "evaluator") continue;  // TensorFlow keeps evaluators out of the cluster
    const int port = r.rank < static_cast<int>(cluster.tf_ports.size()) ? cluster.tf_ports[r.rank]
                                                                          : 0;
    members[type].push_back(absl::StrCat(r.host, ":", port));
  }
  spec["cluster"] = members;
  spec["task"] = {{"type", TfTaskType(rank.role)}, {"index", rank.index}};
  return spec.dump();
}

std::map<std::string, std::string> RankEnvironment(const Layout& layout, const RankPlan& rank,
                                                   const ClusterInfo& cluster) {
  std::map<std::string, std::string> env = rank.env;
  const std::string world = absl::StrCat(layout.ranks.size());
  auto both = [&env](const std::string& name, const std::string& value) {
    env[name] = value;
    env["DLP_" + name] = value;
  };
  both("RANK", absl::StrCat(rank.rank));
  both("LOCAL_RANK", absl::StrCat(rank.local_rank));
  both("WORLD_SIZE", world);
  both("LOCAL_WORLD_SIZE", absl::StrCat(rank.local_world_size));
  both("NODE_RANK", absl::StrCat(rank.node_rank));
  both("MASTER_ADDR", cluster.master_addr);
  both("MASTER_PORT", absl::StrCat(cluster.master_port));
  env["GROUP_RANK"] = env["NODE_RANK"];
  env["DLP_NUM_NODES"] = absl::StrCat(layout.num_nodes);
  env["DLP_ROLE"] = rank.role;
  env["DLP_REPLICA_INDEX"] = absl::StrCat(rank.index);
  env["DLP_REPLICA"] = rank.name;
  env["DLP_RESTART_COUNT"] = absl::StrCat(cluster.round);
  env["TORCHELASTIC_RESTART_COUNT"] = absl::StrCat(cluster.round);
  env["DLP_RDZV_ROUND"] = absl::StrCat(cluster.round);
  env["DLP_STORE_ADDR"] = cluster.store_addr;
  env["DLP_HOST_ID"] = rank.host;
  env["DLP_FRAMEWORK"] = cluster.framework;
  if (rank.assign_gpus) env["CUDA_VISIBLE_DEVICES"] = absl::StrJoin(rank.gpu_ids, ",");

  if (cluster.framework == "tensorflow") {
    env["TF_CONFIG"] = TfConfig(layout, rank, cluster);
  } else if (cluster.framework == "horovod") {
    env["HOROVOD_RANK"] = absl::StrCat(rank.rank);
    env["HOROVOD_SIZE"] = world;
    env["HOROVOD_LOCAL_RANK"] = absl::StrCat(rank.local_rank);
    env["HOROVOD_LOCAL_SIZE"] = absl::StrCat(rank.local_world_size);
    env["HOROVOD_CROSS_RANK"] = absl::StrCat(rank.node_rank);
    env["HOROVOD_CROSS_SIZE"] = absl::StrCat(layout.num_nodes);
    env["HOROVOD_HOSTNAME"] = rank.host;
    env["HOROVOD_CONTROLLER"] = "gloo";
    env["HOROVOD_CPU_OPERATIONS"] = "gloo";
  } else if (cluster.framework == "jax") {
    env["JAX_COORDINATOR_ADDRESS"] = absl::StrCat(cluster.master_addr, ":", cluster.master_port);
    env["JAX_PROCESS_ID"] = absl::StrCat(rank.rank);
    env["JAX_NUM_PROCESSES"] = world;
    env["JAX_LOCAL_PROCESS_ID"] = absl::StrCat(rank.local_rank);
  }
  return env;
}

}  // namespace dlp::launch
