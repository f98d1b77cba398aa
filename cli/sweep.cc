// dlp sweep submit|status|list|cancel|resume|delete: hyperparameter sweeps
// (dlp/sweep.h, docs/experiments.md).
#include "sweep.h"

#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "command_table.h"
#include "common.h"
#include "delete.h"
#include "dlp/status.h"
#include "interrupt.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct SweepFlags {
  std::string file;
  std::vector<std::string> overrides;
  std::string name;
  SweepSubmitFlags submit;
  std::string id;
  std::string output = "table";
  bool plot = false;
  std::string png;
};

int Counted(const Sweep& sweep, TrialState state) {
  int n = 0;
  for (const SweepTrial& t : sweep.trials) n += t.state == state ? 1 : 0;
  return n;
}

int RunSubmit(const SweepFlags& flags, const GlobalFlags& globals) {
  SpecOptions options;
  options.overrides = flags.overrides;
  options.name = flags.name;
  absl::StatusOr<SweepSpec> spec = LoadSweepSpec(flags.file, options);
  if (!spec.ok()) return ReportError(absl::InvalidArgumentError(spec.status().message()));
  return SubmitSweep(*spec, flags.submit, globals);
}

int RunList(const SweepFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Sweep>> sweeps = ListSweeps(**client);
  if (!sweeps.ok()) return ReportError(sweeps.status());
  if (flags.output == "json") {
    std::printf("[");
    for (size_t i = 0; i < sweeps->size(); ++i) {
      std::printf("%s%s", i ? "," : "", SweepStatusJson((*sweeps)[i], -1).c_str());
    }
    std::printf("]\n");
    return Code(ExitCode::kSuccess);
  }
  Table table({"ID", "NAME", "STATE", "SEARCH", "TRIALS", "RUNNING", "BEST"});
  for (const Sweep& s : *sweeps) {
    const std::optional<size_t> best = BestTrial(s);
    table.AddRow(
        {s.id, s.spec.name, std::string(SweepStateName(s.state)),
         std::string(SearchAlgorithmName(s.spec.search.algorithm)),
         absl::StrCat(s.trials.size()), absl::StrCat(Counted(s, TrialState::kRunning)),
         best ? absl::StrFormat("%.4g (%s)", *s.trials[*best].objective, s.trials[*best].job)
              : "-"});
  }
  if (table.empty()) {
    std::printf("No sweeps.\n");
  } else {
    table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  }
  return Code(ExitCode::kSuccess);
}

int RunCancel(const SweepFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Sweep> sweep = CancelSweep(**client, flags.id);
  if (!sweep.ok()) return ReportError(sweep.status());
  std::printf("sweep %s %s\n", sweep->id.c_str(),
              sweep->state == SweepState::kCancelled ? "cancelled"
                                                         : SweepStateName(sweep->state).data());
  return Code(ExitCode::kSuccess);
}

int RunStatus(const SweepFlags& flags, const GlobalFlags& globals) {
  return ShowSweepStatus(flags.id, flags.output, flags.plot, flags.png, globals);
}

int RunResume(const SweepFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  return FollowSweep(**client, flags.id, flags.submit.quiet, globals);
}

}  // namespace

int SubmitSweep(const SweepSpec& spec, const SweepSubmitFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Sweep> sweep = dlp::SubmitSweep(**client, spec, flags.foreground);
  if (!sweep.ok()) return ReportError(sweep.status());
  const bool foreground = sweep->id.rfind("local-", 0) == 0;
  if (flags.quiet) {
    std::printf("%s\n", sweep->id.c_str());
  } else {
    std::printf("sweep %s submitted (%s)\n", sweep->id.c_str(), spec.name.c_str());
  }
  std::fflush(stdout);
  if (foreground && !flags.follow) {
    PrintWarning(absl::StrCat("sweep ", sweep->id,
                              " runs in the foreground (no dlpd runs it): `dlp sweep resume ",
                              sweep->id, "` drives it (or submit with --follow)"));
  }
  if (!flags.follow) return Code(ExitCode::kSuccess);
  return FollowSweep(**client, sweep->id, flags.quiet, globals);
}

