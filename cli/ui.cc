// dlp ui [--print-url]: asks the context's dlpd for a one-time sign-in link to
// its web UI and opens it with xdg-open where a display is there (DISPLAY or
// WAYLAND_DISPLAY set, xdg-open on PATH); otherwise, as over ssh, prints it.
// The link holds a code good once within a minute, never the token itself.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "base/process/find_program.h"
#include "base/process/spawn.h"
#include "command.h"
#include "common.h"

namespace dlp::cli {
namespace {

struct UiFlags {
  bool print_url = false;
};

bool HasDisplay() {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

// Runs xdg-open URL with the terminal's output kept quiet; true when it
// exited 0 (it hands the URL to the browser and returns).
bool OpenInBrowser(const std::string& url) {
  base::SpawnOptions options;
  options.argv = {"xdg-open", url};
  options.stdout_stream = base::Stream::kNull;
  options.stderr_stream = base::Stream::kNull;
  absl::StatusOr<base::SpawnedProcess> child = base::Spawn(options);
  if (!child.ok()) return false;
  const int status = base::WaitForExit(child->pid);
  return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int RunUi(const UiFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<UiSignInLink> link = (*client)->UiSignIn();
  if (!link.ok()) return ReportError(link.status());
  const std::string valid = absl::FormatDuration(link->valid_for);
  if (!flags.print_url && HasDisplay() && base::FindProgram("xdg-open") &&
      OpenInBrowser(link->url)) {
    std::fprintf(stderr, "Opened the web UI in your browser (the link works once, within %s).\n",
                 valid.c_str());
    return Code(ExitCode::kSuccess);
  }
  std::printf("%s\n", link->url.c_str());
  if (!flags.print_url) {
    std::fprintf(stderr, "Open this link in a browser to sign in (it works once, within %s).\n",
                 valid.c_str());
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterUi(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<UiFlags>();
  CLI::App* cmd = parent.add_subcommand("ui", "Open the web UI of the context's dlpd, signed in");
  cmd->add_flag("--print-url", flags->print_url,
                "Only print the one-time sign-in link (good once, within a minute)");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunUi(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
