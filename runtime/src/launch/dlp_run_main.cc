// dlp-run: starts the ranks of a distributed program (see man/dlp-run.1).
//   dlp-run -np 4 [-H a:2,b:2] -- COMMAND ARGS...        torchrun-like
//   dlp-run --group GROUP.json --log-dir D --status-file S dlpd's executor
//   srun dlp-run -- COMMAND                              one rank per Slurm task
//   srun dlp-run --group GROUP.json --log-dir D ...      the Slurm backend
//   dlp-run --group GROUP.json --rank-source kubernetes  one rank per pod
//   dlp-run --exec-rank --env K=V ... -- COMMAND         internal, run over ssh
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/process/spawn.h"
#include "contract/group.h"
#include "contract/names.h"
#include "launch/exec_rank.h"
#include "launch/group_task.h"
#include "launch/launcher.h"
#include "launch/slurm.h"
#include "launch/ssh_command.h"

namespace {

using dlp::launch::LaunchOptions;

struct Flags {
  int np = 0;
  std::string hosts, hostfile, group_file, gpus, framework = "none", restart_policy;
  int nproc_per_node = 0, max_restarts = 0, ssh_port = 0, rdzv_port = 0;
  double backoff = 0, grace = 10, start_timeout = 120;
  std::string log_dir, status_file, trace_dir, remote_path, workdir, rank_source;
  std::vector<std::string> ssh_opts, env;
  std::string bind_to = "none";
  bool exec_rank = false;
  bool secret_on_stdin = false;
  bool relay_traces = false;
};

int Fail(const std::string& message, int code = 2) {
  fprintf(stderr, "dlp-run: %s\n", message.c_str());
  return code;
}

absl::Duration Seconds(double s) { return absl::Milliseconds(static_cast<int64_t>(s * 1000)); }

int RunLauncher(const Flags& f, const std::vector<std::string>& command) {
  LaunchOptions options;
  if (!f.group_file.empty()) {
    if (!command.empty()) return Fail("--group takes the commands from the group file, not after --");
    auto group = dlp::contract::ReadGroupFile(f.group_file);
    if (!group.ok()) return Fail(std::string(group.status().message()));
    options.group = *group;
  } else {
    if (command.empty()) return Fail("no command given (dlp-run -np N -- COMMAND ARGS...)");
    if (!f.hosts.empty() && !f.hostfile.empty()) return Fail("-H and --hostfile exclude each other");
    if (!f.hosts.empty() || !f.hostfile.empty()) {
      auto hosts = f.hosts.empty() ? dlp::launch::ReadHostFile(f.hostfile)
                                   : dlp::launch::ParseHostList(f.hosts);
      if (!hosts.ok()) return Fail(std::string(hosts.status().message()));
      options.hosts = *hosts;
      if (f.nproc_per_node > 0) {
        for (auto& h : options.hosts) h.slots = f.nproc_per_node;
      }
    }
    int np = f.np;
    if (np == 0) {
      if (options.hosts.empty()) np = f.nproc_per_node > 0 ? f.nproc_per_node : 1;
      for (const auto& h : options.hosts) np += h.slots;
    }
    if (np < 1) return Fail("-np must be at least 1");
    options.group = dlp::launch::NpGroup(np, command);
    options.group.framework =
        dlp::contract::ParseFramework(f.framework).value_or(dlp::contract::Framework::kNone);
    options.group.workdir = f.workdir;
    options.group.max_restarts = f.max_restarts;
    options.group.restart_policy = f.max_restarts > 0 ? dlp::contract::RestartPolicy::kOnFailure
                                                      : dlp::contract::RestartPolicy::kNever;
    options.group.backoff = Seconds(f.backoff);
  }
  // Flags given explicitly override the group file.
  if (!f.restart_policy.empty()) {
    auto policy = dlp::contract::ParseRestartPolicy(f.restart_policy);
    if (!policy) {
      return Fail("unknown restart policy '" + f.restart_policy + "' (" +
                  dlp::contract::RestartPolicyNameList() + ")");
    }
    options.group.restart_policy = *policy;
  }
  if (!f.gpus.empty()) {
    auto gpus = dlp::launch::ParseGpuList(f.gpus);
    if (!gpus.ok()) return Fail(std::string(gpus.status().message()));
    options.gpus = *gpus;
    options.gpus_given = true;
  }
  options.log_dir = f.log_dir;
  options.bind_to_core = f.bind_to == "core";
  options.status_file = f.status_file;
  options.trace_dir = f.trace_dir;
  options.grace = Seconds(f.grace);
  options.start_timeout = Seconds(f.start_timeout);
  options.ssh.port = f.ssh_port;
  options.ssh.remote_path = f.remote_path;
  if (const char* ssh = getenv("DLP_SSH"); ssh != nullptr && *ssh != '\0') options.ssh.program = ssh;
  if (const char* opts = getenv("DLP_SSH_OPTS"); opts != nullptr) {
    for (absl::string_view w : absl::StrSplit(opts, ' ', absl::SkipWhitespace())) {
      options.ssh.extra.emplace_back(w);
    }
  }
  for (const std::string& o : f.ssh_opts) {
    options.ssh.extra.push_back("-o");
    options.ssh.extra.push_back(o);
  }
  auto result = dlp::launch::RunGroup(options, [](const std::string& line) {
    fprintf(stderr, "dlp-run: %s\n", line.c_str());
  });
  if (!result.ok()) return Fail(std::string(result.status().message()));
  if (result->exit_code != 0) Fail(result->reason);
  return result->exit_code;
}

// Under srun with --group, or in a pod: this task is one rank of the group.
int RunGroupTask(const Flags& f, const std::vector<std::string>& command,
                 dlp::launch::RankSource source) {
  if (!command.empty()) return Fail("--group takes the commands from the group file, not after --");
  const bool slurm = source == dlp::launch::RankSource::kSlurm;
  if (slurm && f.log_dir.empty()) return Fail("--group under Slurm needs --log-dir");
  auto group = dlp::contract::ReadGroupFile(f.group_file);
  if (!group.ok()) return Fail(std::string(group.status().message()));
  dlp::launch::GroupTaskOptions options;
  options.source = source;
  options.group = *std::move(group);
  if (!f.restart_policy.empty()) {
    auto policy = dlp::contract::ParseRestartPolicy(f.restart_policy);
    if (!policy) return Fail("unknown restart policy '" + f.restart_policy + "'");
    options.group.restart_policy = *policy;
  }
  options.log_dir = f.log_dir;
  options.status_file = f.status_file;
  options.trace_dir = f.trace_dir;
  options.relay_traces = f.relay_traces;
  options.grace = Seconds(f.grace);
  options.start_timeout = Seconds(f.start_timeout);
  options.rdzv_port = f.rdzv_port;
  return dlp::launch::RunGroupTask(
      options, [](const std::string& line) { fprintf(stderr, "dlp-run: %s\n", line.c_str()); });
}

}  // namespace

