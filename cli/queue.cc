// dlp queue [show NAME]: each queue's quota, use, borrowing, lending, waiting
// jobs, fair-share value and recent use (any tenant's token: totals only).
#include "dlp/queue.h"

#include <unistd.h>

#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "admin.h"
#include "common.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct QueueFlags {
  std::string name;
  AdminFormat format = AdminFormat::kTable;
};

std::string Resources(const QueueResources& r) {
  std::string text = FormatQueueResources(r);
  return text.empty() ? "-" : text;
}

std::string Share(double share) { return absl::StrFormat("%.3f", share); }

// "47%": the queue's decayed average use of its nominal quota; "-": no history.
std::string Recent(const QueueUsage& q) {
  return q.recent ? absl::StrCat(q.recent_percent, "%") : "-";
}

// "1h", "30m", "90s".
std::string HalfLife(int64_t seconds) {
  if (seconds % 3600 == 0) return absl::StrCat(seconds / 3600, "h");
  if (seconds % 60 == 0) return absl::StrCat(seconds / 60, "m");
  return absl::StrCat(seconds, "s");
}

int RunList(const QueueFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<QueueUsage>> queues = (*client)->QueueUsages();
  if (!queues.ok()) return ReportError(queues.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", QueueUsagesToJson(*queues, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  Table table(
      {"NAME", "COHORT", "NOMINAL", "USED", "BORROWED", "LENT", "PENDING", "SHARE", "RECENT"});
  for (const QueueUsage& q : *queues) {
    table.AddRow({q.name, q.cohort.empty() ? "-" : q.cohort, Resources(q.nominal),
                  Resources(q.used), Resources(q.borrowed), Resources(q.lent),
                  absl::StrCat(q.pending), Share(q.share), Recent(q)});
  }
  table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  return Code(ExitCode::kSuccess);
}

int RunShow(const QueueFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<QueueUsage> q = (*client)->GetQueueUsage(flags.name);
  if (!q.ok()) return ReportError(q.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", QueueUsageToJson(*q, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  auto field = [](const char* name, const std::string& value) {
    std::printf("%-10s %s\n", name, value.c_str());
  };
  field("Name:", q->name);
  field("Cohort:", q->cohort.empty() ? "-" : q->cohort);
  field("Nominal:", Resources(q->nominal));
  field("Used:", Resources(q->used));
  field("Borrowed:", Resources(q->borrowed));
  field("Lent:", Resources(q->lent));
  field("Running:", absl::StrCat(q->running));
  field("Pending:", absl::StrCat(q->pending));
  field("Share:", Share(q->share));
  if (q->recent) {
    field("Recent:", absl::StrCat(Resources(*q->recent), " (", q->recent_percent,
                                  "% of nominal; half-life ", HalfLife(q->half_life_seconds), ")"));
  } else {
    field("Recent:", "- (no fair-share history)");
  }
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterQueue(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<QueueFlags>();
  Invocation* inv = &invocation;
  CLI::App* cmd = parent.add_subcommand(
      "queue", "Show each queue's quota, use, borrowing, lending, pending jobs and share");
  AddAdminOutputFlag(*cmd, &flags->format);
  CLI::App* show = cmd->add_subcommand("show", "Show one queue");
  show->add_option("NAME", flags->name, "Queue name")->required();
  AddAdminOutputFlag(*show, &flags->format);
  show->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunShow(*flags, inv->globals); }; });
  cmd->callback([flags, inv, show] {
    if (show->parsed()) return;
    inv->action = [flags, inv] { return RunList(*flags, inv->globals); };
  });
}

}  // namespace dlp::cli
