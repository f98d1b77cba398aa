// dlp admin: tenants, tokens and queues of a shared dlpd (its owner's token only).
#include "admin.h"

#include <map>
#include <string>

#include "CLI/CLI.hpp"
#include "command_table.h"

namespace dlp::cli {

void AddAdminOutputFlag(CLI::App& app, AdminFormat* format) {
  static const std::map<std::string, AdminFormat> kNames = {{"table", AdminFormat::kTable},
                                                            {"json", AdminFormat::kJson}};
  app.add_option("-o,--output", *format, "Output format: table or json")
      ->transform(CLI::CheckedTransformer(kNames, CLI::ignore_case))
      ->transform(Choices({"table", "json"}))
      ->option_text("FORMAT");
}

void RegisterAdmin(CLI::App& parent, Invocation& invocation) {
  CLI::App* cmd = parent.add_subcommand(
      "admin", "Administer a shared dlpd's tenants, tokens and queues (owner's token only)");
  cmd->require_subcommand(1);
  RegisterAdminTenant(*cmd, invocation);
  RegisterAdminToken(*cmd, invocation);
  RegisterAdminQueue(*cmd, invocation);
}

}  // namespace dlp::cli
