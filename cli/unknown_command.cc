#include "unknown_command.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

std::optional<std::string> UnknownFlagError(const CLI::App& app) {
  std::vector<const CLI::App*> chain = {&app};
  while (!chain.back()->get_subcommands().empty()) {
    chain.push_back(chain.back()->get_subcommands().front());
  }
  std::vector<std::string> names;  // valid at the chosen subcommand (fallthrough)
  for (const CLI::App* level : chain) {
    for (const CLI::Option* option : level->get_options()) {
      if (option->get_group().empty()) continue;  // hidden
      for (const std::string& s : option->get_snames()) names.push_back("-" + s);
      for (const std::string& l : option->get_lnames()) names.push_back("--" + l);
    }
  }
  std::vector<std::string> left;
  for (const CLI::App* level : chain) {
    for (const std::string& arg : level->remaining()) left.push_back(arg);
  }
  for (const std::string& arg : left) {
    if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) continue;
    const std::string flag = arg.substr(0, arg.find('='));
    if (flag == "--" || std::find(names.begin(), names.end(), flag) != names.end()) continue;
    std::vector<std::string> path;
    for (const CLI::App* level : chain) path.push_back(level->get_name());
    std::string message = absl::StrCat("unknown flag '", flag, "' for '", absl::StrJoin(path, " "), "'");
    // One letter is too little to guess from: only long flags get a suggestion.
    std::vector<std::string> long_names;
    std::copy_if(names.begin(), names.end(), std::back_inserter(long_names),
                 [](const std::string& name) { return name.rfind("--", 0) == 0; });
    std::optional<std::string> match;
    if (flag.rfind("--", 0) == 0) match = ClosestName(flag, long_names);
    if (match) absl::StrAppend(&message, "; did you mean '", *match, "'?");
    return message;
  }
  return std::nullopt;
}

}  // namespace dlp::cli
