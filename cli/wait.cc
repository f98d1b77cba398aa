// dlp wait JOB... [--timeout D]: exits with the outcome of the jobs.
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "command.h"
#include "common.h"
#include "job_output.h"
#include "waiting.h"

namespace dlp::cli {
namespace {

struct WaitCmdFlags {
  std::vector<std::string> ids;
  std::string timeout;
  bool quiet = false;
};

// Waits for each job in turn (one shared deadline). The exit code is that of the
// first job, in argument order, that did not succeed; 0 when all succeeded.
int RunWait(const WaitCmdFlags& flags, const GlobalFlags& globals) {
  absl::Duration timeout = absl::InfiniteDuration();
  if (!flags.timeout.empty() && (!absl::ParseDuration(flags.timeout, &timeout) ||
                                 timeout < absl::ZeroDuration())) {
    PrintError(absl::StrCat("--timeout wants a duration such as 30s or 5m, got '", flags.timeout, "'"));
    return Code(ExitCode::kUsage);
  }
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  const absl::Time deadline = timeout == absl::InfiniteDuration() ? absl::InfiniteFuture()
                                                                   : absl::Now() + timeout;
  int result = Code(ExitCode::kSuccess);
  for (const std::string& id : flags.ids) {
    WaitFlags wait;
    wait.progress = !flags.quiet;
    wait.deadline = deadline;
    absl::StatusOr<Job> job = WaitForJob(**client, id, wait);
    if (!job.ok()) {
      const int code = ReportError(job.status());
      if (absl::IsCancelled(job.status())) return code;  // Ctrl-C: stop at once
      if (result == 0) result = code;
      continue;
    }
    if (!flags.quiet) std::printf("job %s %s\n", job->id.c_str(), std::string(JobStateName(job->state)).c_str());
    std::fflush(stdout);
    PrintJobOutcome(*job);
    const int code = Code(ExitCodeForJob(*job));
    if (result == 0) result = code;
  }
  return result;
}

}  // namespace

void RegisterWait(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<WaitCmdFlags>();
  CLI::App* cmd = parent.add_subcommand("wait", "Wait for jobs to end; exit with their outcome");
  cmd->add_option("JOB", flags->ids, "Job ids")->required();
  cmd->add_option("--timeout", flags->timeout, "Give up after this long (30s, 5m, 2h); exit 4")
      ->option_text("DURATION");
  cmd->add_flag("-q,--quiet", flags->quiet, "Print nothing but errors");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunWait(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
