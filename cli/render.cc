// dlp render FILE [--backend NAME] [--field K=V]... [--set K=V]... [-o text|json]:
// prints what the backend would run (a command line, a batch script) or
// create (Kubernetes manifests).
#include <cstdio>
#include <map>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "command.h"
#include "common.h"

namespace dlp::cli {
namespace {

struct RenderFlags {
  std::string file;
  std::string backend;
  std::vector<std::string> fields;
  std::vector<std::string> overrides;
  RenderFormat format = RenderFormat::kText;
};

int RunRender(const RenderFlags& flags, const GlobalFlags& globals) {
  SpecOptions options;
  options.overrides = flags.overrides;
  // With --backend, the current context's fields under another backend.
  ClientOptions client_options = ClientOptionsFor(globals);
  client_options.backend = flags.backend;
  for (const std::string& field : flags.fields) {
    const size_t eq = field.find('=');
    if (eq == std::string::npos || eq == 0) {
      PrintError(absl::StrCat("--field wants KEY=VALUE, got '", field, "'"));
      return Code(ExitCode::kUsage);
    }
    client_options.fields[field.substr(0, eq)] = field.substr(eq + 1);
  }
  absl::StatusOr<JobSpec> spec = LoadSpecForCli(flags.file, options);
  if (!spec.ok()) return ReportError(spec.status());
  absl::StatusOr<std::string> text = RenderJob(client_options, *spec, flags.format);
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
                  "Render for this backend (local, remote, slurm, kubernetes) instead of the "
                  "context's")
      ->option_text("NAME");
  cmd->add_option("--field", flags->fields,
                  "A context field for this render, e.g. --field flavour=job, namespace, queue, "
                  "image (repeatable)")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--set", flags->overrides, "Override a spec value (repeatable)")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  static const std::map<std::string, RenderFormat> kFormats = {{"text", RenderFormat::kText},
                                                               {"json", RenderFormat::kJson}};
  cmd->add_option("-o,--output", flags->format,
                  "text (a command line, a batch script, YAML manifests) or json (kubernetes: "
                  "the manifests as a JSON list)")
      ->transform(CLI::CheckedTransformer(kFormats, CLI::ignore_case))
      ->option_text("FORMAT");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunRender(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
