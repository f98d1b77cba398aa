// dlp admin queue create|update NAME [flags] | delete NAME | list
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "admin.h"
#include "common.h"
#include "dlp/queue.h"
#include "table.h"

namespace dlp::cli {
namespace {

// What the flags say; unset: left as it is (update) or the default (create).
struct QueueFlags {
  std::string name;
  std::optional<std::string> cohort, nominal, borrowing_limit, lending_limit, priority_range;
  std::optional<int> weight;
  AdminFormat format = AdminFormat::kTable;
};

absl::Status FlagError(const char* flag, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": ", status.message()));
}

// "none" clears a limit.
absl::Status ApplyLimit(const std::optional<std::string>& text, const char* flag,
                        std::optional<QueueResources>& limit) {
  if (!text) return absl::OkStatus();
  if (*text == "none") {
    limit.reset();
    return absl::OkStatus();
  }
  absl::StatusOr<QueueResources> r = ParseQueueResources(*text);
  if (!r.ok()) return FlagError(flag, r.status());
  limit = *r;
  return absl::OkStatus();
}

absl::Status Apply(const QueueFlags& f, Queue& q) {
  if (f.cohort) q.cohort = *f.cohort;
  if (f.nominal) {
    absl::StatusOr<QueueResources> r = ParseQueueResources(*f.nominal);
    if (!r.ok()) return FlagError("--nominal", r.status());
    q.nominal = *r;
  }
  if (absl::Status s = ApplyLimit(f.borrowing_limit, "--borrowing-limit", q.borrowing_limit);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ApplyLimit(f.lending_limit, "--lending-limit", q.lending_limit); !s.ok()) {
    return s;
  }
  if (f.weight) {
    if (*f.weight < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--weight: expected a positive whole number, got ", *f.weight));
    }
    q.weight = *f.weight;
  }
  if (f.priority_range) {
    if (*f.priority_range == "any") {
      q.min_priority = INT_MIN;
      q.max_priority = INT_MAX;
    } else {
      absl::StatusOr<std::pair<int, int>> r = ParsePriorityRange(*f.priority_range);
      if (!r.ok()) return FlagError("--priority-range", r.status());
      q.min_priority = r->first;
      q.max_priority = r->second;
    }
  }
  return absl::OkStatus();
}

std::string Limit(const std::optional<QueueResources>& r) {
  return r ? FormatQueueResources(*r) : "-";
}

std::string Range(const Queue& q) {
  if (q.min_priority == INT_MIN && q.max_priority == INT_MAX) return "any";
  return absl::StrCat(q.min_priority == INT_MIN ? "" : absl::StrCat(q.min_priority), "..",
                      q.max_priority == INT_MAX ? "" : absl::StrCat(q.max_priority));
}

int Print(const Queue& q, const QueueFlags& f, const char* verb) {
  if (f.format == AdminFormat::kJson) {
    std::printf("%s\n", QueueToJson(q, 2).c_str());
  } else {
    std::printf("queue %s %s\n", q.name.c_str(), verb);
  }
  return Code(ExitCode::kSuccess);
}

int RunCreate(const QueueFlags& f, const GlobalFlags& globals) {
  Queue q;
  q.name = f.name;
  if (absl::Status s = Apply(f, q); !s.ok()) return ReportError(s);
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Queue> created = (*client)->CreateQueue(q);
  if (!created.ok()) return ReportError(created.status());
  return Print(*created, f, "created");
}

int RunUpdate(const QueueFlags& f, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Queue>> queues = (*client)->ListQueues();
  if (!queues.ok()) return ReportError(queues.status());
  for (Queue q : *queues) {
    if (q.name != f.name) continue;
    if (absl::Status s = Apply(f, q); !s.ok()) return ReportError(s);
    absl::StatusOr<Queue> updated = (*client)->UpdateQueue(q);
    if (!updated.ok()) return ReportError(updated.status());
    return Print(*updated, f, "updated");
  }
  return ReportError(absl::NotFoundError(absl::StrCat("no queue \"", f.name, "\"")));
}

