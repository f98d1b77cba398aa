// dlp admin tenant create NAME [--user USER] [--queues Q,...] |
// update NAME [--queues Q,...] [--disk-quota SIZE|default] | list | show NAME | delete NAME
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "admin.h"
#include "common.h"
#include "dlp/admin.h"
#include "dlp/spec.h"
#include "job_output.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct TenantFlags {
  std::string name;
  std::string unix_user;
  std::vector<std::string> queues;
  bool set_queues = false;  // update: --queues given
  std::string disk_quota;   // update: "10Gi", "0" (none) or "default"; empty: unchanged
  AdminFormat format = AdminFormat::kTable;
};

// The quota a tenant is held to: "10Gi", "100Gi (default)", "none".
std::string DiskQuotaText(const Tenant& t) {
  const std::string bytes = t.disk_quota_in_force > 0 ? FormatMemoryBytes(t.disk_quota_in_force)
                                                      : std::string("none");
  return t.disk_quota ? bytes : bytes + " (default)";
}

// `--queues ""` names none.
std::vector<std::string> Queues(const TenantFlags& flags) {
  std::vector<std::string> out;
  for (const std::string& q : flags.queues) {
    if (!q.empty()) out.push_back(q);
  }
  return out;
}

int RunCreate(const TenantFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Tenant> tenant =
      (*client)->CreateTenant(flags.name, flags.unix_user, Queues(flags));
  if (!tenant.ok()) return ReportError(tenant.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", TenantToJson(*tenant, 2).c_str());
  } else {
    std::printf("tenant %s created (its jobs run as Unix user %s)\n", tenant->name.c_str(),
                tenant->unix_user.c_str());
  }
  return Code(ExitCode::kSuccess);
}

// --disk-quota: "default" (nullopt) or a size.
absl::StatusOr<std::optional<int64_t>> DiskQuotaFlag(const std::string& text) {
  if (text == "default") return std::optional<int64_t>();
  absl::StatusOr<int64_t> bytes = ParseMemoryBytes(text);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--disk-quota: ", bytes.status().message(), " (or \"default\" for dlpd's own)"));
  }
  return std::optional<int64_t>(*bytes);
}

int RunUpdate(const TenantFlags& flags, const GlobalFlags& globals) {
  if (!flags.set_queues && flags.disk_quota.empty()) {
    return ReportError(
        absl::InvalidArgumentError("nothing to update: give --queues or --disk-quota"));
  }
  std::optional<std::optional<int64_t>> quota;
  if (!flags.disk_quota.empty()) {
    absl::StatusOr<std::optional<int64_t>> parsed = DiskQuotaFlag(flags.disk_quota);
    if (!parsed.ok()) return ReportError(parsed.status());
    quota = *parsed;
  }
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<Tenant> tenant;  // set by one of the two at least
  if (flags.set_queues) {
    tenant = (*client)->SetTenantQueues(flags.name, Queues(flags));
    if (!tenant.ok()) return ReportError(tenant.status());
  }
  if (quota) {
    tenant = (*client)->SetTenantDiskQuota(flags.name, *quota);
    if (!tenant.ok()) return ReportError(tenant.status());
  }
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", TenantToJson(*tenant, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  if (flags.set_queues) {
    std::printf("tenant %s may use queues: %s\n", tenant->name.c_str(),
                tenant->queues.empty() ? "none" : absl::StrJoin(tenant->queues, ", ").c_str());
  }
  if (quota) {
    std::printf("tenant %s: disk quota %s\n", tenant->name.c_str(), DiskQuotaText(*tenant).c_str());
  }
  return Code(ExitCode::kSuccess);
}

