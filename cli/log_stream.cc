#include "log_stream.h"

#include <unistd.h>

#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common.h"
#include "interrupt.h"
#include "terminal_text.h"

namespace dlp::cli {
namespace {

// Colors cycle in the order replicas first appear.
constexpr std::string_view kPalette[] = {"36", "33", "35", "32", "34", "91", "96", "93"};

}  // namespace

absl::Status StreamLogs(Client& client, const std::string& id, const LogOptions& options,
                        const LogPrintFlags& flags, const GlobalFlags& globals) {
  if (options.follow) InstallInterruptHandler(InterruptMode::kExit);
  const bool color = UseColor(globals, STDOUT_FILENO);
  std::map<std::string, std::string_view> colors;
  const bool tty = IsTty(STDOUT_FILENO);
  const bool line_buffered = tty || options.follow;
  // To a terminal, what the job wrote must not drive it (terminal_text.h).
  auto shown = [tty](const std::string& text) { return tty ? TerminalSafe(text) : text; };
  return client.Logs(id, options, [&](const LogLine& line) {
    std::string out;
    if (flags.timestamps) {
      absl::StrAppend(&out, absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", line.time, absl::UTCTimeZone()),
                      " ");
    }
    if (flags.prefix) {
      auto [it, inserted] = colors.try_emplace(line.replica, kPalette[colors.size() % std::size(kPalette)]);
      const std::string stage = flags.stage.empty() ? "" : absl::StrCat(flags.stage, "/");
      const std::string label = absl::StrCat("[", stage, shown(line.replica), "]");
      absl::StrAppend(&out, Colorize(label, it->second, color), " ");
    }
    absl::StrAppend(&out, shown(line.text), "\n");
    std::fwrite(out.data(), 1, out.size(), stdout);
    // Followers (tests, `| grep`) must see each line as it happens.
    if (line_buffered) std::fflush(stdout);
    return !std::ferror(stdout);
  });
}

}  // namespace dlp::cli
