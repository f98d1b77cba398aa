// dlp submit FILE|-f FILE [--set K=V]... [--name N] [--wait] [--follow [--metrics]] [-q]
// A `kind: Sweep` file goes to the sweep path (dlp sweep submit); a
// kind: Pipeline file submits the pipeline (dlp-pipeline(5)).
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "command.h"
#include "common.h"
#include "dlp/pipeline.h"
#include "dlp/pipeline_driver.h"
#include "dlp/status.h"
#include "job_output.h"
#include "log_stream.h"
#include "pipeline.h"
#include "sweep.h"
#include "waiting.h"

namespace dlp::cli {
namespace {

struct SubmitFlags {
  std::string file;
  std::string file_flag;
  std::vector<std::string> overrides;
  std::string name;
  bool wait = false;
  bool follow = false;
  bool metrics = false;
  bool quiet = false;
};

// --follow of a pipeline: each job's logs in turn (each after those it
// depends on), its lines prefixed "[NAME/replica]", after the line saying
// what it waits for; a job that never started (skipped) has none.
absl::Status StreamPipelineLogs(Client& client, const Pipeline& pipeline, bool metrics,
                                const GlobalFlags& globals) {
  for (const PipelineJob& j : pipeline.jobs) {
    if (j.job.empty()) continue;
    DLP_ASSIGN_OR_RETURN(Job job, WaitWhileQueued(client, j.job, WaitFlags{}));
    if (!job.started) continue;
    LogOptions log_options;
    log_options.follow = true;
    log_options.metrics = metrics;
    LogPrintFlags print_flags;
    print_flags.stage = j.name;
    DLP_RETURN_IF_ERROR(StreamLogs(client, j.job, log_options, print_flags, globals));
  }
  return absl::OkStatus();
}

// kind: Pipeline: every job at once; --wait waits for all of them, --follow
// also streams their logs.
int SubmitPipeline(const SubmitFlags& flags, const std::string& path, const std::string& text,
                   const GlobalFlags& globals) {
  if (!flags.overrides.empty() || !flags.name.empty()) {
    PrintError("--set and --name apply to a job, not to a pipeline");
    return Code(ExitCode::kUsage);
  }
  absl::StatusOr<PipelineSpec> spec = ParsePipelineSpec(text, path);
  if (!spec.ok()) return ReportError(spec.status());
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Pipeline> pipeline = (*client)->SubmitPipeline(*spec);
  if (!pipeline.ok()) return ReportError(pipeline.status());
  if (flags.quiet) {
    std::printf("%s\n", pipeline->id.c_str());
  } else {
    std::vector<std::string> jobs;
    for (const PipelineJob& j : pipeline->jobs) jobs.push_back(absl::StrCat(j.name, "=", j.job));
    std::printf("pipeline %s submitted (%s): jobs %s\n", pipeline->id.c_str(),
                pipeline->name.c_str(), absl::StrJoin(jobs, ", ").c_str());
  }
  std::fflush(stdout);
  if (ForegroundPipelines(**client)) {
    if (flags.wait || flags.follow) {
      return FollowPipeline(**client, pipeline->id, flags.quiet, globals);
    }
    PrintWarning(absl::StrCat("pipeline ", pipeline->id, " moves on in the foreground (no dlpd ",
                              "runs it): `dlp pipeline resume ", pipeline->id,
                              "` creates its later jobs (or submit with --wait)"));
    return Code(ExitCode::kSuccess);
  }
  if (!flags.wait && !flags.follow) return Code(ExitCode::kSuccess);
  if (flags.follow && !flags.quiet) {
    absl::Status streamed = StreamPipelineLogs(**client, *pipeline, flags.metrics, globals);
    if (!streamed.ok()) return ReportError(streamed);
  }
  for (const PipelineJob& j : pipeline->jobs) {
    WaitFlags wait_flags;
    wait_flags.progress = !flags.quiet;
    absl::StatusOr<Job> done = WaitForJob(**client, j.job, wait_flags);
    if (!done.ok()) return ReportError(done.status());
  }
  absl::StatusOr<Pipeline> done = (*client)->GetPipeline(pipeline->id);
  if (!done.ok()) return ReportError(done.status());
  if (!flags.quiet) {
    std::fprintf(stderr, "pipeline %s %s\n", done->id.c_str(),
                 std::string(JobStateName(done->state)).c_str());
  }
  Job outcome;  // the pipeline's outcome as a job's, for the exit code
  outcome.state = done->state;
  return Code(ExitCodeForJob(outcome));
}

int RunSubmit(const SubmitFlags& flags, const GlobalFlags& globals) {
  if (!flags.file.empty() && !flags.file_flag.empty()) {
    PrintError("give the spec either as FILE or with -f, not both");
    return Code(ExitCode::kUsage);
  }
  const std::string path = flags.file.empty() ? flags.file_flag : flags.file;
  if (path.empty()) {
    PrintError("a job spec is required: dlp submit FILE (or -f FILE, -f - for stdin)");
    return Code(ExitCode::kUsage);
  }
  absl::StatusOr<std::string> text = ReadSpecFile(path);
  if (!text.ok()) return ReportError(text.status());
  absl::StatusOr<std::string> kind = SpecKind(*text, path);
  if (!kind.ok()) return ReportError(kind.status());
  if (*kind == "Pipeline") return SubmitPipeline(flags, path, *text, globals);
  SpecOptions spec_options;
  spec_options.overrides = flags.overrides;
  spec_options.name = flags.name;
  if (*kind == "Sweep") {
    absl::StatusOr<SweepSpec> sweep = ParseSweepSpec(*text, path, spec_options);
    if (!sweep.ok()) return ReportError(sweep.status());
    SweepSubmitFlags sweep_flags;
    sweep_flags.follow = flags.wait || flags.follow;
    sweep_flags.quiet = flags.quiet;
    return SubmitSweep(*sweep, sweep_flags, globals);
  }
  absl::StatusOr<JobSpec> spec = ParseJobSpec(*text, path, spec_options);
  if (!spec.ok()) return ReportError(spec.status());

  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Job> job = (*client)->Submit(*spec);
  if (!job.ok()) return ReportError(job.status());

  if (flags.quiet) {
    std::printf("%s\n", job->id.c_str());
  } else {
    std::printf("job %s submitted%s\n", job->id.c_str(),
                job->name.empty() ? "" : absl::StrCat(" (", job->name, ")").c_str());
  }
  std::fflush(stdout);
  if (!flags.wait && !flags.follow) return Code(ExitCode::kSuccess);

  if (flags.follow && !flags.quiet) {
    absl::StatusOr<Job> started = WaitWhileQueued(**client, job->id, WaitFlags{});
    if (!started.ok()) return ReportError(started.status());
    LogOptions log_options;
    log_options.follow = true;
    log_options.metrics = flags.metrics;
    LogPrintFlags print_flags;
    print_flags.prefix = true;
    absl::Status streamed = StreamLogs(**client, job->id, log_options, print_flags, globals);
    if (!streamed.ok()) return ReportError(streamed);
  }
  WaitFlags wait_flags;
  wait_flags.progress = !flags.quiet;
  absl::StatusOr<Job> done = WaitForJob(**client, job->id, wait_flags);
  if (!done.ok()) return ReportError(done.status());
  if (!flags.quiet) {
    std::fprintf(stderr, "job %s %s\n", done->id.c_str(), std::string(JobStateName(done->state)).c_str());
  }
  PrintJobOutcome(*done);
  return Code(ExitCodeForJob(*done));
}

}  // namespace

void RegisterSubmit(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<SubmitFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "submit", "Submit a job spec (or a pipeline) and print the new job's (pipeline's) id");
  cmd->add_option("FILE", flags->file,
                  "Job spec (YAML, see dlp-job(5)) or pipeline (kind: Pipeline, dlp-pipeline(5)); "
                  "- reads stdin");
  cmd->add_option("-f,--file", flags->file_flag, "Job spec file; - reads stdin")->option_text("FILE");
  cmd->add_option("--set", flags->overrides,
                  "Override a spec value, e.g. --set spec.replicas.worker.count=8 (repeatable)")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--name", flags->name, "Job name (replaces metadata.name)")->option_text("NAME");
  cmd->add_flag("--wait", flags->wait,
                "Wait for the job to end; exit with its outcome (a pipeline: every job; on "
                "Kubernetes this process creates its later jobs as their dependencies end)");
  cmd->add_flag("--follow", flags->follow,
                "Stream the job's logs until it ends; exit with its outcome (a pipeline: each "
                "job's in turn, prefixed [NAME/replica])");
  cmd->add_flag("--metrics", flags->metrics,
                "With --follow, also print DLP_METRIC lines (left out by default)");
  cmd->add_flag("-q,--quiet", flags->quiet, "Print only the job id (and nothing while waiting)");
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunSubmit(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
