#include "backends/slurm/batch_script.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/numeric/checked_math.h"
#include "contract/dlp_run.h"
#include "contract/secret_shell.h"
#include "job/elastic_note.h"
#include "contract/shell_quote.h"
#include "dlp/spec.h"

namespace dlp::internal {
namespace {

// Paths and names that may stand unquoted in an #SBATCH line; `also`: more
// characters allowed.
bool IsPlainWord(const std::string& word, std::string_view also = "") {
  return !word.empty() && std::all_of(word.begin(), word.end(), [also](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
           absl::StrContains("-_./=:,@+", c) || also.find(c) != std::string_view::npos;
  });
}

// For a >= 0, b > 0; never overflows (a + b - 1 would near INT64_MAX).
int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// Slurm keeps cpus-per-task in 16 bits (0xfffe and up are its markers).
constexpr int64_t kSlurmMaxCpusPerTask = 65533;

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
      {"dependency", s.dependency},
      {"kill-on-invalid-dep", s.dependency.empty() ? "" : "yes"},
  };
  std::string out;
  for (const auto& [flag, value] : options) {
    if (value.empty()) continue;
    // A rendered pipeline names the ids it will have as ${jobs.NAME.id}.
    if (IsPlainWord(value, flag == "dependency" ? "${}" : "")) {
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

}  // namespace

std::string SlurmDependency(const std::vector<JobDependency>& depends_on) {
  std::string out;
  for (const JobDependency& d : depends_on) {
    const char* type = "afterok";
    if (d.condition == DependencyCondition::kFailed) type = "afternotok";
    if (d.condition == DependencyCondition::kFinished) type = "afterany";
    absl::StrAppend(&out, out.empty() ? "" : ",", type, ":", d.job);
  }
  return out;
}

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
  std::string cpu_role;
  for (const ReplicaSpec& r : spec.replicas) {
    if (r.command.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("spec.replicas.", r.role, ": no command"));
    }
    if (r.resources.cpu_millis > cpu_millis) cpu_role = r.role;
    cpu_millis = std::max(cpu_millis, r.resources.cpu_millis);
    memory = std::max<int64_t>(memory, r.resources.memory_bytes);
    // srun's --gpus-per-task counts whole devices; packing fractions onto one
    // device and picking a device type are dlpd's (GRES type names are each site's).
    const std::string gpu_path = absl::StrCat("spec.replicas.", r.role, ".resources.gpu");
    if (r.resources.gpu_millis % 1000 != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          gpu_path, ": ", FormatGpuMillis(r.resources.gpu_millis),
          " GPU: the Slurm backend allocates whole GPUs only; ask for whole GPUs, or run the "
          "job on dlpd, which packs fractions onto one device"));
    }
    if (!r.resources.gpu_type.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(gpu_path,
                       "Type: the Slurm backend does not choose GPU types; leave "
                       "gpuType out (or use a partition with that GPU)"));
    }
    gpus = std::max<int>(gpus, static_cast<int>(r.resources.gpu_millis / 1000));
  }
  int tasks = 0;
  for (const ReplicaSpec& r : spec.replicas) {
    std::optional<int> sum = base::CheckedAdd(tasks, r.count);
    if (!sum) return absl::InvalidArgumentError("spec.replicas: too many replicas to count");
    tasks = *sum;
  }
  if (tasks < 1) return absl::InvalidArgumentError("spec.replicas: no replicas to run");
  // One srun step gives every task the same shape: the largest role's.
  const int64_t cpus = CeilDiv(cpu_millis, 1000);
  if (cpus > kSlurmMaxCpusPerTask) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.replicas.", cpu_role, ".resources.cpu: ", cpus,
                     " CPUs per task; Slurm allows at most ", kSlurmMaxCpusPerTask));
  }
  s.tasks = tasks;
  s.min_nodes = 1;
  s.max_nodes = tasks;
  s.cpus_per_task = static_cast<int>(cpus);
  if (memory > 0) s.mem_per_cpu_mb = CeilDiv(CeilDiv(memory, 1 << 20), s.cpus_per_task);
  s.gpus_per_task = gpus;
  if (spec.active_deadline_seconds > 0) {
    s.time_limit_minutes = CeilDiv(spec.active_deadline_seconds, 60);
  }
  // Only operators may lower nice below 0: higher priorities need a QoS.
  s.nice = spec.priority < 0 ? base::SaturatingSub(0, spec.priority) : 0;
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
  s.dependency = SlurmDependency(spec.depends_on);

  // Every task runs dlp-run on the group file; dlp-run picks the task's
  // replica, sets its environment, writes its log and applies the restart policy.
  const contract::JobFolder folder{layout.job_dir};
  contract::DlpRunJob job;
  job.dlp_run = layout.dlp_run.empty() ? "dlp-run" : layout.dlp_run;
  job.group_file = folder.GroupFile();
  job.log_dir = folder.LogDir();
  job.status_file = folder.StatusFile();
  job.trace_dir = folder.TraceDir();
  job.job_name = spec.name;
  job.output_dir = folder.OutputDir();
  const contract::DlpRunCommand command = contract::MakeDlpRunCommand(job);
  std::string env;
  for (const auto& [key, value] : command.env) {
    absl::StrAppend(&env, key, "=", contract::ShellQuoteIfNeeded(value), " ");
  }
  // Slurm allocates a job's tasks once, and has no range of tasks: an
  // elastic role runs at its count (dlp-job(5), "Slurm").
  const std::string elastic = RunsAtCountNote(
      spec, "on Slurm, whose allocation of tasks is fixed once the job starts");
  s.script =
      absl::StrCat("#!/bin/bash\n", SbatchLines(s), "# dlp job ", contract::ShellQuote(spec.name),
                   ": ", tasks, " Slurm tasks, one per replica of the group file.\n", elastic,
                   "# Every task's rendezvous secret, drawn here and now (docs/security.md).\n",
                   contract::kExportNewRdzvSecret, "\n", env,
                   "srun --kill-on-bad-exit=0 ", contract::ShellCommandLine(command.argv), "\n");
  return s;
}

}  // namespace dlp::internal
