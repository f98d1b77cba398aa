// The command table's needs at work: a line in --help for each command that
// needs a backend capability, and the check before a command runs.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "command.h"

namespace CLI {
class App;
}

namespace dlp::cli {

// Puts NeedsNote (capabilities.h) before the footer of every command under
// `root` that needs a capability, or has a flag that does.
void AddNeedsNotes(CLI::App& root, const std::vector<CommandEntry>& entries);

// After `root` parsed: CheckOffered (with the client `options`) for the capability the chosen command
// needs (or one of its flags given), so that a backend without it is named
// before anything is done.
absl::Status CheckNeeds(const CLI::App& root, const std::vector<CommandEntry>& entries,
                        const ClientOptions& options);

}  // namespace dlp::cli
