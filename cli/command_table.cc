#include "command_table.h"

#include <algorithm>
#include <map>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "command.h"

namespace dlp::cli {
namespace {

constexpr char kChoicesName[] = "choices";

// The names Choices() gave an option, read back from the validator's
// description ("{table,json}", CLI11's own rendering of the set).
std::vector<std::string> ChoicesOf(CLI::Option& option) {
  std::string description;
  try {
    description = option.get_validator(kChoicesName)->get_description();
  } catch (const CLI::OptionNotFound&) {
    return {};
  }
  absl::string_view set = description;
  if (!absl::ConsumePrefix(&set, "{") || !absl::ConsumeSuffix(&set, "}")) return {};
  return absl::StrSplit(set, ',', absl::SkipEmpty());
}

// The placeholder's kind: the names are the CLI's convention for them.
ValueKind KindOf(const std::string& placeholder) {
  static const std::map<std::string, ValueKind> kByPlaceholder = {
      {"FILE", ValueKind::kFile},  {"DIR", ValueKind::kDirectory},
      {"JOB", ValueKind::kJob},    {"CONTEXT", ValueKind::kContext},
  };
  auto it = kByPlaceholder.find(placeholder);
  return it == kByPlaceholder.end() ? ValueKind::kText : it->second;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

FlagInfo FlagOf(CLI::Option& option) {
  FlagInfo flag;
  flag.help = FirstLine(option.get_description());
  if (option.get_positional()) {
    flag.placeholder = option.get_name(/*positional=*/true);
    flag.names = {flag.placeholder};
  } else {
    for (const std::string& s : option.get_snames()) flag.names.push_back("-" + s);
    for (const std::string& l : option.get_lnames()) flag.names.push_back("--" + l);
    flag.placeholder = option.get_option_text();
  }
  // A flag takes no value; an option at least one.
  if (option.get_type_size_max() == 0 || option.get_items_expected_max() == 0) {
    flag.kind = ValueKind::kNone;
  } else {
    flag.choices = ChoicesOf(option);
    flag.kind = flag.choices.empty() ? KindOf(flag.placeholder) : ValueKind::kChoice;
  }
  flag.repeatable = option.get_items_expected_max() > 1 ||
                    option.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  return flag;
}

// Adds `app` (at `path`) and everything below it to `table`.
void Read(CLI::App& app, std::vector<std::string> path, bool hidden,
          std::vector<CommandInfo>& table) {
  CommandInfo command;
  command.path = path;
  command.help = FirstLine(app.get_description());
  command.hidden = hidden || (!path.empty() && app.get_group().empty());
  for (CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    (option->get_positional() ? command.arguments : command.flags).push_back(FlagOf(*option));
  }
  const size_t index = table.size();
  table.push_back(command);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) table[index].subcommands.push_back(sub->get_name());
    std::vector<std::string> sub_path = path;
    sub_path.push_back(sub->get_name());
    Read(*sub, sub_path, table[index].hidden, table);
  }
}

}  // namespace

CLI::Validator Choices(std::vector<std::string> names) {
  CLI::Validator validator = CLI::IsMember(std::move(names), CLI::ignore_case);
  validator.name(kChoicesName);
  return validator;
}

Capability NeedsOf(const std::vector<CommandEntry>& entries, const std::vector<std::string>& path) {
  if (path.empty()) return Capability::kNone;
  Capability needs = Capability::kNone;
  size_t matched = 0;  // the longest part that names `path` or a parent of it wins
  for (const CommandEntry& entry : entries) {
    if (path.front() != entry.name) continue;
    needs = entry.needs;
    for (const auto& [part, part_needs] : entry.parts) {
      if (absl::StartsWith(part, "-")) continue;
      std::vector<std::string> prefix = {entry.name};
      for (absl::string_view word : absl::StrSplit(part, ' ')) prefix.emplace_back(word);
      if (prefix.size() > matched && prefix.size() <= path.size() &&
          std::equal(prefix.begin(), prefix.end(), path.begin())) {
        needs = part_needs;
        matched = prefix.size();
      }
    }
  }
  return needs;
}

Capability FlagNeeds(const std::vector<CommandEntry>& entries, const std::vector<std::string>& path,
                     const std::string& flag) {
  if (path.size() != 1) return Capability::kNone;
  for (const CommandEntry& entry : entries) {
    if (path.front() != entry.name) continue;
    for (const auto& [part, needs] : entry.parts) {
      if (part == flag) return needs;
    }
  }
  return Capability::kNone;
}

std::string CommandInfo::Name() const { return absl::StrJoin(path, " "); }

std::vector<CommandInfo> ReadCommandTable(CLI::App& root, const std::vector<CommandEntry>& entries) {
  std::vector<CommandInfo> table;
  Read(root, {}, false, table);
  for (CommandInfo& command : table) {
    command.needs = NeedsOf(entries, command.path);
    for (FlagInfo& flag : command.flags) {
      for (const std::string& name : flag.names) {
        if (Capability needs = FlagNeeds(entries, command.path, name); needs != Capability::kNone) {
          flag.needs = needs;
        }
      }
    }
  }
  return table;
}

std::vector<std::string> UnmatchedParts(const std::vector<CommandInfo>& table,
                                        const std::vector<CommandEntry>& entries) {
  std::vector<std::string> out;
  for (const CommandEntry& entry : entries) {
    for (const auto& entry_part : entry.parts) {
      const std::string& part = entry_part.first;
      const std::string name = absl::StrCat(entry.name, " ", part);
      const bool found = std::any_of(table.begin(), table.end(), [&](const CommandInfo& c) {
        if (c.Name() == name) return true;
        return c.path == std::vector<std::string>{entry.name} &&
               std::any_of(c.flags.begin(), c.flags.end(), [&](const FlagInfo& f) {
                 return std::find(f.names.begin(), f.names.end(), part) != f.names.end();
               });
      });
      if (!found) out.push_back(name);
    }
  }
  return out;
}

std::vector<const CommandInfo*> Lineage(const std::vector<CommandInfo>& table,
                                        const std::vector<std::string>& path) {
  std::vector<const CommandInfo*> out;
  for (size_t n = path.size() + 1; n-- > 0;) {
    const std::vector<std::string> prefix(path.begin(), path.begin() + n);
    for (const CommandInfo& command : table) {
      if (command.path == prefix) out.push_back(&command);
    }
  }
  return out;
}

}  // namespace dlp::cli
