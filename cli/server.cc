// dlp server start|stop|status: the user's own dlpd (the local backend).
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "command.h"
#include "common.h"
#include "dlp/config.h"
#include "dlp/local_server.h"

namespace dlp::cli {
namespace {

struct ServerFlags {
  LocalServerOptions options;
};

// Without --state-dir, a local context's `state-dir` field (if any) names the folder.
LocalServerOptions ResolveOptions(const ServerFlags& flags, const GlobalFlags& globals) {
  LocalServerOptions options = flags.options;
  if (!options.state_dir.empty()) return options;
  absl::StatusOr<Context> context = ResolveContext(ClientOptionsFor(globals));
  if (context.ok() && context->backend == "local") options.state_dir = context->Field("state-dir");
  return options;
}

void PrintInfo(const LocalServerInfo& info) {
  std::printf("dlpd %s running: pid %d, address %s, state %s\n", info.version.c_str(), info.pid,
              info.address.c_str(), info.state_dir.c_str());
}

int RunStart(const LocalServerOptions& options) {
  absl::StatusOr<LocalServerInfo> info = StartLocalServer(options);
  if (!info.ok()) return ReportError(info.status());
  PrintInfo(*info);
  return Code(ExitCode::kSuccess);
}

int RunStop(const LocalServerOptions& options) {
  absl::Status status = StopLocalServer(options);
  if (!status.ok()) return ReportError(status);
  std::printf("dlpd stopped\n");
  return Code(ExitCode::kSuccess);
}

// Exit 0 when dlpd runs, 4 (backend unreachable) when it does not.
int RunServerStatus(const LocalServerOptions& options) {
  absl::StatusOr<LocalServerInfo> info = LocalServerStatus(options);
  if (!info.ok()) return ReportError(info.status());
  if (!info->running) {
    std::printf("dlpd is not running (state %s)\n", info->state_dir.c_str());
    return Code(ExitCode::kBackend);
  }
  PrintInfo(*info);
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterServer(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<ServerFlags>();
  CLI::App* cmd = parent.add_subcommand("server", "Manage the local dlpd: start, stop, status");
  cmd->require_subcommand(1);
  cmd->add_option("--state-dir", flags->options.state_dir,
                  "dlpd's state folder (default: $XDG_STATE_HOME/dlp)")
      ->option_text("DIR");

  CLI::App* start = cmd->add_subcommand("start", "Start dlpd unless one is running");
  start->add_option("--listen", flags->options.listen, "Address to listen on (default 127.0.0.1:0)")
      ->option_text("HOST:PORT");
  start->callback([flags, &invocation] { invocation.action = [flags, &invocation] { return RunStart(ResolveOptions(*flags, invocation.globals)); }; });

  CLI::App* stop = cmd->add_subcommand("stop", "Stop dlpd (its jobs keep running)");
  stop->callback([flags, &invocation] { invocation.action = [flags, &invocation] { return RunStop(ResolveOptions(*flags, invocation.globals)); }; });

  CLI::App* status = cmd->add_subcommand("status", "Show whether dlpd runs (exit 4 when not)");
  status->callback(
      [flags, &invocation] { invocation.action = [flags, &invocation] { return RunServerStatus(ResolveOptions(*flags, invocation.globals)); }; });
}

}  // namespace dlp::cli