int main(int argc, char** argv) {
  // Everything after the first "--" is the command; "-np" is mpirun's spelling.
  std::vector<std::string> args, command;
  bool in_command = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (in_command) {
      command.push_back(a);
    } else if (a == "--") {
      in_command = true;
    } else {
      args.push_back(a == "-np" ? "--np" : a);
    }
  }
  Flags f;
  CLI::App app{"dlp-run: start the ranks of a distributed program", "dlp-run"};
  app.set_version_flag("--version", "dlp-run 0.1.0");
  app.add_option("--np,-n", f.np, "Number of ranks (also spelled -np)");
  app.add_option("-H,--host", f.hosts, "Hosts and slots: host1:slots,host2:slots");
  app.add_option("--hostfile", f.hostfile, "File with one host per line (host slots=N)");
  app.add_option("--nproc-per-node", f.nproc_per_node, "Ranks per host");
  const std::vector<std::string> frameworks(dlp::contract::kFrameworkNames.begin(),
                                            dlp::contract::kFrameworkNames.end());
  app.add_option("--framework", f.framework, "Variables to set: " + absl::StrJoin(frameworks, ", "))
      ->check(CLI::IsMember(frameworks));
  app.add_option("--max-restarts", f.max_restarts, "Restart the group up to R times after a failure");
  app.add_option("--restart-policy", f.restart_policy, "Never, OnFailure or ExitCode");
  app.add_option("--backoff", f.backoff, "Seconds to wait before a restart");
  app.add_option("--log-dir", f.log_dir, "Write DIR/<replica>.log instead of prefixed output");
  app.add_option("--status-file", f.status_file, "Keep the group's status in this JSON file");
  app.add_option("--trace-dir", f.trace_dir,
                 "DLP_TRACE_DIR for the ranks (default: the log folder)");
  app.add_flag("--relay-traces", f.relay_traces,
               "With --group: copy the rank's trace lines into the output as DLP_TRACE_LINE "
               "lines (for backends that see only the output, e.g. Kubernetes pod logs)");
  app.add_option("--group", f.group_file, "Group file with the roles to launch (runtime contract)");
  app.add_option("--gpus", f.gpus, "GPU ids the ranks may use, e.g. 0,1");
  app.add_option("--grace-period", f.grace, "Seconds between SIGTERM and SIGKILL when stopping");
  app.add_option("--start-timeout", f.start_timeout, "Seconds for every rank to start");
  app.add_option("--ssh-port", f.ssh_port, "Port of sshd on the remote hosts");
  app.add_option("--ssh-opt", f.ssh_opts, "ssh -o option for remote hosts (repeatable)");
  app.add_option("--remote-path", f.remote_path, "Folder of dlp-run on the remote hosts");
  app.add_option("--rdzv-port", f.rdzv_port,
                 "Under Slurm or in a pod: port of rank 0's rendezvous store");
  app.add_option("--rank-source", f.rank_source,
                 "With --group, run one rank per task: slurm (SLURM_PROCID; the default in a "
                 "Slurm task) or kubernetes (DLP_POD_ROLE, JOB_COMPLETION_INDEX)")
      ->check(CLI::IsMember({"slurm", "kubernetes"}));
  app.add_option("--workdir", f.workdir, "Working folder of the ranks");
  app.add_option("--bind-to", f.bind_to,
                 "none, or core: each rank on its own share of the CPUs dlp-run may use "
                 "(not when there are more ranks on a host than CPUs)")
      ->check(CLI::IsMember({"none", "core"}));
  app.add_flag("--exec-rank", f.exec_rank, "Internal: run one remote rank (used over ssh)");
  app.add_option("--env", f.env, "Internal, with --exec-rank: KEY=VALUE to set");
  app.add_flag(dlp::launch::kSecretOnStdinFlag, f.secret_on_stdin,
               "Internal, with --exec-rank: read DLP_RDZV_SECRET from the first line of stdin");
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (f.exec_rank) {
    if (command.empty()) return Fail("--exec-rank needs a command after --");
    std::map<std::string, std::string> env;
    for (const std::string& kv : f.env) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) return Fail("bad --env '" + kv + "' (KEY=VALUE)");
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return dlp::launch::RunExecRank(env, f.workdir, command, Seconds(f.grace),
                                    f.secret_on_stdin);
  }
  const bool in_slurm_task = f.np == 0 && f.hosts.empty() && f.hostfile.empty() &&
                             dlp::launch::InSlurmTask(dlp::base::CurrentEnvironment());
  if (f.bind_to != "none" && (in_slurm_task || !f.rank_source.empty())) {
    return Fail(
        "--bind-to binds the ranks dlp-run starts itself; a Slurm task or a pod runs "
        "where its scheduler put it (srun --cpu-bind, the pod's CPU request)");
  }
  if (f.rank_source == "kubernetes") {
    if (f.group_file.empty()) return Fail("--rank-source kubernetes runs a rank of a --group file");
    return RunGroupTask(f, command, dlp::launch::RankSource::kKubernetes);
  }
  if (f.rank_source == "slurm" && !in_slurm_task) {
    return Fail("--rank-source slurm: not in a Slurm task (SLURM_PROCID, SLURM_NTASKS)");
  }
  if (in_slurm_task && !f.group_file.empty()) {
    return RunGroupTask(f, command, dlp::launch::RankSource::kSlurm);
  }
  if (in_slurm_task) {
    if (command.empty()) return Fail("no command given (srun dlp-run -- COMMAND ARGS...)");
    return dlp::launch::RunSlurmRank(command, f.framework, f.rdzv_port);
  }
  return RunLauncher(f, command);
}
