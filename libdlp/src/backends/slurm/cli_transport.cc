// The Slurm command-line tools, run with an argv (no shell). They read
// SLURM_CONF from the environment like any other Slurm client.
#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "backends/slurm/transport.h"
#include "base/process/run_program.h"
#include "dlp/status.h"

namespace dlp::internal {
namespace {

// Slurm's message without the "sbatch: error: " prefixes, one line.
std::string SlurmMessage(const base::ProgramResult& r) {
  std::string text = std::string(absl::StripAsciiWhitespace(r.err));
  if (text.empty()) text = std::string(absl::StripAsciiWhitespace(r.out));
  // The last line is the summary ("Batch job submission failed: ...").
  size_t nl = text.rfind('\n');
  std::string last = nl == std::string::npos ? text : text.substr(nl + 1);
  for (absl::string_view prefix : {"sbatch: error: ", "squeue: error: ", "scancel: error: "}) {
    if (absl::StartsWith(last, prefix)) last = last.substr(prefix.size());
  }
  return last;
}

bool Unreachable(const std::string& message) {
  return absl::StrContains(message, "Unable to contact slurm controller") ||
         absl::StrContains(message, ": fatal: ") ||  // no usable slurm.conf
         absl::StrContains(message, "Unable to process configuration file") ||
         absl::StrContains(message, "Socket timed out") ||
         absl::StrContains(message, "Connection refused") ||
         absl::StrContains(message, "Could not establish a configuration source") ||
         absl::StrContains(message, "Munge") || absl::StrContains(message, "munge");
}

absl::Status ToolError(const std::string& tool, const absl::Status& status) {
  if (absl::IsNotFound(status)) {
    return absl::UnavailableError(
        absl::StrCat("Slurm is not installed here (", status.message(), ")"));
  }
  return absl::UnavailableError(absl::StrCat(tool, ": ", status.message()));
}

class CliTransport final : public SlurmTransport {
 public:
  std::string Name() const override { return "cli"; }

  absl::StatusOr<std::string> Submit(const SlurmSubmission& job) override {
    std::vector<std::string> argv = {"sbatch", "--parsable"};
    auto add = [&](const std::string& flag, const std::string& value) {
      if (!value.empty()) argv.push_back(absl::StrCat(flag, "=", value));
    };
    add("--job-name", job.name);
    add("--comment", job.comment);
    add("--partition", job.partition);
    add("--account", job.account);
    add("--qos", job.qos);
    add("--output", job.output);
    add("--chdir", job.chdir);
    add("--nodes", absl::StrCat(job.min_nodes, "-", job.max_nodes));
    add("--ntasks", absl::StrCat(job.tasks));
    add("--cpus-per-task", absl::StrCat(job.cpus_per_task));
    if (job.mem_per_cpu_mb > 0) add("--mem-per-cpu", absl::StrCat(job.mem_per_cpu_mb));
    if (job.gpus_per_task > 0) add("--gpus-per-task", absl::StrCat(job.gpus_per_task));
    if (job.time_limit_minutes > 0) add("--time", absl::StrCat(job.time_limit_minutes));
    if (job.nice != 0) add("--nice", absl::StrCat(job.nice));
    add("--dependency", job.dependency);
    if (!job.dependency.empty()) add("--kill-on-invalid-dep", "yes");
    argv.push_back(job.requeue ? "--requeue" : "--no-requeue");
    auto result = base::RunProgram(argv, job.script);
    if (!result.ok()) return ToolError("sbatch", result.status());
    if (result->exit_code != 0) {
      std::string message = SlurmMessage(*result);
      if (Unreachable(message)) return absl::UnavailableError(absl::StrCat("sbatch: ", message));
      return absl::InvalidArgumentError(absl::StrCat("Slurm rejected the job: ", message));
    }
    // --parsable prints "ID" or "ID;cluster".
    std::string id(absl::StripAsciiWhitespace(result->out));
    id = id.substr(0, id.find(';'));
    if (id.empty() || !std::all_of(id.begin(), id.end(), absl::ascii_isdigit)) {
      return absl::InternalError(absl::StrCat("sbatch printed no job id: '", result->out, "'"));
    }
    return id;
  }

