#include "launch/slurm.h"

#include <unistd.h>

#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/process/spawn.h"
#include "contract/env_names.h"
#include "launch/exec_rank.h"
#include "launch/rank_layout.h"
#include "rendezvous/store.h"

namespace dlp::launch {
namespace {

namespace names = contract::env;

// Splits on commas outside brackets.
std::vector<std::string> SplitTopLevel(const std::string& list) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      if (!current.empty()) parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

absl::Status ExpandOne(const std::string& item, std::vector<std::string>* out) {
  size_t open = item.find('[');
  if (open == std::string::npos) {
    out->push_back(item);
    return absl::OkStatus();
  }
  size_t close = item.find(']', open);
  if (close == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("unbalanced '[' in node list item '", item, "'"));
  }
  const std::string prefix = item.substr(0, open);
  const std::string rest = item.substr(close + 1);
  for (absl::string_view range : absl::StrSplit(item.substr(open + 1, close - open - 1), ',')) {
    std::vector<std::string> ends = absl::StrSplit(range, '-');
    int lo, hi;
    if (ends.empty() || ends.size() > 2 || !absl::SimpleAtoi(ends[0], &lo) ||
        !absl::SimpleAtoi(ends.back(), &hi) || hi < lo || hi - lo > 100000) {
      return absl::InvalidArgumentError(absl::StrCat("bad range '", range, "' in '", item, "'"));
    }
    const size_t width = ends[0].size();
    for (int i = lo; i <= hi; ++i) {
      std::string number = absl::StrCat(i);
      if (number.size() < width) number.insert(0, width - number.size(), '0');
      std::vector<std::string> expanded;
      absl::Status s = ExpandOne(prefix + number + rest, &expanded);
      if (!s.ok()) return s;
      out->insert(out->end(), expanded.begin(), expanded.end());
    }
  }
  return absl::OkStatus();
}

int IntOr(const std::map<std::string, std::string>& env, const std::string& name, int fallback) {
  auto it = env.find(name);
  int value;
  if (it == env.end() || !absl::SimpleAtoi(it->second, &value)) return fallback;
  return value;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandNodeList(const std::string& list) {
  std::vector<std::string> nodes;
  for (const std::string& item : SplitTopLevel(list)) {
    absl::Status s = ExpandOne(item, &nodes);
    if (!s.ok()) return s;
  }
  if (nodes.empty()) return absl::InvalidArgumentError("empty node list");
  return nodes;
}

bool InSlurmTask(const std::map<std::string, std::string>& env) {
  return env.count("SLURM_PROCID") > 0 && env.count("SLURM_NTASKS") > 0;
}

absl::StatusOr<SchedulerTask> ReadSlurmTask(const std::map<std::string, std::string>& env,
                                            int rdzv_port) {
  SchedulerTask task;
  task.rank = IntOr(env, "SLURM_PROCID", -1);
  task.world = IntOr(env, "SLURM_NTASKS", -1);
  if (task.rank < 0 || task.world < 1 || task.rank >= task.world) {
    return absl::InvalidArgumentError("SLURM_PROCID/SLURM_NTASKS are missing or inconsistent");
  }
  std::string list;
  for (const char* name : {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"}) {
    if (env.count(name) && !env.at(name).empty()) {
      list = env.at(name);
      break;
    }
  }
  if (list.empty()) return absl::InvalidArgumentError("no SLURM_STEP_NODELIST or SLURM_NODELIST");
  auto nodes = ExpandNodeList(list);
  if (!nodes.ok()) return nodes.status();
  task.nodes = *nodes;
  task.num_nodes = IntOr(env, "SLURM_STEP_NUM_NODES",
                         IntOr(env, "SLURM_NNODES", static_cast<int>(task.nodes.size())));
  task.node_rank = IntOr(env, "SLURM_NODEID", 0);
  // SLURM_STEP_TASKS_PER_NODE looks like "2(x3),1"; this node's entry is its count.
  int local_world = IntOr(env, "SLURM_NTASKS_PER_NODE", 0);
  if (local_world == 0) {
    std::string tpn = env.count("SLURM_STEP_TASKS_PER_NODE") ? env.at("SLURM_STEP_TASKS_PER_NODE")
                      : env.count("SLURM_TASKS_PER_NODE")    ? env.at("SLURM_TASKS_PER_NODE")
                                                             : "";
    int node = 0;
    for (absl::string_view entry : absl::StrSplit(tpn, ',', absl::SkipEmpty())) {
      int count = 0, repeat = 1;
      std::vector<std::string> parts = absl::StrSplit(entry, "(x");
      if (!absl::SimpleAtoi(parts[0], &count)) break;
      if (parts.size() == 2) absl::SimpleAtoi(absl::StripSuffix(parts[1], ")"), &repeat);
      if (task.node_rank < node + repeat) {
        local_world = count;
        break;
      }
      node += repeat;
    }
  }
  if (local_world == 0) local_world = (task.world + task.num_nodes - 1) / task.num_nodes;
  task.local_world = local_world;
  task.local_rank = IntOr(env, "SLURM_LOCALID", 0);
  task.host = env.count("SLURMD_NODENAME") ? env.at("SLURMD_NODENAME") : task.nodes[0];
  task.job_id = env.count("SLURM_JOB_ID") ? env.at("SLURM_JOB_ID") : "";
  task.store_port = rdzv_port != 0 ? rdzv_port : 20000 + IntOr(env, "SLURM_JOB_ID", 0) % 20000;
  task.requeues = IntOr(env, "SLURM_RESTART_COUNT", 0);
  return task;
}

absl::StatusOr<SlurmRank> SlurmRankEnvironment(const std::map<std::string, std::string>& env,
                                               const std::string& framework, int rdzv_port) {
  auto task = ReadSlurmTask(env, rdzv_port);
  if (!task.ok()) return task.status();
  RankLayout layout;
  for (int r = 0; r < task->world; ++r) {
    RankPlan plan;
    plan.rank = r;
    plan.role = "rank";
    plan.index = r;
    plan.name = absl::StrCat("rank-", r);
    layout.ranks.push_back(plan);
  }
  PlaceTask(*task, &layout);
  // A batch script that restarts srun steps itself counts them in
  // DLP_RESTART_COUNT; Slurm counts only requeues.
  const int round = IntOr(env, names::kRestartCount, task->requeues);
  ClusterInfo cluster = TaskCluster(
      *task, contract::ParseFramework(framework).value_or(contract::Framework::kNone), round);
  SlurmRank out;
  out.env = RankEnvironment(layout, layout.ranks[task->rank], cluster);
  // A batch script that knows the job's roles sets the replica's identity
  // itself; Slurm only knows ranks.
  for (const char* name :
       {names::kRole, names::kReplicaIndex, names::kReplica, names::kRestartCount}) {
    if (auto it = env.find(name); it != env.end()) out.env[name] = it->second;
  }
  out.rank = task->rank;
  out.store_port = task->store_port;
  return out;
}

int RunSlurmRank(const std::vector<std::string>& command, const std::string& framework,
                 int rdzv_port) {
  auto slurm = SlurmRankEnvironment(base::CurrentEnvironment(), framework, rdzv_port);
  if (!slurm.ok()) {
    fprintf(stderr, "dlp-run: %s\n", std::string(slurm.status().message()).c_str());
    return 2;
  }
  auto secret = TaskSecret(base::CurrentEnvironment());
  if (!secret.ok()) {
    fprintf(stderr, "dlp-run: %s\n", std::string(secret.status().message()).c_str());
    return 2;
  }
  if (slurm->rank != 0) {
    for (const auto& [k, v] : slurm->env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    fprintf(stderr, "dlp-run: cannot execute %s: %m\n", command[0].c_str());
    return 127;
  }
  auto store = runtime::TcpStoreServer::Start("0.0.0.0", slurm->store_port, *secret);
  if (!store.ok()) {
    fprintf(stderr, "dlp-run: cannot host the rendezvous store on port %d: %s\n",
            slurm->store_port, std::string(store.status().message()).c_str());
    return 1;
  }
  return RunForwardingSignals(slurm->env, command, absl::Seconds(10));
}

}  // namespace dlp::launch
