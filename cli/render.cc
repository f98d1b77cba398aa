// dlp render FILE [--backend NAME] [--set K=V]...: prints what the backend would run.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "command.h"
#include "common.h"
#include "dlp/backend.h"
#include "dlp/config.h"
#include "dlp/status.h"

namespace dlp::cli {
namespace {

struct RenderFlags {
  std::string file;
  std::string backend;
  std::vector<std::string> overrides;
};

// The current context, or (with --backend) the same fields under another backend.
absl::StatusOr<Context> RenderContext(const RenderFlags& flags, const GlobalFlags& globals) {
  DLP_ASSIGN_OR_RETURN(Config config, LoadConfig(DefaultConfigPath(globals.config_path)));
  DLP_ASSIGN_OR_RETURN(Context context, ResolveContext(config, globals.context));
  if (flags.backend.empty() || flags.backend == context.backend) return context;
  const std::vector<std::string> names = BackendNames();
  if (std::find(names.begin(), names.end(), flags.backend) == names.end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown backend '", flags.backend,
                                                   "': expected one of ", absl::StrJoin(names, ", ")));
  }
  context.backend = flags.backend;
  return context;
}

int RunRender(const RenderFlags& flags, const GlobalFlags& globals) {
  SpecOptions options;
  options.overrides = flags.overrides;
  absl::StatusOr<JobSpec> spec = LoadSpecForCli(flags.file, options);
  if (!spec.ok()) return ReportError(spec.status());
  absl::StatusOr<Context> context = RenderContext(flags, globals);
  if (!context.ok()) return ReportError(context.status());
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend(*context);
  if (!backend.ok()) return ReportError(backend.status());
  absl::StatusOr<std::string> text = (*backend)->Render(*spec);
  if (!text.ok()) return ReportError(text.status());
  std::fputs(text->c_str(), stdout);
  if (text->empty() || text->back() != '\n') std::fputs("\n", stdout);
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterRender(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<RenderFlags>();
  CLI::App* cmd = parent.add_subcommand("render", "Print what the backend would run for a spec");
  cmd->add_option("FILE", flags->file, "Job spec (YAML); - reads stdin")->required();
  cmd->add_option("--backend", flags->backend,
                  "Render for this backend (local, remote, slurm, ...) instead of the context's")
      ->option_text("NAME");
  cmd->add_option("--set", flags->overrides, "Override a spec value (repeatable)")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunRender(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
