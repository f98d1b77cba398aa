// dlp pipeline status ID | list | cancel ID [-o table|json] | resume ID [-q] |
// delete ID... [--force]:
// pipelines (kind: Pipeline, submitted with `dlp submit`), shown as a tree of
// their jobs.
#include "pipeline.h"

#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "admin.h"
#include "common.h"
#include "delete.h"
#include "dlp/status.h"
#include "dlp/pipeline.h"
#include "dlp/pipeline_driver.h"
#include "interrupt.h"
#include "job_output.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct PipelineFlags {
  std::string id;
  AdminFormat format = AdminFormat::kTable;
  bool quiet = false;
};

// Each job under its first dependency (a DAG drawn as a tree); a job with
// more dependencies names the others.
class TreePrinter {
 public:
  TreePrinter(const Pipeline& p, bool color) : p_(p), color_(color) {
    for (size_t i = 0; i < p.jobs.size(); ++i) index_[p.jobs[i].name] = i;
    for (size_t i = 0; i < p.jobs.size(); ++i) {
      const std::vector<std::string>& deps = p.jobs[i].depends_on;
      if (!deps.empty() && index_.contains(deps.front())) {
        children_[index_[deps.front()]].push_back(i);
      } else {
        roots_.push_back(i);
      }
    }
  }

  void Print() const {
    for (size_t i = 0; i < roots_.size(); ++i) Node(roots_[i], "", i + 1 == roots_.size(), true);
  }

 private:
  void Node(size_t i, const std::string& prefix, bool last, bool root) const {
    const PipelineJob& j = p_.jobs[i];
    std::string line = root ? "" : absl::StrCat(prefix, last ? "└─ " : "├─ ");
    absl::StrAppend(&line, j.name, "  job ", j.job, "  ", ColoredState(j.state, color_));
    if (j.depends_on.size() > 1) {
      std::vector<std::string> also(j.depends_on.begin() + 1, j.depends_on.end());
      absl::StrAppend(&line, "  (also after ", absl::StrJoin(also, ", "), ")");
    }
    if (!j.reason.empty() && !IsTerminal(j.state) && j.state != JobState::kRunning) {
      absl::StrAppend(&line, "  ", j.reason);
    } else if (!j.reason.empty() && j.state == JobState::kCancelled) {
      absl::StrAppend(&line, "  ", j.reason);
    }
    std::printf("%s\n", line.c_str());
    auto kids = children_.find(i);
    if (kids == children_.end()) return;
    const std::string next = root ? "" : absl::StrCat(prefix, last ? "   " : "│  ");
    for (size_t k = 0; k < kids->second.size(); ++k) {
      Node(kids->second[k], next, k + 1 == kids->second.size(), false);
    }
  }

  const Pipeline& p_;
  bool color_;
  std::map<std::string, size_t> index_;
  std::map<size_t, std::vector<size_t>> children_;
  std::vector<size_t> roots_;
};

void PrintPipeline(const Pipeline& p, const GlobalFlags& globals) {
  const bool color = UseColor(globals, STDOUT_FILENO);
  std::printf("pipeline %s (%s): %s\n", p.id.c_str(), p.name.c_str(),
              ColoredState(p.state, color).c_str());
  TreePrinter(p, color).Print();
}

int RunStatus(const PipelineFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Pipeline> p = (*client)->GetPipeline(flags.id);
  if (!p.ok()) return ReportError(p.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", PipelineStatusToJson(*p, 2).c_str());
  } else {
    PrintPipeline(*p, globals);
  }
  return Code(ExitCode::kSuccess);
}

