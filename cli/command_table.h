// The dlp command table as data: every verb and subverb with its flags, its
// arguments and the backend capability it needs, read off the CLI11 app once
// the registrars of command.h have set it up. `dlp completion`, `--help`'s
// capability lines and the capability check before a command runs all read
// this table, so none of them can fall behind the parser.
#pragma once

#include <string>
#include <vector>

#include "capabilities.h"
#include "command.h"

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace dlp::cli {

// What a value completes to.
enum class ValueKind {
  kNone,       // a flag: takes no value
  kText,       // anything; nothing to offer
  kChoice,     // one of `choices`
  kFile,       // a file (placeholder FILE)
  kDirectory,  // a folder (DIR)
  kJob,        // a job id or name (JOB), from `dlp __complete jobs`
  kContext,    // a context name (CONTEXT), from `dlp __complete contexts`
};

// A validator that accepts one of `names` (any case, turned into the name's
// own case) and tells the command table the names, for the completions.
CLI::Validator Choices(std::vector<std::string> names);

struct FlagInfo {
  std::vector<std::string> names;  // "-o", "--output"; a positional: its placeholder
  std::string placeholder;         // "FORMAT", "JOB"
  std::string help;                // its first line
  ValueKind kind = ValueKind::kNone;
  std::vector<std::string> choices;  // for kChoice
  bool repeatable = false;           // given several times, or takes several values
  Capability needs = Capability::kNone;
};

struct CommandInfo {
  std::vector<std::string> path;  // {} is dlp itself; {"sweep", "submit"}
  std::string help;
  bool hidden = false;                  // no group (__complete): never offered
  std::vector<std::string> subcommands;  // the visible ones, in order
  std::vector<FlagInfo> flags;           // its own: a parent's are valid after it too
  std::vector<FlagInfo> arguments;       // positionals, in order
  Capability needs = Capability::kNone;  // this command's own or the nearest parent's

  std::string Name() const;  // "sweep submit"; "" for dlp itself
};

// Every command of `root`, parents before their children, with the needs
// that `entries` (Commands() of command.h) give their verbs and parts.
std::vector<CommandInfo> ReadCommandTable(CLI::App& root, const std::vector<CommandEntry>& entries);

// The capability `entries` give the command at `path`: its verb's, or that of
// the longest part naming it or a parent of it ("admin tenant").
Capability NeedsOf(const std::vector<CommandEntry>& entries, const std::vector<std::string>& path);
// The capability a part gives the flag `flag` ("--why") of the verb at `path`.
Capability FlagNeeds(const std::vector<CommandEntry>& entries, const std::vector<std::string>& path,
                     const std::string& flag);

// The parts of `entries` ("admin tenant", "status --why") that name no
// command or flag of `table`: a slip in the table, which `dlp completion`
// refuses so that the build catches it.
std::vector<std::string> UnmatchedParts(const std::vector<CommandInfo>& table,
                                        const std::vector<CommandEntry>& entries);

// The commands of `table` from `path` up to dlp itself: those whose flags are
// valid at `path` (CLI11's fallthrough).
std::vector<const CommandInfo*> Lineage(const std::vector<CommandInfo>& table,
                                        const std::vector<std::string>& path);

}  // namespace dlp::cli
