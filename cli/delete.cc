// dlp delete JOB...: removes ended jobs (record, events, logs, traces, output).
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "command.h"
#include "common.h"
#include "dlp/status.h"

namespace dlp::cli {
namespace {

struct DeleteFlags {
  std::vector<std::string> ids;
  bool force = false;
  bool quiet = false;
};

// --force: a job that has not ended is cancelled, and deleted once it has.
absl::Status EndFirst(Client& client, const std::string& id) {
  DLP_ASSIGN_OR_RETURN(Job job, client.Get(id));
  if (IsTerminal(job.state)) return absl::OkStatus();
  DLP_RETURN_IF_ERROR(client.Cancel(job.id).status());
  return client.Wait(job.id).status();
}

// Deletes every job given; the exit code is the first failure's.
int RunDelete(const DeleteFlags& flags, const GlobalFlags& globals) {
  return ForEachJob(globals, flags.ids, [&](Client& client, const std::string& id) {
    if (flags.force) DLP_RETURN_IF_ERROR(EndFirst(client, id));
    absl::StatusOr<Job> job = client.Delete(id);
    if (job.ok() && !flags.quiet) std::printf("job %s deleted\n", job->id.c_str());
    return job.status();
  });
}

}  // namespace

void RegisterDelete(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<DeleteFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "delete", "Delete ended jobs: their records, logs, traces and output files");
  cmd->add_option("JOB", flags->ids, "Job ids")->required();
  cmd->add_flag("-f,--force", flags->force,
                "Cancel a job that has not ended, and delete it once it has");
  cmd->add_flag("-q,--quiet", flags->quiet, "Print nothing on success");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunDelete(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
