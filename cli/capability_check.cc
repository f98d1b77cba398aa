#include "capability_check.h"

#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "command_table.h"

namespace dlp::cli {
namespace {

void AddNotes(CLI::App& app, const std::vector<std::string>& path,
              const std::vector<CommandEntry>& entries) {
  std::string notes;
  if (Capability needs = NeedsOf(entries, path); needs != Capability::kNone) {
    notes = NeedsNote(needs);
  }
  for (const CLI::Option* option : app.get_options()) {
    const std::string name = option->get_name();  // "--why"
    if (Capability needs = FlagNeeds(entries, path, name); needs != Capability::kNone) {
      absl::StrAppend(&notes, notes.empty() ? "" : "\n", name, ": ", NeedsNote(needs));
    }
  }
  if (!notes.empty()) app.footer(absl::StrCat(notes, "\n\n", app.get_footer()));
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    std::vector<std::string> sub_path = path;
    sub_path.push_back(sub->get_name());
    AddNotes(*sub, sub_path, entries);
  }
}

}  // namespace

void AddNeedsNotes(CLI::App& root, const std::vector<CommandEntry>& entries) {
  for (CLI::App* sub : root.get_subcommands([](CLI::App*) { return true; })) {
    AddNotes(*sub, {sub->get_name()}, entries);
  }
}

absl::Status CheckNeeds(const CLI::App& root, const std::vector<CommandEntry>& entries,
                        const ClientOptions& options) {
  std::vector<std::string> path;
  const CLI::App* leaf = &root;
  while (!leaf->get_subcommands().empty()) {
    leaf = leaf->get_subcommands().front();
    path.push_back(leaf->get_name());
  }
  std::string command = absl::StrJoin(path, " ");
  Capability needs = NeedsOf(entries, path);
  if (needs == Capability::kNone) {
    for (const CLI::Option* option : leaf->get_options()) {
      const std::string name = option->get_name();
      const Capability flag_needs = FlagNeeds(entries, path, name);
      if (flag_needs != Capability::kNone && option->count() > 0) {
        needs = flag_needs;
        absl::StrAppend(&command, " ", name);
        break;
      }
    }
  }
  return CheckOffered(options, needs, command);
}

}  // namespace dlp::cli