int RunList(const TenantFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Tenant>> tenants = (*client)->ListTenants();
  if (!tenants.ok()) return ReportError(tenants.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", TenantsToJson(*tenants, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  Table table({"NAME", "UNIX USER", "QUEUES", "DISK QUOTA", "CREATED"});
  for (const Tenant& t : *tenants) {
    table.AddRow({t.name, t.unix_user, t.queues.empty() ? "-" : absl::StrJoin(t.queues, ","),
                  DiskQuotaText(t), FormatTimestamp(t.created)});
  }
  table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  return Code(ExitCode::kSuccess);
}

int RunShow(const TenantFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<Tenant>> tenants = (*client)->ListTenants();
  if (!tenants.ok()) return ReportError(tenants.status());
  for (const Tenant& t : *tenants) {
    if (t.name != flags.name) continue;
    if (flags.format == AdminFormat::kJson) {
      std::printf("%s\n", TenantToJson(t, 2).c_str());
      return Code(ExitCode::kSuccess);
    }
    std::printf(
        "Name:        %s\nUnix user:   %s\nQueues:      %s\nDisk quota:  %s\nCreated:     %s\n",
        t.name.c_str(), t.unix_user.c_str(),
        t.queues.empty() ? "-" : absl::StrJoin(t.queues, ", ").c_str(), DiskQuotaText(t).c_str(),
        FormatTimestamp(t.created).c_str());
    return Code(ExitCode::kSuccess);
  }
  return ReportError(absl::NotFoundError(absl::StrCat("no tenant \"", flags.name, "\"")));
}

int RunDelete(const TenantFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<int> revoked = (*client)->DeleteTenant(flags.name);
  if (!revoked.ok()) return ReportError(revoked.status());
  std::printf("tenant %s deleted; %d token%s revoked\n", flags.name.c_str(), *revoked,
              *revoked == 1 ? "" : "s");
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterAdminTenant(CLI::App& admin, Invocation& invocation) {
  auto flags = std::make_shared<TenantFlags>();
  Invocation* inv = &invocation;
  CLI::App* cmd = admin.add_subcommand("tenant", "Create, update, list, show and delete tenants");
  cmd->require_subcommand(1);

  CLI::App* create = cmd->add_subcommand("create", "Create a tenant (then give it a token)");
  create
      ->add_option("NAME", flags->name,
                   "Tenant name: 1-64 of A-Z a-z 0-9 . _ -, not starting with . or -")
      ->required();
  create
      ->add_option("--user", flags->unix_user,
                   "Unix account the tenant's jobs run as (default: NAME)")
      ->option_text("UNIXUSER");
  create
      ->add_option("--queues", flags->queues,
                   "Queues its jobs may name in spec.queue (where dlpd has queues)")
      ->delimiter(',')
      ->option_text("QUEUE,...");
  AddAdminOutputFlag(*create, &flags->format);
  create->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunCreate(*flags, inv->globals); }; });

  CLI::App* update = cmd->add_subcommand(
      "update", "Change the queues a tenant may use, or its disk quota");
  update->add_option("NAME", flags->name, "Tenant name")->required();
  CLI::Option* queues = update
                            ->add_option("--queues", flags->queues,
                                         "The queues it may use from now on (\"\" for none)")
                            ->delimiter(',')
                            ->option_text("QUEUE,...");
  update
      ->add_option("--disk-quota", flags->disk_quota,
                   "The disk space its jobs and models may hold (\"10Gi\"; 0: none), in place of "
                   "dlpd's --tenant-disk-quota; \"default\": dlpd's again")
      ->option_text("SIZE|default");
  AddAdminOutputFlag(*update, &flags->format);
  update->callback([flags, inv, queues] {
    flags->set_queues = queues->count() > 0;
    inv->action = [flags, inv] { return RunUpdate(*flags, inv->globals); };
  });

  CLI::App* list = cmd->add_subcommand("list", "List the tenants");
  AddAdminOutputFlag(*list, &flags->format);
  list->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunList(*flags, inv->globals); }; });

  CLI::App* show =
      cmd->add_subcommand("show", "Show a tenant: its account, queues and disk quota");
  show->add_option("NAME", flags->name, "Tenant name")->required();
  AddAdminOutputFlag(*show, &flags->format);
  show->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunShow(*flags, inv->globals); }; });

  CLI::App* del = cmd->add_subcommand(
      "delete", "Delete a tenant and revoke its tokens (refused while it has active jobs)");
  del->add_option("NAME", flags->name, "Tenant name")->required();
  del->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunDelete(*flags, inv->globals); }; });
}

}  // namespace dlp::cli
