// dlp admin tenant|token: the pieces the two subcommand files share.
#pragma once

#include "command.h"

namespace CLI {
class App;
}

namespace dlp::cli {

enum class AdminFormat { kTable, kJson };

// Adds `-o,--output table|json` to `app`.
void AddAdminOutputFlag(CLI::App& app, AdminFormat* format);

// `dlp admin tenant ...` and `dlp admin token ...` under `admin`.
void RegisterAdminTenant(CLI::App& admin, Invocation& invocation);
void RegisterAdminToken(CLI::App& admin, Invocation& invocation);

}  // namespace dlp::cli
