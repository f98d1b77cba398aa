// dlp status JOB [--why] [-o table|wide|json|yaml]
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "command.h"
#include "common.h"
#include "dlp/codec.h"
#include "job_output.h"
#include "terminal_text.h"

namespace dlp::cli {
namespace {

struct StatusFlags {
  std::string id;
  bool why = false;
  OutputFormat format = OutputFormat::kTable;
};

// The scheduler's explanation, as `squeue --start` and Kueue's pending
// workloads answer "why is my job pending?".
void PrintExplanation(const Job& job, const JobExplanation& why) {
  std::printf("job %s%s: %s\n", job.id.c_str(),
              job.name.empty() ? "" : absl::StrCat(" (", TerminalSafe(job.name), ")").c_str(),
              std::string(JobStateName(why.state)).c_str());
  if (why.state != JobState::kQueued) {
    if (!why.reason.empty()) std::printf("reason: %s\n", TerminalSafe(why.reason).c_str());
    if (job.size > 0) std::printf("size: %s\n", ElasticSize(job).c_str());
    if (why.trace.empty()) {
      std::printf("it is not waiting: the scheduler has nothing to explain\n");
      return;
    }
    std::printf("decision:\n");  // an elastic job's resizes
    for (const std::string& step : why.trace) std::printf("  %s\n", TerminalSafe(step).c_str());
    return;
  }
  std::printf("reason: %s\n", why.reason.empty() ? "-" : TerminalSafe(why.reason).c_str());
  std::printf("position: %s\n", why.position
                                    ? absl::StrCat(*why.position, " in queue ", TerminalSafe(job.queue)).c_str()
                                    : "unknown");
  std::printf("estimated start: %s\n",
              why.estimated_start ? absl::StrCat(FormatTimestamp(why.estimated_start), " (in ",
                                                 FormatAge(*why.estimated_start - absl::Now()), ")")
                                        .c_str()
                                  : "unknown");
  std::printf("preemptions: %d\n", job.preemptions);
  if (!job.spec.depends_on.empty()) {
    std::printf("depends on: %s\n", FormatDependencies(job.spec).c_str());
  }
  if (why.trace.empty()) {
    std::printf("decision: no more detail from the scheduler\n");
    return;
  }
  std::printf("decision:\n");
  for (const std::string& step : why.trace) std::printf("  %s\n", TerminalSafe(step).c_str());
}

int RunStatus(const StatusFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Job> job = (*client)->Get(flags.id);
  if (!job.ok()) return ReportError(job.status());
  if (!flags.why) {
    PrintJobs({*job}, flags.format, /*as_list=*/false, globals);
    const bool table = flags.format == OutputFormat::kTable || flags.format == OutputFormat::kWide;
    if (table && !job->spec.depends_on.empty()) {
      std::printf("depends on: %s\n", FormatDependencies(job->spec).c_str());
    }
    return Code(ExitCode::kSuccess);
  }
  absl::StatusOr<JobExplanation> why = (*client)->Why(flags.id);
  if (!why.ok()) return ReportError(why.status());
  switch (flags.format) {
    case OutputFormat::kJson:
    case OutputFormat::kYaml:  // JSON is YAML
      std::printf("%s\n", ExplanationToJson(*why, 2).c_str());
      break;
    case OutputFormat::kTable:
    case OutputFormat::kWide:
      PrintExplanation(*job, *why);
      break;
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterStatus(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<StatusFlags>();
  CLI::App* cmd = parent.add_subcommand("status", "Show a job's state");
  cmd->add_option("JOB", flags->id, "Job id")->required();
  cmd->add_flag("--why", flags->why,
                "Why the job waits: its reason, place in its queue, estimated start and the "
                "scheduler's decision trace");
  AddOutputFlag(*cmd, &flags->format);
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunStatus(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
