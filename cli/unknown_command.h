// `dlp sumbit`: a word where a subcommand belongs that names none is reported
// as such, with the closest subcommand when one is close, rather than as
// CLI11's "A subcommand is required".
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

}  // namespace dlp::cli
