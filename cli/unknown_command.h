// `dlp sumbit`: a word where a subcommand belongs that names none is reported
// as such, with the closest subcommand when one is close, rather than as
// CLI11's "A subcommand is required"; `dlp list --stat` likewise names the
// flag it did not know and the closest one valid there.
#pragma once

#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace dlp::cli {

// After `app` failed to parse: "unknown command 'sumbit'; did you mean
// 'submit'?" for the first word it left over, or nothing when the parse chose
// a subcommand (its own error says more) or left no word.
std::optional<std::string> UnknownCommandError(const CLI::App& app);

// After `app` failed to parse: "unknown flag '--stat' for 'dlp list'; did you
// mean '--state'?" for the first word it left over that looks like a flag and
// is none of those valid at the chosen subcommand (its own and its parents'),
// or nothing when it left no such word.
std::optional<std::string> UnknownFlagError(const CLI::App& app);

}  // namespace dlp::cli
