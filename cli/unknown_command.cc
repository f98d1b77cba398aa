#include "unknown_command.h"

#include <algorithm>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "dlp/suggest.h"

namespace dlp::cli {

std::optional<std::string> UnknownCommandError(const CLI::App& app) {
  if (!app.get_subcommands().empty()) return std::nullopt;
  // Flags are skipped: an unknown one alone keeps CLI11's own error.
  const std::vector<std::string> left = app.remaining();
  auto word = std::find_if(left.begin(), left.end(),
                           [](const std::string& arg) { return !arg.empty() && arg[0] != '-'; });
  if (word == left.end()) return std::nullopt;
  // Hidden subcommands (no group, such as __complete) are never suggested.
  std::vector<std::string> names;
  for (const CLI::App* sub :
       app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    names.push_back(sub->get_name());
  }
  std::string message = absl::StrCat("unknown command '", *word, "'");
  if (std::optional<std::string> match = ClosestName(*word, names)) {
    absl::StrAppend(&message, "; did you mean '", *match, "'?");
  }
  return message;
}

}  // namespace dlp::cli
