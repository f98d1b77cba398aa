#include "backends/slurm/batch_script.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/shell_quote.h"

namespace dlp::internal {
namespace {

bool IsShellName(const std::string& name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Paths and names that may stand unquoted in an #SBATCH line.
bool IsPlainWord(const std::string& word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || absl::StrContains("-_./=:,@+", c);
  });
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Which replica a task is: `case`-like if/elif on SLURM_PROCID, ranks in the
// spec's role order, replicas of a role consecutively (as dlp-run numbers them).
std::string RoleSelection(const JobSpec& spec) {
  std::string out;
  int first = 0;
  for (const ReplicaSpec& r : spec.replicas) {
    absl::StrAppend(&out, first == 0 ? "if" : "elif", " [ \"$p\" -lt ", first + r.count,
                    " ]; then\n  role=", ShellQuote(r.role), "; index=$((p - ", first, "))\n");
    for (const auto& [key, value] : r.env) {
      absl::StrAppend(&out, "  export ", key, "=", ShellQuote(value), "\n");
    }
    std::vector<std::string> words;
    for (const std::string& w : r.command) words.push_back(ShellQuote(w));
    absl::StrAppend(&out, "  set -- ", absl::StrJoin(words, " "), "\n");
    first += r.count;
  }
  absl::StrAppend(&out,
                  "else\n  echo \"dlp: no replica for Slurm task $p\" >&2; exit 2\nfi\n");
  return out;
}

// What each srun task runs. Its output goes, one timestamped line at a time,
// to the replica's log in the runtime contract's format.
std::string TaskScript(const JobSpec& spec, const SlurmJobLayout& layout) {
  std::string workdir = spec.workdir.empty() ? layout.job_dir : spec.workdir;
  std::string launcher;
  if (!layout.dlp_run.empty()) {
    launcher = absl::StrCat("set -- ", ShellQuote(layout.dlp_run), " --framework ",
                            ShellQuote(std::string(FrameworkName(spec.framework))),
                            " -- \"$@\"\n");
  }
  return absl::StrCat(
      "set -u\n",
      "dlp_dir=", ShellQuote(layout.job_dir), "\n",
      "p=$SLURM_PROCID\n",
      // Every rank traces into the job's folder, where `dlp profile` reads;
      // a replica's own env may point elsewhere.
      "export DLP_TRACE_DIR=\"$dlp_dir/traces\"\n",
      RoleSelection(spec),
      "export DLP_ROLE=\"$role\" DLP_REPLICA_INDEX=\"$index\" DLP_REPLICA=\"$role-$index\"\n"
      "export RANK=\"$p\" WORLD_SIZE=\"$SLURM_NTASKS\" LOCAL_RANK=\"${SLURM_LOCALID:-0}\" "
      "NODE_RANK=\"${SLURM_NODEID:-0}\"\n"
      "MASTER_ADDR=$(scontrol show hostnames \"${SLURM_STEP_NODELIST:-$SLURM_JOB_NODELIST}\" "
      "2>/dev/null | head -n 1)\n"
      "export MASTER_ADDR=\"${MASTER_ADDR:-localhost}\" "
      "MASTER_PORT=$((20001 + SLURM_JOB_ID % 20000))\n",
      launcher,
      "cd ", ShellQuote(workdir), " || exit 1\n",
      "dlp_stamp() {\n"
      "  export TZ=UTC\n"
      "  local line t ts\n"
      "  while IFS= read -r line || [ -n \"$line\" ]; do\n"
      "    t=${EPOCHREALTIME/,/.}\n"
      "    printf -v ts '%(%Y-%m-%dT%H:%M:%S)T' \"${t%.*}\"\n"
      "    printf '%s.%sZ %s %s\\n' \"$ts\" \"${t#*.}\" \"$1\" \"$line\"\n"
      "  done\n"
      "}\n"
      "log=\"$dlp_dir/logs/$DLP_REPLICA.log\"\n"
      "( \"$@\" 2>&1 1>&3 3>&- | dlp_stamp E >>\"$log\"; exit \"${PIPESTATUS[0]}\" ) 3>&1 "
      "| dlp_stamp O >>\"$log\"\n"
      "rc=${PIPESTATUS[0]}\n"
      "echo \"$rc\" > \"$dlp_dir/exit/$DLP_REPLICA\"\n"
      "exit \"$rc\"\n");
}

std::string SbatchLines(const SlurmSubmission& s) {
  std::vector<std::pair<std::string, std::string>> options = {
      {"job-name", s.name},
      {"partition", s.partition},
      {"account", s.account},
      {"qos", s.qos},
      {"nodes", absl::StrCat(s.min_nodes, "-", s.max_nodes)},
      {"ntasks", absl::StrCat(s.tasks)},
      {"cpus-per-task", absl::StrCat(s.cpus_per_task)},
      {"mem-per-cpu", s.mem_per_cpu_mb > 0 ? absl::StrCat(s.mem_per_cpu_mb) : ""},
      {"gpus-per-task", s.gpus_per_task > 0 ? absl::StrCat(s.gpus_per_task) : ""},
      {"time", s.time_limit_minutes > 0 ? absl::StrCat(s.time_limit_minutes) : ""},
      {"nice", s.nice != 0 ? absl::StrCat(s.nice) : ""},
      {"comment", s.comment},
      {"output", s.output},
      {"chdir", s.chdir},
  };
  std::string out;
  for (const auto& [flag, value] : options) {
    if (value.empty()) continue;
    if (IsPlainWord(value)) {
      absl::StrAppend(&out, "#SBATCH --", flag, "=", value, "\n");
    } else {
      // sbatch cannot quote inside #SBATCH lines; the transports pass it apart.
      absl::StrAppend(&out, "# --", flag, " is passed on sbatch's command line\n");
    }
  }
  absl::StrAppend(&out, "#SBATCH --", s.requeue ? "requeue" : "no-requeue", "\n");
  // A requeued job keeps the output of its earlier runs.
  if (s.requeue) absl::StrAppend(&out, "#SBATCH --open-mode=append\n");
  return out;
}

// The restart policy, driven here rather than by dlp-run's --max-restarts:
// under srun each task's dlp-run sees only its own rank, so none of them can
// stop and restart the whole group. An attempt is one srun step; a failed task
// ends it (--kill-on-bad-exit), and the next attempt is a new step in the same
// allocation with DLP_RESTART_COUNT one higher. When the allocation itself is
// lost (a node fails, the job is preempted), only Slurm can start it again:
// --requeue, and the requeued script counts that as a restart too.
std::string RestartLoop(const JobSpec& spec) {
  const RestartPolicy& policy = spec.restart_policy;
  const int max = policy.policy == RestartPolicyKind::kNever ? 0 : policy.max_restarts;
  std::string out = absl::StrCat(
      "max_restarts=", max, "\n",
      "restarts=0\n"
      "if [ \"${SLURM_RESTART_COUNT:-0}\" -gt 0 ]; then\n"
      "  restarts=$(( $(cat \"$dlp_dir/restarts\" 2>/dev/null || echo 0) + 1 ))\n"
      "  echo \"dlp: Slurm requeued the job; restart $restarts of $max_restarts\"\n"
      "  if [ \"$restarts\" -gt \"$max_restarts\" ]; then\n"
      "    echo \"dlp: no restarts left after the requeue\" >&2; exit 1\n"
      "  fi\n"
      "fi\n"
      "while :; do\n"
      "  echo \"$restarts\" > \"$dlp_dir/restarts\"\n"
      "  DLP_RESTART_COUNT=$restarts srun --kill-on-bad-exit=1 /bin/bash -c \"$dlp_task\" "
      "dlp-task\n"
      "  rc=$?\n"
      "  [ \"$rc\" -eq 0 ] && exit 0\n");
  if (policy.policy == RestartPolicyKind::kExitCode) {
    absl::StrAppend(&out, "  [ \"$rc\" -ge 128 ] || exit \"$rc\"  # only signals restart\n");
  }
  absl::StrAppend(
      &out,
      "  if [ \"$restarts\" -ge \"$max_restarts\" ]; then\n"
      "    [ \"$max_restarts\" -eq 0 ] || "
      "echo \"dlp: attempt $restarts exited with code $rc; no restarts left\"\n"
      "    exit \"$rc\"\n"
      "  fi\n"
      "  restarts=$((restarts + 1))\n"
      "  echo \"dlp: attempt $((restarts - 1)) exited with code $rc; restart $restarts of "
      "$max_restarts\"\n");
  if (policy.backoff_seconds > 0) absl::StrAppend(&out, "  sleep ", policy.backoff_seconds, "\n");
  absl::StrAppend(&out, "done\n");
  return out;
}

}  // namespace


std::string SlurmJobName(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') {
      c = '_';
    }
  }
  return out.empty() ? "dlp-job" : out;
}

