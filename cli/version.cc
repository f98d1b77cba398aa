// dlp version: the client's version and, when one runs, the local dlpd's.
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "command.h"
#include "common.h"
#include "dlp/local_server.h"
#include "dlp/version.h"

namespace dlp::cli {
namespace {

int RunVersion(bool client_only) {
  std::printf("dlp %s\n", Version());
  if (client_only) return Code(ExitCode::kSuccess);
  // Never starts a daemon: only reports one that is already running.
  absl::StatusOr<LocalServerInfo> server = LocalServerStatus();
  if (server.ok() && server->running) {
    std::printf("dlpd %s (pid %d, %s)\n", server->version.c_str(), server->pid,
                server->address.c_str());
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterVersion(CLI::App& parent, Invocation& invocation) {
  auto client_only = std::make_shared<bool>(false);
  CLI::App* cmd = parent.add_subcommand("version", "Print the versions of dlp and the local dlpd");
  cmd->add_flag("--client", *client_only, "Only the client's version");
  cmd->callback([client_only, &invocation] {
    invocation.action = [client_only] { return RunVersion(*client_only); };
  });
}

}  // namespace dlp::cli
