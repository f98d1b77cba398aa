#include "shell_completion.h"

#include <algorithm>

namespace dlp::cli::completion {

std::vector<const CommandInfo*> Offered(const std::vector<CommandInfo>& table) {
  std::vector<const CommandInfo*> out;
  for (const CommandInfo& command : table) {
    if (!command.hidden) out.push_back(&command);
  }
  return out;
}

std::string ShellQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::vector<const FlagInfo*> FlagsAt(const std::vector<CommandInfo>& table,
                                     const CommandInfo& command) {
  std::vector<const FlagInfo*> out;
  std::vector<std::string> seen;
  for (const CommandInfo* level : Lineage(table, command.path)) {
    for (const FlagInfo& flag : level->flags) {
      if (std::find(seen.begin(), seen.end(), flag.names.front()) != seen.end()) continue;
      seen.push_back(flag.names.front());
      out.push_back(&flag);
    }
  }
  return out;
}

}  // namespace dlp::cli::completion