int FollowSweep(Client& client, const std::string& id, bool quiet, const GlobalFlags& globals) {
  InstallInterruptHandler(InterruptMode::kFlag);
  SweepFollowOptions options;
  options.cancelled = [] { return Interrupted(); };
  std::string last;
  options.on_update = [&](const Sweep& s) {
    if (quiet) return;
    const std::string line = absl::StrCat(
        "sweep ", s.id, ": ", std::string(SweepStateName(s.state)), ", ", s.trials.size(),
        " trial(s): ", Counted(s, TrialState::kRunning), " running, ",
        Counted(s, TrialState::kSucceeded), " succeeded, ", Counted(s, TrialState::kCancelled),
        " stopped or cancelled, ", Counted(s, TrialState::kFailed), " failed");
    if (line != last) std::fprintf(stderr, "%s\n", line.c_str());
    last = line;
  };
  absl::StatusOr<Sweep> done = dlp::FollowSweep(client, id, options);
  if (!done.ok()) {
    if (absl::IsCancelled(done.status())) {
      std::fprintf(stderr, "dlp: stopped following sweep %s; `dlp sweep resume %s` goes on\n",
                   id.c_str(), id.c_str());
      return Code(ExitCode::kInterrupted);
    }
    return ReportError(done.status());
  }
  if (!quiet) PrintLeaderboard(*done, UseColor(globals, STDOUT_FILENO));
  return Code(done->state == SweepState::kSucceeded ? ExitCode::kSuccess : ExitCode::kCancelled);
}

void RegisterSweep(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<SweepFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "sweep", "Hyperparameter sweeps: trials of a job template searched by grid, random or asha");
  cmd->require_subcommand(1);
  auto action = [flags, &invocation](int (*run)(const SweepFlags&, const GlobalFlags&)) {
    return [flags, &invocation, run] {
      invocation.action = [flags, &invocation, run] { return run(*flags, invocation.globals); };
    };
  };

  CLI::App* submit =
      cmd->add_subcommand("submit", "Submit a sweep spec (kind: Sweep) and print its id");
  submit
      ->add_option("FILE", flags->file, "Sweep spec (YAML, see docs/experiments.md); - reads stdin")
      ->required();
  submit->add_option("--set", flags->overrides, "Override a spec value (repeatable)")
      ->option_text("KEY=VALUE");
  submit->add_option("--name", flags->name, "Sweep name (replaces metadata.name)")
      ->option_text("NAME");
  submit->add_flag("--follow", flags->submit.follow,
                   "Follow the sweep until it ends; on backends without dlpd (Slurm) this "
                   "process runs the sweep's controller");
  submit->add_flag("--foreground", flags->submit.foreground,
                   "Run the controller in this process even where dlpd could");
  submit->add_flag("-q,--quiet", flags->submit.quiet, "Print only the sweep id");
  submit->callback(action(RunSubmit));

  CLI::App* status = cmd->add_subcommand("status", "Show a sweep's leaderboard");
  status->add_option("SWEEP", flags->id, "Sweep id")->required();
  status->add_option("-o,--output", flags->output, "Output format: table or json")
      ->transform(Choices({"table", "json"}));
  status->add_flag("--plot", flags->plot,
                   "Draw each trial's objective over the resource in the terminal");
  status->add_option("--png", flags->png, "Write that chart as a PNG image")->option_text("FILE");
  status->callback(action(RunStatus));

  CLI::App* list = cmd->add_subcommand("list", "List sweeps");
  list->add_option("-o,--output", flags->output, "Output format: table or json")
      ->transform(Choices({"table", "json"}));
  list->callback(action(RunList));

  CLI::App* cancel =
      cmd->add_subcommand("cancel", "Cancel a sweep: stop its trials, start no more");
  cancel->add_option("SWEEP", flags->id, "Sweep id")->required();
  cancel->callback(action(RunCancel));

  CLI::App* resume = cmd->add_subcommand(
      "resume", "Go on driving a foreground sweep (or follow a dlpd's) until it ends");
  resume->add_option("SWEEP", flags->id, "Sweep id")->required();
  resume->add_flag("-q,--quiet", flags->submit.quiet, "Print nothing while following");
  resume->callback(action(RunResume));

  AddGroupDelete(*cmd, invocation, "sweep",
                 [](Client& client, const std::string& id,
                    bool force) -> absl::StatusOr<std::string> {
                   DLP_ASSIGN_OR_RETURN(Sweep sweep, DeleteSweep(client, id, force));
                   return sweep.id;
                 });
}

}  // namespace dlp::cli
