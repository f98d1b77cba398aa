// dlp: submit and watch deep-learning jobs. A thin layer over libdlp: each
// subcommand (one file each, see command.h) parses flags, calls the library
// and renders the result; exit codes come from dlp/exit_code.h.
#include <signal.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "capability_check.h"
#include "command.h"
#include "common.h"
#include "dlp/exit_code.h"
#include "unknown_command.h"

namespace dlp::cli {
namespace {

int Main(int argc, char** argv) {
  CLI::App app("dlp runs deep-learning jobs on the local dlpd, a remote dlpd or Slurm.", "dlp");
  app.fallthrough();  // global flags are accepted after the subcommand too
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");
  app.footer(
      "Exit codes: 0 ok, 1 job failed, 2 usage or invalid spec, 3 job not found,\n"
      "4 backend unreachable, internal error or lacking what the command needs,\n"
      "5 job cancelled, 6 not permitted, 130 interrupted.\n"
      "See dlp(1) and dlp-job(5).");

  Invocation invocation;
  app.add_option("--context", invocation.globals.context,
                 "Context to use (default: $DLP_CONTEXT, then the config's current-context)")
      ->option_text("CONTEXT");
  app.add_option("--config", invocation.globals.config_path,
                 "Config file (default: $DLP_CONFIG, then ~/.config/dlp/config.yaml)")
      ->option_text("FILE");
  app.add_flag("--no-color", invocation.globals.no_color, "Never color the output");

  for (const CommandEntry& entry : Commands()) entry.registrar(app, invocation);
  AddNeedsNotes(app, Commands());

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::optional<std::string> unknown = UnknownCommandError(app);
    if (!unknown) unknown = UnknownFlagError(app);
    PrintError(unknown ? *unknown : e.what());
    std::fprintf(stderr, "Run 'dlp --help' for usage.\n");
    return Code(ExitCode::kUsage);
  }
  if (!invocation.action) {
    PrintError("no command given");
    return Code(ExitCode::kUsage);
  }
  // A backend without what the command needs is named before anything is done.
  if (absl::Status offered = CheckNeeds(app, Commands(), ClientOptionsFor(invocation.globals)); !offered.ok()) {
    return ReportError(offered);
  }
  return invocation.action();
}

}  // namespace
}  // namespace dlp::cli

int main(int argc, char** argv) {
  // A closed pipe (`dlp logs | head`) ends output quietly via write errors.
  signal(SIGPIPE, SIG_IGN);
  try {
    return dlp::cli::Main(argc, argv);
  } catch (const std::exception& e) {
    dlp::cli::PrintError(e.what());
    return dlp::cli::Code(dlp::ExitCode::kBackend);
  }
}
