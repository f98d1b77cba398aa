// Helpers every subcommand shares: error reporting, exit codes, the client,
// terminal detection and colors.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "command.h"
#include "dlp/client.h"
#include "dlp/exit_code.h"
#include "dlp/spec.h"

namespace dlp::cli {

// Prints "dlp: error: <message>" on stderr.
void PrintError(std::string_view message);
void PrintWarning(std::string_view message);  // "dlp: warning: ..." on stderr
// Prints the status as an error and returns the exit code derived from it.
int ReportError(const absl::Status& status);
inline int Code(ExitCode code) { return static_cast<int>(code); }

// The options --context/--config (or their environment variables) give.
ClientOptions ClientOptionsFor(const GlobalFlags& globals);
// The client for --context/--config.
absl::StatusOr<std::unique_ptr<Client>> MakeClient(const GlobalFlags& globals);

// Runs `act` on each job of `ids` with the client for `globals`, reporting
// each failure; the exit code is the first failure's (0 when none failed).
int ForEachJob(const GlobalFlags& globals, const std::vector<std::string>& ids,
               const std::function<absl::Status(Client&, const std::string& id)>& act);

bool IsTty(int fd);
// Colors only on a terminal, and never with --no-color, $NO_COLOR or TERM=dumb.
bool UseColor(const GlobalFlags& globals, int fd);

// ANSI SGR codes for Colorize.
inline constexpr std::string_view kBold = "1";
inline constexpr std::string_view kDim = "2";
inline constexpr std::string_view kRed = "31";
inline constexpr std::string_view kGreen = "32";
inline constexpr std::string_view kYellow = "33";
inline constexpr std::string_view kBlue = "34";
inline constexpr std::string_view kCyan = "36";
std::string Colorize(std::string_view text, std::string_view sgr, bool enabled);

}  // namespace dlp::cli
