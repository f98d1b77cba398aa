// dlp ui [--print-url]: asks the context's dlpd for a one-time sign-in link to
// its web UI and opens it with xdg-open where a display is there (DISPLAY or
// WAYLAND_DISPLAY set, xdg-open on PATH); otherwise, as over ssh, prints it.
// The link holds a code good once within a minute, never the token itself.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "command.h"
#include "common.h"

extern char** environ;

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

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    if (access((std::string(dir) + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Runs xdg-open URL with the terminal's output kept quiet; true when it
// exited 0 (it hands the URL to the browser and returns).
bool OpenInBrowser(const std::string& url) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string program = "xdg-open";
  char* argv[] = {program.data(), const_cast<char*>(url.c_str()), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "xdg-open", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return false;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int RunUi(const UiFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<UiSignInLink> link = (*client)->UiSignIn();
  if (!link.ok()) return ReportError(link.status());
  const std::string valid = absl::FormatDuration(link->valid_for);
  if (!flags.print_url && HasDisplay() && OnPath("xdg-open") && OpenInBrowser(link->url)) {
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
