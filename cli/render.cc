// dlp render FILE [--backend NAME] [--set K=V]...: prints what the backend would run.
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "command.h"
#include "common.h"

namespace dlp::cli {
namespace {

struct RenderFlags {
  std::string file;
  std::string backend;
  std::vector<std::string> overrides;
};

int RunRender(const RenderFlags& flags, const GlobalFlags& globals) {
  SpecOptions options;
  options.overrides = flags.overrides;
  absl::StatusOr<JobSpec> spec = LoadSpecForCli(flags.file, options);
  if (!spec.ok()) return ReportError(spec.status());
  // With --backend, the current context's fields under another backend.
  ClientOptions client_options = ClientOptionsFor(globals);
  client_options.backend = flags.backend;
  absl::StatusOr<std::unique_ptr<Client>> client = Client::Create(client_options);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::string> text = (*client)->Render(*spec);
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