  absl::StatusOr<SlurmJobRecord> Job(const std::string& id) override {
    // 22.05 ignores --jobs with --json: ask anyway, then filter.
    DLP_ASSIGN_OR_RETURN(auto jobs, Query({"squeue", "--json", "--jobs", id}));
    for (SlurmJobRecord& job : jobs) {
      if (job.id == id) return std::move(job);
    }
    // Past MinJobAge only the completion log (jobcomp/filetxt) remembers it.
    if (auto done = FromJobCompletions(id); done.ok()) return done;
    return absl::NotFoundError(absl::StrCat("Slurm knows no job ", id));
  }

  absl::StatusOr<std::vector<SlurmJobRecord>> Jobs() override {
    return Query({"squeue", "--json"});
  }

  absl::Status Cancel(const std::string& id) override {
    auto result = base::RunProgram({"scancel", id});
    if (!result.ok()) return ToolError("scancel", result.status());
    if (result->exit_code != 0) {
      std::string message = SlurmMessage(*result);
      if (absl::StrContains(message, "Invalid job id")) {
        return absl::NotFoundError(absl::StrCat("Slurm knows no job ", id, ": ", message));
      }
      return absl::UnavailableError(absl::StrCat("scancel: ", message));
    }
    return absl::OkStatus();
  }

 private:
  // `sacct -c` reads the job completion file; without slurmdbd it is all there
  // is once squeue has forgotten a job. It has no comment, hence no job folder.
  static absl::StatusOr<SlurmJobRecord> FromJobCompletions(const std::string& id) {
    auto result = base::RunProgram({"sacct", "-c", "-j", id, "-P", "-n",
                              "--format=JobID,JobName,User,Partition,State,ExitCode,Submit,"
                              "Start,End,NodeList"});
    if (!result.ok() || result->exit_code != 0) return absl::NotFoundError("no completion record");
    for (absl::string_view line : absl::StrSplit(result->out, '\n', absl::SkipEmpty())) {
      std::vector<std::string> f = absl::StrSplit(line, '|');
      if (f.size() < 10 || f[0] != id) continue;
      SlurmJobRecord r;
      r.id = f[0];
      r.name = f[1];
      r.user = f[2].substr(0, f[2].find('('));
      r.partition = f[3];
      r.state = f[4].substr(0, f[4].find(' '));  // "CANCELLED by 0"
      std::vector<std::string> code = absl::StrSplit(f[5], ':');
      int exit = 0, signal = 0;
      if (code.size() == 2 && absl::SimpleAtoi(code[0], &exit) && absl::SimpleAtoi(code[1], &signal)) {
        r.exit_status = signal != 0 ? signal : exit << 8;
      }
      auto time = [](const std::string& text) -> std::optional<absl::Time> {
        absl::Time t;
        std::string error;
        if (!absl::ParseTime("%Y-%m-%dT%H:%M:%S", text, absl::LocalTimeZone(), &t, &error)) {
          return std::nullopt;
        }
        return t;
      };
      r.submitted = time(f[6]);
      r.started = time(f[7]);
      r.ended = time(f[8]);
      r.nodes = f[9];
      return r;
    }
    return absl::NotFoundError("no completion record");
  }

  absl::StatusOr<std::vector<SlurmJobRecord>> Query(const std::vector<std::string>& argv) {
    auto result = base::RunProgram(argv);
    if (!result.ok()) return ToolError(argv[0], result.status());
    if (result->exit_code != 0) {
      return absl::UnavailableError(absl::StrCat(argv[0], ": ", SlurmMessage(*result)));
    }
    auto jobs = ParseSlurmJobs(result->out);
    if (!jobs.ok()) return absl::UnavailableError(jobs.status().message());
    return jobs;
  }
};

}  // namespace

std::unique_ptr<SlurmTransport> NewCliTransport() { return std::make_unique<CliTransport>(); }

}  // namespace dlp::internal
