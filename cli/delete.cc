// dlp delete JOB...: removes ended jobs (record, events, logs, traces, output);
// and `dlp sweep|pipeline delete ID...`, which remove a sweep or pipeline
// with its jobs.
#include "delete.h"

#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "common.h"
#include "dlp/status.h"

namespace dlp::cli {
namespace {

struct DeleteFlags {
  std::vector<std::string> ids;
  bool force = false;
  bool quiet = false;
};

// Deletes every job given; the exit code is the first failure's.
int RunDelete(const DeleteFlags& flags, const GlobalFlags& globals) {
  return ForEachJob(globals, flags.ids, [&](Client& client, const std::string& id) {
    // --force: the backend cancels a job that has not ended and deletes it
    // once it has (refusing a sweep's or pipeline's job before ending it).
    absl::StatusOr<Job> job = client.Delete(id, flags.force);
    if (job.ok() && !flags.quiet) std::printf("job %s deleted\n", job->id.c_str());
    return job.status();
  });
}

void AddDeleteFlags(CLI::App& cmd, DeleteFlags& flags, const std::string& force_help) {
  cmd.add_flag("-f,--force", flags.force, force_help);
  cmd.add_flag("-q,--quiet", flags.quiet, "Print nothing on success");
}

}  // namespace

void RegisterDelete(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<DeleteFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "delete",
      "Delete ended jobs: their records, logs, traces and output files (a sweep's or "
      "pipeline's jobs go with it: dlp sweep delete, dlp pipeline delete)");
  cmd->add_option("JOB", flags->ids, "Job ids")->required();
  AddDeleteFlags(*cmd, *flags, "Cancel a job that has not ended, and delete it once it has");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunDelete(*flags, invocation.globals); };
  });
}

void AddGroupDelete(CLI::App& group, Invocation& invocation, const std::string& what,
                    GroupDeleter remove) {
  auto flags = std::make_shared<DeleteFlags>();
  CLI::App* cmd = group.add_subcommand(
      "delete", "Delete ended " + what +
                    "s with their jobs' records, logs, traces and output files (registered "
                    "models stay)");
  cmd->add_option(what == "sweep" ? "SWEEP" : "ID", flags->ids, "The " + what + "s' ids")
      ->required();
  AddDeleteFlags(*cmd, *flags,
                 "Cancel a " + what + " that has not ended, and delete it once its jobs have");
  cmd->callback([flags, what, remove, &invocation] {
    invocation.action = [flags, what, remove, &invocation] {
      return ForEachJob(invocation.globals, flags->ids, [&](Client& client, const std::string& id) {
        absl::StatusOr<std::string> deleted = remove(client, id, flags->force);
        if (deleted.ok() && !flags->quiet) {
          std::printf("%s %s deleted\n", what.c_str(), deleted->c_str());
        }
        return deleted.status();
      });
    };
  });
}

}  // namespace dlp::cli
