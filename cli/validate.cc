// dlp validate FILE [--set K=V]...: checks a spec (a job, a pipeline or a
// sweep) without submitting it.
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "command.h"
#include "common.h"
#include "dlp/pipeline.h"
#include "dlp/status.h"
#include "dlp/sweep.h"

namespace dlp::cli {
namespace {

std::string Plural(size_t n, const char* noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

struct ValidateFlags {
  std::string file;
  std::vector<std::string> overrides;
  bool quiet = false;
};

// "job NAME, 3 replicas", "pipeline NAME, 3 jobs", "sweep NAME, 2 parameters,
// asha search": what a valid file holds; InvalidArgument with file:line when it is not valid.
absl::StatusOr<std::string> Summary(const ValidateFlags& flags) {
  DLP_ASSIGN_OR_RETURN(std::string text, ReadSpecFile(flags.file));
  DLP_ASSIGN_OR_RETURN(std::string kind, SpecKind(text, flags.file));
  SpecOptions options;
  options.overrides = flags.overrides;
  if (kind == "Pipeline") {
    if (!flags.overrides.empty()) {
      return absl::InvalidArgumentError("--set applies to a job or a sweep, not to a pipeline");
    }
    DLP_ASSIGN_OR_RETURN(PipelineSpec spec, ParsePipelineSpec(text, flags.file));
    return absl::StrCat("pipeline ", spec.name, ", ", Plural(spec.jobs.size(), "job"));
  }
  if (kind == "Sweep") {
    DLP_ASSIGN_OR_RETURN(SweepSpec spec, ParseSweepSpec(text, flags.file, options));
    return absl::StrCat("sweep ", spec.name, ", ", Plural(spec.parameters.size(), "parameter"),
                        ", ", std::string(SearchAlgorithmName(spec.search.algorithm)), " search");
  }
  DLP_ASSIGN_OR_RETURN(JobSpec spec, ParseJobSpec(text, flags.file, options));
  int replicas = 0;
  for (const ReplicaSpec& r : spec.replicas) replicas += r.count;
  return absl::StrCat("job ", spec.name.empty() ? "-" : spec.name, ", ",
                      Plural(replicas, "replica"));
}

int RunValidate(const ValidateFlags& flags) {
  absl::StatusOr<std::string> summary = Summary(flags);
  if (!summary.ok()) return ReportError(summary.status());
  if (!flags.quiet) {
    std::printf("%s: valid (%s)\n", flags.file == "-" ? "<stdin>" : flags.file.c_str(),
                summary->c_str());
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterValidate(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "validate", "Check a job spec, pipeline or sweep without submitting it");
  cmd->add_option("FILE", flags->file,
                  "Job spec, pipeline or sweep (YAML, by its kind); - reads stdin")
      ->required();
  cmd->add_option("--set", flags->overrides, "Override a spec value (repeatable)")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  cmd->add_flag("-q,--quiet", flags->quiet, "Print nothing when the spec is valid");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags] { return RunValidate(*flags); };
  });
}

}  // namespace dlp::cli
