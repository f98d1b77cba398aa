// dlp validate FILE [--set K=V]...: checks a spec without submitting it.
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "command.h"
#include "common.h"

namespace dlp::cli {
namespace {

struct ValidateFlags {
  std::string file;
  std::vector<std::string> overrides;
  bool quiet = false;
};

int RunValidate(const ValidateFlags& flags) {
  SpecOptions options;
  options.overrides = flags.overrides;
  absl::StatusOr<JobSpec> spec = LoadSpecForCli(flags.file, options);
  if (!spec.ok()) return ReportError(spec.status());
  if (!flags.quiet) {
    int replicas = 0;
    for (const ReplicaSpec& r : spec->replicas) replicas += r.count;
    std::printf("%s: valid (job %s, %d replica%s)\n", flags.file == "-" ? "<stdin>" : flags.file.c_str(),
                spec->name.empty() ? "-" : spec->name.c_str(), replicas, replicas == 1 ? "" : "s");
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterValidate(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = parent.add_subcommand("validate", "Check a job spec without submitting it");
  cmd->add_option("FILE", flags->file, "Job spec (YAML); - reads stdin")->required();
  cmd->add_option("--set", flags->overrides, "Override a spec value (repeatable)")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  cmd->add_flag("-q,--quiet", flags->quiet, "Print nothing when the spec is valid");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags] { return RunValidate(*flags); };
  });
}

}  // namespace dlp::cli
