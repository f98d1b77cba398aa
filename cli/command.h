// The dlp command table (ninja's tool table): each subcommand lives in its own
// file and registers its flags and its action on a CLI11 app; the table says
// what backend capability each needs. command_table.h reads the whole of it,
// flags included, off the app.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "capabilities.h"

namespace CLI {
class App;
}

namespace dlp::cli {

// Flags that every subcommand may use (set on the root command).
struct GlobalFlags {
  std::string context;      // --context; empty: $DLP_CONTEXT, then the config
  std::string config_path;  // --config; empty: $DLP_CONFIG, then the default path
  bool no_color = false;    // --no-color
};

// What the parse selected: the registered action of the chosen subcommand.
// Actions return the process exit code (see exit_code.h for their meaning).
struct Invocation {
  GlobalFlags globals;
  std::function<int()> action;
};

// Adds one subcommand under `parent`; its callback stores an action in `invocation`.
using Registrar = void (*)(CLI::App& parent, Invocation& invocation);

struct CommandEntry {
  const char* name;
  Registrar registrar;
  // What the backend must offer for the verb and everything under it (kNone:
  // every backend runs it), and for parts of it that need something else:
  // a subcommand path below the verb ("tenant", "alias set") or a flag of the
  // verb ("--why").
  Capability needs = Capability::kNone;
  std::vector<std::pair<std::string, Capability>> parts = {};
};

// Every top-level subcommand, in the order `dlp --help` lists them.
const std::vector<CommandEntry>& Commands();

void RegisterSubmit(CLI::App& parent, Invocation& invocation);
void RegisterStatus(CLI::App& parent, Invocation& invocation);
void RegisterList(CLI::App& parent, Invocation& invocation);
void RegisterLogs(CLI::App& parent, Invocation& invocation);
void RegisterDescribe(CLI::App& parent, Invocation& invocation);
void RegisterCancel(CLI::App& parent, Invocation& invocation);
void RegisterDelete(CLI::App& parent, Invocation& invocation);
void RegisterCompletion(CLI::App& parent, Invocation& invocation);
void RegisterWait(CLI::App& parent, Invocation& invocation);
void RegisterValidate(CLI::App& parent, Invocation& invocation);
void RegisterRender(CLI::App& parent, Invocation& invocation);
void RegisterServer(CLI::App& parent, Invocation& invocation);
void RegisterConfig(CLI::App& parent, Invocation& invocation);
void RegisterVersion(CLI::App& parent, Invocation& invocation);
void RegisterProfile(CLI::App& parent, Invocation& invocation);
void RegisterMetrics(CLI::App& parent, Invocation& invocation);
void RegisterArtifacts(CLI::App& parent, Invocation& invocation);
void RegisterModel(CLI::App& parent, Invocation& invocation);
void RegisterTop(CLI::App& parent, Invocation& invocation);
void RegisterUi(CLI::App& parent, Invocation& invocation);
void RegisterQueue(CLI::App& parent, Invocation& invocation);
void RegisterPipeline(CLI::App& parent, Invocation& invocation);
void RegisterAdmin(CLI::App& parent, Invocation& invocation);
void RegisterSweep(CLI::App& parent, Invocation& invocation);
void RegisterComplete(CLI::App& parent, Invocation& invocation);

}  // namespace dlp::cli
