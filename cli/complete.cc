// dlp __complete jobs|contexts: fast candidate lists for the shell completions.
// Prints "VALUE<TAB>DESCRIPTION" lines; prints nothing (exit 0) when the backend
// is not reachable, and never starts a local dlpd just to complete a word.
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "command.h"
#include "command_table.h"
#include "common.h"
#include "dlp/config.h"
#include "dlp/local_server.h"

namespace dlp::cli {
namespace {

int CompleteContexts(const GlobalFlags& globals) {
  absl::StatusOr<Config> config = LoadConfig(DefaultConfigPath(globals.config_path));
  if (!config.ok()) return Code(ExitCode::kSuccess);
  for (const Context& c : config->contexts) std::printf("%s\t%s\n", c.name.c_str(), c.backend.c_str());
  return Code(ExitCode::kSuccess);
}

int CompleteJobs(const GlobalFlags& globals) {
  absl::StatusOr<Context> context = ResolveContext(ClientOptionsFor(globals));
  if (!context.ok()) return Code(ExitCode::kSuccess);
  if (context->backend == "local") {
    LocalServerOptions options;
    options.state_dir = context->Field("state-dir");
    absl::StatusOr<LocalServerInfo> info = LocalServerStatus(options);
    if (!info.ok() || !info->running) return Code(ExitCode::kSuccess);
  }
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return Code(ExitCode::kSuccess);
  ListFilter filter;
  filter.limit = 200;  // the newest ones are what people type
  absl::StatusOr<std::vector<Job>> jobs = (*client)->List(filter);
  if (!jobs.ok()) return Code(ExitCode::kSuccess);
  for (auto it = jobs->rbegin(); it != jobs->rend(); ++it) {
    std::printf("%s\t%s %s\n", it->id.c_str(), it->name.c_str(),
                std::string(JobStateName(it->state)).c_str());
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterComplete(CLI::App& parent, Invocation& invocation) {
  auto what = std::make_shared<std::string>();
  CLI::App* cmd = parent.add_subcommand("__complete", "Completion candidates (for shell scripts)");
  cmd->group("");  // hidden from --help
  cmd->add_option("WHAT", *what, "jobs or contexts")
      ->required()
      ->transform(Choices({"jobs", "contexts"}));
  cmd->callback([what, &invocation] {
    invocation.action = [what, &invocation] {
      return *what == "jobs" ? CompleteJobs(invocation.globals) : CompleteContexts(invocation.globals);
    };
  });
}

}  // namespace dlp::cli
