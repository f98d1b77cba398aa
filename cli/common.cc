#include "common.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "terminal_text.h"

namespace dlp::cli {

void PrintError(std::string_view message) {
  // A message may quote what a job wrote (a reason, a name): never raw.
  const std::string safe = TerminalSafe(message);
  std::fprintf(stderr, "dlp: error: %s\n", safe.c_str());
}

void PrintWarning(std::string_view message) {
  const std::string safe = TerminalSafe(message);
  std::fprintf(stderr, "dlp: warning: %s\n", safe.c_str());
}

int ReportError(const absl::Status& status) {
  PrintError(status.message().empty() ? status.ToString() : std::string(status.message()));
  return Code(ExitCodeForStatus(status));
}

int ForEachJob(const GlobalFlags& globals, const std::vector<std::string>& ids,
               const std::function<absl::Status(Client&, const std::string& id)>& act) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  int result = Code(ExitCode::kSuccess);
  for (const std::string& id : ids) {
    const absl::Status done = act(**client, id);
    if (!done.ok()) {
      const int code = ReportError(done);
      if (result == 0) result = code;
    }
  }
  return result;
}

ClientOptions ClientOptionsFor(const GlobalFlags& globals) {
  ClientOptions options;
  options.context = globals.context;
  options.config_path = globals.config_path;
  return options;
}

absl::StatusOr<std::unique_ptr<Client>> MakeClient(const GlobalFlags& globals) {
  return Client::Create(ClientOptionsFor(globals));
}

bool IsTty(int fd) { return isatty(fd) == 1; }

bool UseColor(const GlobalFlags& globals, int fd) {
  if (globals.no_color || !IsTty(fd)) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  return term == nullptr || std::string_view(term) != "dumb";
}

std::string Colorize(std::string_view text, std::string_view sgr, bool enabled) {
  if (!enabled) return std::string(text);
  std::string out = "\033[";
  out.append(sgr).append("m").append(text).append("\033[0m");
  return out;
}

}  // namespace dlp::cli