int RunDelete(const QueueFlags& f, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Queue> deleted = (*client)->DeleteQueue(f.name);
  if (!deleted.ok()) return ReportError(deleted.status());
  return Print(*deleted, f, "deleted");
}

int RunList(const QueueFlags& f, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Queue>> queues = (*client)->ListQueues();
  if (!queues.ok()) return ReportError(queues.status());
  if (f.format == AdminFormat::kJson) {
    std::printf("%s\n", QueuesToJson(*queues, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  Table table(
      {"NAME", "COHORT", "NOMINAL", "BORROWING LIMIT", "LENDING LIMIT", "WEIGHT", "PRIORITY"});
  for (const Queue& q : *queues) {
    table.AddRow({q.name, q.cohort.empty() ? "-" : q.cohort, FormatQueueResources(q.nominal),
                  Limit(q.borrowing_limit), Limit(q.lending_limit), absl::StrCat(q.weight),
                  Range(q)});
  }
  table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  return Code(ExitCode::kSuccess);
}

// Each flag sets its field only when given, so that update keeps the rest.
void AddSettingFlags(CLI::App& cmd, QueueFlags& f) {
  auto text = [&cmd](const char* name, std::optional<std::string>* out, const char* help,
                     const char* value) {
    cmd.add_option_function<std::string>(
           name, [out](const std::string& v) { *out = v; }, help)
        ->option_text(value);
  };
  text("--cohort", &f.cohort, "Cohort whose queues lend each other unused quota", "COHORT");
  text("--nominal", &f.nominal, "Guaranteed quota, e.g. cpu=8,memory=64Gi,gpu=4,gpu.h100=2",
       "RESOURCES");
  text("--borrowing-limit", &f.borrowing_limit,
       "Most it may borrow beyond nominal from its cohort (\"none\": no limit)", "RESOURCES");
  text("--lending-limit", &f.lending_limit,
       "Most of its unused nominal it lends to its cohort (\"none\": all)", "RESOURCES");
  text("--priority-range", &f.priority_range,
       "Priorities its jobs may have, e.g. -100..1000 (\"any\": no bound)", "MIN..MAX");
  std::optional<int>* weight = &f.weight;
  cmd.add_option_function<int>(
         "--weight", [weight](const int& v) { *weight = v; },
         "Weight of its fair share of what is borrowed (default 1)")
      ->option_text("N");
}

}  // namespace

void RegisterAdminQueue(CLI::App& admin, Invocation& invocation) {
  auto flags = std::make_shared<QueueFlags>();
  Invocation* inv = &invocation;
  CLI::App* cmd = admin.add_subcommand("queue", "Create, update, delete and list queues");
  cmd->require_subcommand(1);
  auto action = [flags, inv](int (*run)(const QueueFlags&, const GlobalFlags&)) {
    return [flags, inv, run] {
      inv->action = [flags, inv, run] { return run(*flags, inv->globals); };
    };
  };

  CLI::App* create = cmd->add_subcommand("create", "Create a queue");
  create->add_option("NAME", flags->name, "Queue name (a job's spec.queue)")->required();
  AddSettingFlags(*create, *flags);
  AddAdminOutputFlag(*create, &flags->format);
  create->callback(action(RunCreate));

  CLI::App* update =
      cmd->add_subcommand("update", "Change a queue's settings (those not given stay)");
  update->add_option("NAME", flags->name, "Queue name")->required();
  AddSettingFlags(*update, *flags);
  AddAdminOutputFlag(*update, &flags->format);
  update->callback(action(RunUpdate));

  CLI::App* del =
      cmd->add_subcommand("delete", "Delete a queue (refused while jobs are active in it)");
  del->add_option("NAME", flags->name, "Queue name")->required();
  AddAdminOutputFlag(*del, &flags->format);
  del->callback(action(RunDelete));

  CLI::App* list = cmd->add_subcommand("list", "List the queues and their settings");
  AddAdminOutputFlag(*list, &flags->format);
  list->callback(action(RunList));
}

}  // namespace dlp::cli