int RunList(const PipelineFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Pipeline>> list = (*client)->ListPipelines();
  if (!list.ok()) return ReportError(list.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", PipelinesToJson(*list, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  const bool color = UseColor(globals, STDOUT_FILENO);
  const absl::Time now = absl::Now();
  Table table({"ID", "NAME", "STATE", "JOBS", "AGE"});
  for (const Pipeline& p : *list) {
    int ended = 0;
    for (const PipelineJob& j : p.jobs) ended += IsTerminal(j.state) ? 1 : 0;
    table.AddRow({p.id, p.name, ColoredState(p.state, color),
                  absl::StrCat(ended, "/", p.jobs.size()),
                  p.created ? FormatAge(now - *p.created) : "-"});
  }
  table.Print(stdout, color);
  return Code(ExitCode::kSuccess);
}

int RunCancel(const PipelineFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Pipeline> p = (*client)->CancelPipeline(flags.id);
  if (!p.ok()) return ReportError(p.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", PipelineStatusToJson(*p, 2).c_str());
  } else {
    std::printf("pipeline %s cancelled\n", p->id.c_str());
  }
  return Code(ExitCode::kSuccess);
}

int RunResume(const PipelineFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  return FollowPipeline(**client, flags.id, flags.quiet, globals);
}

// "3 jobs: 1 running, 1 succeeded, 1 waiting": the progress line.
std::string Progress(const Pipeline& p) {
  std::map<std::string, int> counts;
  for (const PipelineJob& j : p.jobs) {
    ++counts[j.state == JobState::kQueued
                 ? "waiting"
                 : absl::AsciiStrToLower(std::string(JobStateName(j.state)))];
  }
  std::vector<std::string> parts;
  for (const auto& [state, n] : counts) parts.push_back(absl::StrCat(n, " ", state));
  return absl::StrCat("pipeline ", p.id, ": ", std::string(JobStateName(p.state)), ", ",
                      p.jobs.size(), " job(s): ", absl::StrJoin(parts, ", "));
}

}  // namespace

int FollowPipeline(Client& client, const std::string& id, bool quiet, const GlobalFlags& globals) {
  InstallInterruptHandler(InterruptMode::kFlag);
  std::string last;
  while (true) {
    absl::StatusOr<Pipeline> p = StepPipeline(client, id);
    if (!p.ok()) return ReportError(p.status());
    const std::string line = Progress(*p);
    if (!quiet && line != last) std::fprintf(stderr, "%s\n", line.c_str());
    last = line;
    if (IsTerminal(p->state)) {
      if (!quiet) PrintPipeline(*p, globals);
      Job outcome;  // the pipeline's outcome as a job's, for the exit code
      outcome.state = p->state;
      return Code(ExitCodeForJob(outcome));
    }
    if (Interrupted()) {
      std::fprintf(stderr, "dlp: stopped following pipeline %s; `dlp pipeline resume %s` goes on\n",
                   id.c_str(), id.c_str());
      return Code(ExitCode::kInterrupted);
    }
    absl::SleepFor(absl::Seconds(1));
  }
}

void RegisterPipeline(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<PipelineFlags>();
  Invocation* inv = &invocation;
  CLI::App* cmd = parent.add_subcommand(
      "pipeline",
      "Show, list, cancel, resume or delete pipelines (submit one with dlp submit, kind: "
      "Pipeline)");
  cmd->require_subcommand(1);
  CLI::App* status = cmd->add_subcommand("status", "Show a pipeline's jobs as a tree with states");
  status->add_option("ID", flags->id, "Pipeline id")->required();
  AddAdminOutputFlag(*status, &flags->format);
  status->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunStatus(*flags, inv->globals); }; });
  CLI::App* list = cmd->add_subcommand("list", "List pipelines, oldest first");
  AddAdminOutputFlag(*list, &flags->format);
  list->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunList(*flags, inv->globals); }; });
  CLI::App* cancel =
      cmd->add_subcommand("cancel", "Cancel every job of a pipeline that has not ended");
  cancel->add_option("ID", flags->id, "Pipeline id")->required();
  AddAdminOutputFlag(*cancel, &flags->format);
  cancel->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunCancel(*flags, inv->globals); }; });
  CLI::App* resume = cmd->add_subcommand(
      "resume",
      "Drive a pipeline until it ends: on Kubernetes this process creates each job once its "
      "dependencies are met (elsewhere it follows the pipeline)");
  resume->add_option("ID", flags->id, "Pipeline id")->required();
  resume->add_flag("-q,--quiet", flags->quiet, "Print nothing while following");
  resume->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunResume(*flags, inv->globals); }; });
  AddGroupDelete(*cmd, invocation, "pipeline",
                 [](Client& client, const std::string& id,
                    bool force) -> absl::StatusOr<std::string> {
                   DLP_ASSIGN_OR_RETURN(Pipeline pipeline, client.DeletePipeline(id, force));
                   return pipeline.id;
                 });
}

}  // namespace dlp::cli
