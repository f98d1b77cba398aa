// dlp admin token create TENANT [--expires 30d] | list [TENANT] | revoke TOKEN_ID
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "admin.h"
#include "common.h"
#include "dlp/admin.h"
#include "job_output.h"
#include "table.h"

namespace dlp::cli {
namespace {

struct TokenFlags {
  std::string tenant;
  std::string expires;  // "30d"; empty: never
  std::string id;
  AdminFormat format = AdminFormat::kTable;
};

int RunCreate(const TokenFlags& flags, const GlobalFlags& globals) {
  std::optional<absl::Time> expires;
  if (!flags.expires.empty()) {
    absl::StatusOr<absl::Duration> lifetime = ParseTokenLifetime(flags.expires);
    if (!lifetime.ok()) {
      return ReportError(
          absl::InvalidArgumentError(absl::StrCat("--expires: ", lifetime.status().message())));
    }
    expires = absl::Now() + *lifetime;
  }
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<NewToken> token = (*client)->CreateToken(flags.tenant, expires);
  if (!token.ok()) return ReportError(token.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", NewTokenToJson(*token, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  // The token alone on stdout, so that TOKEN=$(dlp admin token create ...) works.
  std::printf("%s\n", token->token.c_str());
  std::fprintf(stderr, "token %lld for tenant %s, %s; it is shown only this once\n",
               static_cast<long long>(token->info.id), token->info.tenant.c_str(),
               token->info.expires
                   ? absl::StrCat("expires ", FormatTimestamp(token->info.expires)).c_str()
                   : "never expires");
  return Code(ExitCode::kSuccess);
}

std::string TokenState(const TokenInfo& t, absl::Time now) {
  if (t.revoked) return "revoked";
  if (t.expires && *t.expires <= now) return "expired";
  return "valid";
}

int RunList(const TokenFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<std::vector<TokenInfo>> tokens = (*client)->ListTokens(flags.tenant);
  if (!tokens.ok()) return ReportError(tokens.status());
  if (flags.format == AdminFormat::kJson) {
    std::printf("%s\n", TokensToJson(*tokens, 2).c_str());
    return Code(ExitCode::kSuccess);
  }
  const absl::Time now = absl::Now();
  Table table({"ID", "TENANT", "STATE", "CREATED", "EXPIRES", "REVOKED"});
  for (const TokenInfo& t : *tokens) {
    table.AddRow({absl::StrCat(t.id), t.tenant, TokenState(t, now), FormatTimestamp(t.created),
                  FormatTimestamp(t.expires), FormatTimestamp(t.revoked)});
  }
  table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  return Code(ExitCode::kSuccess);
}

int RunRevoke(const TokenFlags& flags, const GlobalFlags& globals) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(flags.id, &id) || id <= 0) {
    return ReportError(absl::InvalidArgumentError(absl::StrCat(
        "TOKEN_ID: expected a token id from `dlp admin token list`, got \"", flags.id, "\"")));
  }
  absl::StatusOr<std::unique_ptr<Client>> client = MakeClient(globals);
  if (!client.ok()) return ReportError(client.status());
  absl::StatusOr<TokenInfo> token = (*client)->RevokeToken(id);
  if (!token.ok()) return ReportError(token.status());
  std::printf("token %lld (tenant %s) revoked\n", static_cast<long long>(token->id),
              token->tenant.c_str());
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterAdminToken(CLI::App& admin, Invocation& invocation) {
  auto flags = std::make_shared<TokenFlags>();
  Invocation* inv = &invocation;
  CLI::App* cmd = admin.add_subcommand("token", "Create, list and revoke tenants' API tokens");
  cmd->require_subcommand(1);

  CLI::App* create = cmd->add_subcommand(
      "create", "Create a token for a tenant and print it (shown only this once)");
  create->add_option("TENANT", flags->tenant, "Tenant name")->required();
  create
      ->add_option("--expires", flags->expires,
                   "Lifetime: a number and m, h, d or w (30d); default: until revoked")
      ->option_text("LIFETIME");
  AddAdminOutputFlag(*create, &flags->format);
  create->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunCreate(*flags, inv->globals); }; });

  CLI::App* list = cmd->add_subcommand("list", "List tokens (never the tokens themselves)");
  list->add_option("TENANT", flags->tenant, "Only this tenant's tokens");
  AddAdminOutputFlag(*list, &flags->format);
  list->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunList(*flags, inv->globals); }; });

  CLI::App* revoke = cmd->add_subcommand("revoke", "Revoke a token (its requests then get 401)");
  revoke->add_option("TOKEN_ID", flags->id, "Token id (from `dlp admin token list`)")->required();
  revoke->callback(
      [flags, inv] { inv->action = [flags, inv] { return RunRevoke(*flags, inv->globals); }; });
}

}  // namespace dlp::cli
