// Where each rank runs: host lists (-H, --hostfile), the rank numbering of a
// group's roles, per-host local ranks and GPU assignment.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "contract/group.h"

namespace dlp::launch {

struct HostSlots {
  std::string host;
  int slots = 1;
};

// "a:2,b:2,c" (a missing count means 1 slot).
absl::StatusOr<std::vector<HostSlots>> ParseHostList(const std::string& text);
// One host per line: "host", "host slots=N", "host:N"; '#' starts a comment.
absl::StatusOr<std::vector<HostSlots>> ReadHostFile(const std::string& path);
// "0,1,3" -> {0,1,3}.
absl::StatusOr<std::vector<int>> ParseGpuList(const std::string& text);

// Whether `host` names this machine (loopback, its hostname, or one of its
// interface addresses); such ranks are forked instead of started over ssh.
bool IsLocalHost(const std::string& host);
// GPU ids visible on this machine (CUDA_VISIBLE_DEVICES, else /dev/nvidiaN).
std::vector<int> DetectLocalGpus();

struct RankPlan {
  int rank = 0;
  std::string role;  // "worker", or "rank" for plain -np
  int index = 0;     // replica index within the role
  std::string name;  // "worker-1" or "rank-3": the log file and status name
  std::string host;
  bool local = true;
  int local_rank = 0;
  int local_world_size = 1;
  int node_rank = 0;
  std::vector<std::string> command;
  std::map<std::string, std::string> env;
  int gpus = 0;               // requested by the role
  std::vector<int> gpu_ids;   // assigned; empty and !assign_gpus: leave CUDA_VISIBLE_DEVICES
  bool assign_gpus = false;
  // Set: dlpd placed this replica (the group's devices); CUDA_VISIBLE_DEVICES
  // is exactly this, and gpu_ids is unused.
  std::optional<std::string> visible_devices;
};

struct RankLayout {
  std::vector<RankPlan> ranks;
  int num_nodes = 1;
};

// Numbers the group's ranks (roles ordered chief, ps, worker, evaluator, then
// any other role; replicas consecutively) and places them on `hosts` in order,
// filling each host's slots. Empty `hosts`: every rank on "localhost".
// `gpus`: the GPU ids this group may use on each host (empty: detect locally).
absl::StatusOr<RankLayout> LayOutRanks(const contract::Group& group,
                                       const std::vector<HostSlots>& hosts,
                                       const std::vector<int>& gpus, bool gpus_given);

// The roles of plain `-np N -- COMMAND`: one role "rank" with N replicas.
contract::Group NpGroup(int np, const std::vector<std::string>& command);

}  // namespace dlp::launch
