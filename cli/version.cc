// dlp version, and dlp --version: the client's version and, for the subcommand
// when one runs, the local dlpd's.
#include <cstdio>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "command.h"
#include "common.h"
#include "dlp/local_server.h"
#include "dlp/version.h"

namespace dlp::cli {
namespace {

// "dlp X.Y.Z", then (unless `client_only`) a line for a running local dlpd.
std::string VersionText(bool client_only) {
  std::string text = absl::StrCat("dlp ", Version());
  if (client_only) return text;
  // Never starts a daemon: only reports one that is already running.
  absl::StatusOr<LocalServerInfo> server = LocalServerStatus();
  if (server.ok() && server->running) {
    absl::StrAppend(&text, "\ndlpd ", server->version, " (pid ", server->pid, ", ",
                    server->address, ")");
  }
  return text;
}

}  // namespace

void RegisterVersion(CLI::App& parent, Invocation& invocation) {
  // The flag, like `version --client`, never looks for a daemon: CLI11 prints
  // the text and main() exits 0.
  parent.set_version_flag("--version", [] { return VersionText(true); },
                          "Print dlp's version and exit (as 'dlp version --client')");
  auto client_only = std::make_shared<bool>(false);
  CLI::App* cmd = parent.add_subcommand("version", "Print the versions of dlp and the local dlpd");
  cmd->add_flag("--client", *client_only, "Only the client's version");
  cmd->callback([client_only, &invocation] {
    invocation.action = [client_only] {
      std::printf("%s\n", VersionText(*client_only).c_str());
      return Code(ExitCode::kSuccess);
    };
  });
}

}  // namespace dlp::cli
