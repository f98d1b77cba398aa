// The completion scripts `dlp completion bash|zsh|fish` prints, generated from
// the command table (command_table.h) so that they name every verb, subverb
// and flag the parser has, with the values the table knows (choices, files,
// folders, job ids and contexts from `dlp __complete jobs|contexts`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "command_table.h"

namespace dlp::cli {

std::string BashCompletion(const std::vector<CommandInfo>& table);
std::string ZshCompletion(const std::vector<CommandInfo>& table);
std::string FishCompletion(const std::vector<CommandInfo>& table);

// What the generators share.
namespace completion {

// The commands a user may type (no hidden one), parents first.
std::vector<const CommandInfo*> Offered(const std::vector<CommandInfo>& table);
// `text` in POSIX shell single quotes ('it'\''s'), which zsh reads alike.
std::string ShellQuoted(std::string_view text);
// Every flag valid at `command`: its own, then its parents' (CLI11's
// fallthrough), each once.
std::vector<const FlagInfo*> FlagsAt(const std::vector<CommandInfo>& table,
                                     const CommandInfo& command);

}  // namespace completion
}  // namespace dlp::cli
