// dlp describe JOB [-o table|wide|json|yaml]: the job, its spec, replicas and events.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "command.h"
#include "common.h"
#include "dlp/codec.h"
#include "job_output.h"
#include "nlohmann/json.hpp"
#include "table.h"
#include "terminal_text.h"
#include "yaml-cpp/yaml.h"

namespace dlp::cli {
namespace {

struct DescribeFlags {
  std::string id;
  OutputFormat format = OutputFormat::kTable;
};

void Field(const char* key, const std::string& value) {
  std::printf("%-12s %s\n", key, value.empty() ? "-" : value.c_str());
}

// Every field a job's text controls goes through TerminalSafe (terminal_text.h).
void PrintText(const Job& job, const std::vector<Event>& events, const GlobalFlags& globals) {
  const bool color = UseColor(globals, STDOUT_FILENO);
  const absl::Time now = absl::Now();
  Field("ID:", job.id);
  Field("Name:", TerminalSafe(job.name));
  Field("State:", ColoredState(job.state, color));
  Field("Reason:", TerminalSafe(job.reason));
  Field("Tenant:", TerminalSafe(job.tenant));
  Field("Queue:", absl::StrCat(TerminalSafe(job.queue), " (priority ", job.spec.priority, ")"));
  Field("Created:", FormatTimestamp(job.created));
  Field("Started:", FormatTimestamp(job.started));
  Field("Finished:", FormatTimestamp(job.finished));
  Field("Duration:", JobDuration(job, now));
  Field("Exit code:", job.exit_code ? absl::StrCat(*job.exit_code) : "");
  Field("Restarts:", absl::StrCat(job.restart_count, " (policy ",
                                  std::string(RestartPolicyName(job.spec.restart_policy.policy)), ", max ",
                                  job.spec.restart_policy.max_restarts, ")"));
  Field("Preemptions:",
        absl::StrCat(
            job.preemptions,
            job.spec.preemptible
                ? absl::StrCat(" (grace period ", job.spec.preemption.grace_period_seconds, " s)")
                : " (not preemptible)"));
  if (job.state == JobState::kQueued) {
    Field("Position:", job.position ? absl::StrCat(*job.position, " in queue ", TerminalSafe(job.queue))
                                    : "");
    Field("Est. start:", FormatTimestamp(job.estimated_start));
  }
  if (!job.gpu_sharing.empty()) Field("GPU sharing:", TerminalSafe(job.gpu_sharing));
  if (!job.spec.depends_on.empty()) Field("Depends on:", TerminalSafe(FormatDependencies(job.spec)));

  std::printf("\n%s\n", Colorize("Spec:", kBold, color).c_str());
  std::string spec = TerminalSafe(JobSpecToYaml(job.spec));
  while (!spec.empty() && spec.back() == '\n') spec.pop_back();
  std::printf("  %s\n", absl::StrReplaceAll(spec, {{"\n", "\n  "}}).c_str());

  std::printf("\n%s\n", Colorize("Replicas:", kBold, color).c_str());
  // The GPUS column only for jobs dlpd placed on GPUs.
  const bool gpus = std::any_of(job.replicas.begin(), job.replicas.end(),
                                [](const JobReplica& r) { return !r.gpus.empty(); });
  std::vector<std::string> columns = {"NAME", "STATE", "EXIT", "HOST", "PID"};
  if (gpus) columns.push_back("GPUS");
  Table replicas(columns);
  for (const JobReplica& r : job.replicas) {
    std::vector<std::string> row = {TerminalSafe(r.name), ColoredState(r.state, color),
                                    TerminalSafe(ReplicaOutcome(r)),
                                    r.host.empty() ? "-" : TerminalSafe(r.host),
                                    r.pid > 0 ? absl::StrCat(r.pid) : "-"};
    if (gpus) row.push_back(r.gpus.empty() ? "-" : TerminalSafe(FormatGpuShares(r.gpus)));
    replicas.AddRow(row);
  }
  replicas.Print(stdout, color);

  std::printf("\n%s\n", Colorize("Events:", kBold, color).c_str());
  Table table({"TIME", "TYPE", "MESSAGE"});
  for (const Event& e : events) {
    table.AddRow({FormatTimestamp(e.time), TerminalSafe(e.type), TerminalSafe(e.message)});
  }
  if (table.empty()) {
    std::printf("<none>\n");
  } else {
    table.Print(stdout, color);
  }
}

// The job's JSON form with an "events" array added.
void PrintJson(const Job& job, const std::vector<Event>& events) {
  nlohmann::json doc = nlohmann::json::parse(JobToJson(job), nullptr, /*allow_exceptions=*/false);
  const nlohmann::json ev = nlohmann::json::parse(EventsToJson(events), nullptr, false);
  if (doc.is_object() && ev.is_object() && ev.contains("events")) doc["events"] = ev["events"];
  std::printf("%s\n", doc.dump(2).c_str());
}

void PrintYaml(const Job& job, const std::vector<Event>& events) {
  std::string text = JobToYaml(job);
  if (!text.empty() && text.back() != '\n') text += '\n';
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "events" << YAML::Value << YAML::BeginSeq;
  for (const Event& e : events) {
    out << YAML::BeginMap << YAML::Key << "time" << YAML::Value << FormatTimestamp(e.time)
        << YAML::Key << "type" << YAML::Value << e.type << YAML::Key << "message" << YAML::Value
        << e.message << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  std::printf("%s%s\n", text.c_str(), out.c_str());
}

int RunDescribe(const DescribeFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Job> job = (*client)->Get(flags.id);
  if (!job.ok()) return ReportError(job.status());
  absl::StatusOr<std::vector<Event>> events = (*client)->Events(flags.id);
  if (!events.ok()) return ReportError(events.status());
  switch (flags.format) {
    case OutputFormat::kJson: PrintJson(*job, *events); break;
    case OutputFormat::kYaml: PrintYaml(*job, *events); break;
    default: PrintText(*job, *events, globals); break;
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterDescribe(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<DescribeFlags>();
  CLI::App* cmd = parent.add_subcommand("describe", "Show a job in detail: spec, replicas, events");
  cmd->add_option("JOB", flags->id, "Job id")->required();
  AddOutputFlag(*cmd, &flags->format);
  cmd->callback([flags, &invocation] {
    invocation.action = [flags, &invocation] { return RunDescribe(*flags, invocation.globals); };
  });
}

}  // namespace dlp::cli
