// dlp cancel JOB...: requests cancellation (SIGTERM to every process group, then SIGKILL).
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "command.h"
#include "common.h"

namespace dlp::cli {
namespace {

struct CancelFlags {
  std::vector<std::string> ids;
  bool quiet = false;
};

// Cancels every job given; the exit code is the first failure's.
int RunCancel(const CancelFlags& flags, const GlobalFlags& globals) {
  return ForEachJob(globals, flags.ids, [&](Client& client, const std::string& id) {
    absl::StatusOr<Job> job = client.Cancel(id);
    if (!job.ok() || flags.quiet) return job.status();
    if (IsTerminal(job->state) && job->state != JobState::kCancelled) {
      std::printf("job %s already %s\n", job->id.c_str(),
                  std::string(JobStateName(job->state)).c_str());
    } else {
      std::printf("job %s cancelled\n", job->id.c_str());
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterCancel(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<CancelFlags>();
  CLI::App* cmd = parent.add_subcommand("cancel", "Cancel jobs (their whole process trees)");
  cmd->add_option("JOB", flags->ids, "Job ids")->required();
  cmd->add_flag("-q,--quiet", flags->quiet, "Print nothing on success");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunCancel(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
