// dlp status JOB [-o table|wide|json|yaml]
#include <memory>

#include "CLI/CLI.hpp"
#include "command.h"
#include "common.h"
#include "job_output.h"

namespace dlp::cli {
namespace {

struct StatusFlags {
  std::string id;
  OutputFormat format = OutputFormat::kTable;
};

int RunStatus(const StatusFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Job> job = (*client)->Get(flags.id);
  if (!job.ok()) return ReportError(job.status());
  PrintJobs({*job}, flags.format, /*as_list=*/false, globals);
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterStatus(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<StatusFlags>();
  CLI::App* cmd = parent.add_subcommand("status", "Show a job's state");
  cmd->add_option("JOB", flags->id, "Job id")->required();
  AddOutputFlag(*cmd, &flags->format);
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunStatus(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
