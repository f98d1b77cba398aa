// dlp render FILE [--backend NAME] [--field K=V]... [--set K=V]... [-o text|json]:
// prints what the backend would run (a command line, a batch script) or
// create (Kubernetes manifests): for a pipeline, each of its jobs; for a
// sweep, its first trial.
#include <cstdio>
#include <map>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "command.h"
#include "command_table.h"
#include "common.h"
#include "dlp/pipeline.h"
#include "dlp/status.h"
#include "dlp/sweep.h"

namespace dlp::cli {
namespace {

struct RenderFlags {
  std::string file;
  std::string backend;
  std::vector<std::string> fields;
  std::vector<std::string> overrides;
  RenderFormat format = RenderFormat::kText;
};

// A job's rendering; a pipeline's jobs one after the other, each under a
// "# job NAME" line; a sweep's first trial.
absl::StatusOr<std::string> Render(const RenderFlags& flags, const ClientOptions& client_options) {
  DLP_ASSIGN_OR_RETURN(std::string text, ReadSpecFile(flags.file));
  DLP_ASSIGN_OR_RETURN(std::string kind, SpecKind(text, flags.file));
  SpecOptions options;
  options.overrides = flags.overrides;
  if (kind == "Pipeline") {
    if (!flags.overrides.empty()) {
      return absl::InvalidArgumentError("--set applies to a job or a sweep, not to a pipeline");
    }
    if (flags.format == RenderFormat::kJson) {
      return absl::InvalidArgumentError("-o json renders one job; render a pipeline as text");
    }
    DLP_ASSIGN_OR_RETURN(PipelineSpec spec, ParsePipelineSpec(text, flags.file));
    DLP_ASSIGN_OR_RETURN(std::vector<RenderedJob> jobs,
                         RenderPipeline(client_options, spec, flags.format));
    std::string out;
    for (const RenderedJob& job : jobs) {
      absl::StrAppend(&out, out.empty() ? "" : "\n", "# job ", job.name, " of pipeline ", spec.name,
                      "\n", job.text);
      if (!out.empty() && out.back() != '\n') out += '\n';
    }
    return out;
  }
  if (kind == "Sweep") {
    DLP_ASSIGN_OR_RETURN(SweepSpec sweep, ParseSweepSpec(text, flags.file, options));
    const TrialParams params = TrialValues(sweep, 1);
    DLP_ASSIGN_OR_RETURN(JobSpec trial, TrialJobSpec(sweep, "ID", 1, params));
    DLP_ASSIGN_OR_RETURN(std::string rendered, RenderJob(client_options, trial, flags.format));
    if (flags.format == RenderFormat::kJson) return rendered;
    std::vector<std::string> values;
    for (const auto& [name, value] : params) values.push_back(absl::StrCat(name, "=", value));
    return absl::StrCat("# trial 1 of sweep ", sweep.name, ": ", absl::StrJoin(values, " "), "\n",
                        rendered);
  }
  DLP_ASSIGN_OR_RETURN(JobSpec spec, ParseJobSpec(text, flags.file, options));
  return RenderJob(client_options, spec, flags.format);
}

int RunRender(const RenderFlags& flags, const GlobalFlags& globals) {
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
  absl::StatusOr<std::string> text = Render(flags, client_options);
  if (!text.ok()) return ReportError(text.status());
  std::fputs(text->c_str(), stdout);
  if (text->empty() || text->back() != '\n') std::fputs("\n", stdout);
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterRender(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<RenderFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "render",
      "Print what the backend would run for a spec (a pipeline's jobs, a sweep's first trial)");
  cmd->add_option("FILE", flags->file,
                  "Job spec, pipeline or sweep (YAML, by its kind); - reads stdin")
      ->required();
  cmd->add_option("--backend", flags->backend,
                  "Render for this backend (local, remote, slurm, kubernetes) instead of the "
                  "context's")
      ->transform(Choices(BackendNames()))
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
      ->transform(Choices({"text", "json"}))
      ->option_text("FORMAT");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunRender(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
