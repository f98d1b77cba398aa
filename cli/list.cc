// dlp list [--state S] [--label K=V]... [--limit N] [-o table|wide|json|yaml]
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "command.h"
#include "command_table.h"
#include "common.h"
#include "job_output.h"

namespace dlp::cli {
namespace {

std::vector<std::string> JobStateNames() {
  std::vector<std::string> names;
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                         JobState::kFailed, JobState::kCancelled}) {
    names.emplace_back(JobStateName(state));
  }
  return names;
}

struct ListFlags {
  std::string state;
  std::vector<std::string> labels;
  std::string queue;
  int limit = 0;
  OutputFormat format = OutputFormat::kTable;
};

int RunList(const ListFlags& flags, const GlobalFlags& globals) {
  ListFilter filter;
  if (!flags.state.empty()) {
    filter.state = ParseJobState(flags.state);
    if (!filter.state) {
      PrintError(absl::StrCat("unknown state '", flags.state,
                              "': expected Queued, Running, Succeeded, Failed or Cancelled"));
      return Code(ExitCode::kUsage);
    }
  }
  for (const std::string& label : flags.labels) {
    const size_t eq = label.find('=');
    if (eq == std::string::npos || eq == 0) {
      PrintError(absl::StrCat("--label wants KEY=VALUE, got '", label, "'"));
      return Code(ExitCode::kUsage);
    }
    filter.labels[label.substr(0, eq)] = label.substr(eq + 1);
  }
  filter.queue = flags.queue;
  filter.limit = flags.limit;
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Job>> jobs = (*client)->List(filter);
  if (!jobs.ok()) return ReportError(jobs.status());
  PrintJobs(*jobs, flags.format, /*as_list=*/true, globals);
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterList(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<ListFlags>();
  CLI::App* cmd = parent.add_subcommand("list", "List jobs, oldest first");
  cmd->add_option("--state", flags->state,
                  "Only jobs in this state: Queued, Running, Succeeded, Failed, Cancelled")
      ->transform(Choices(JobStateNames()))
      ->option_text("STATE");
  cmd->add_option("--label", flags->labels, "Only jobs with this label (repeatable; all must match)")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--queue", flags->queue, "Only jobs in this queue")->option_text("QUEUE");
  cmd->add_option("--limit", flags->limit, "Only the newest N jobs (default: every job)")
      ->option_text("N")
      ->check(CLI::NonNegativeNumber);
  AddOutputFlag(*cmd, &flags->format);
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunList(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