std::string SlurmComment(const std::string& key, const JobSpec& spec) {
  std::vector<std::string> labels;
  for (const auto& [k, v] : spec.labels) labels.push_back(SlurmJobName(k) + "=" + SlurmJobName(v));
  std::string comment = absl::StrCat("dlp:", key);
  for (const std::string& label : labels) absl::StrAppend(&comment, ",", label);
  return comment;
}

std::string KeyFromComment(const std::string& comment) {
  if (!absl::StartsWith(comment, "dlp:")) return "";
  const size_t end = comment.find_first_of(", ", 4);
  std::string key = comment.substr(4, end == std::string::npos ? std::string::npos : end - 4);
  // A key names a folder; never let it climb out of the workdir.
  if (key.empty() || absl::StrContains(key, "/") || key == "." || key == "..") return "";
  return key;
}

absl::StatusOr<SlurmSubmission> BuildSubmission(const JobSpec& spec,
                                                const SlurmJobLayout& layout) {
  SlurmSubmission s;
  int64_t cpu_millis = 1000, memory = 0;
  int gpus = 0;
  for (const ReplicaSpec& r : spec.replicas) {
    for (const auto& [key, value] : r.env) {
      if (!IsShellName(key)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "spec.replicas.", r.role, ".env: \"", key,
            "\" is not a valid environment variable name for Slurm (letters, digits, _)"));
      }
    }
    if (r.command.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("spec.replicas.", r.role, ": no command"));
    }
    cpu_millis = std::max(cpu_millis, r.resources.cpu_millis);
    memory = std::max(memory, r.resources.memory_bytes);
    gpus = std::max(gpus, r.resources.gpu);
  }
  int tasks = 0;
  for (const ReplicaSpec& r : spec.replicas) tasks += r.count;
  if (tasks < 1) return absl::InvalidArgumentError("spec.replicas: no replicas to run");
  // One srun step gives every task the same shape: the largest role's.
  s.tasks = tasks;
  s.min_nodes = 1;
  s.max_nodes = tasks;
  s.cpus_per_task = static_cast<int>(std::max<int64_t>(1, CeilDiv(cpu_millis, 1000)));
  if (memory > 0) s.mem_per_cpu_mb = CeilDiv(CeilDiv(memory, 1 << 20), s.cpus_per_task);
  s.gpus_per_task = gpus;
  if (spec.active_deadline_seconds > 0) {
    s.time_limit_minutes = CeilDiv(spec.active_deadline_seconds, 60);
  }
  // Only operators may lower nice below 0: higher priorities need a QoS.
  s.nice = spec.priority < 0 ? -spec.priority : 0;
  s.requeue = spec.restart_policy.policy != RestartPolicyKind::kNever &&
              spec.restart_policy.max_restarts > 0;
  s.name = SlurmJobName(spec.name);
  const std::string key = layout.job_dir.substr(layout.job_dir.rfind('/') + 1);
  s.comment = SlurmComment(key, spec);
  s.partition = (spec.queue.empty() || spec.queue == "default") ? layout.partition : spec.queue;
  s.account = layout.account;
  s.qos = layout.qos;
  s.output = layout.job_dir + "/slurm.out";
  s.chdir = spec.workdir.empty() ? layout.job_dir : spec.workdir;

  s.script = absl::StrCat(
      "#!/bin/bash\n", SbatchLines(s),
      "# dlp job ", ShellQuote(spec.name), ": ", tasks,
      " Slurm tasks, one per replica; srun starts them and each runs its replica's command.\n",
      "set -u\n",
      "export DLP_JOB_ID=\"$SLURM_JOB_ID\" DLP_JOB_NAME=", ShellQuote(spec.name), "\n",
      "dlp_dir=", ShellQuote(layout.job_dir), "\n",
      "mkdir -p \"$dlp_dir/logs\" \"$dlp_dir/exit\" \"$dlp_dir/traces\"\n",
      "dlp_task=", ShellQuote(TaskScript(spec, layout)), "\n",
      RestartLoop(spec));
  return s;
}

}  // namespace dlp::internal
