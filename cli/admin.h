// dlp admin tenant|token|queue (and dlp queue): the pieces they share.
#pragma once

#include "command.h"

namespace CLI {
class App;
}

namespace dlp::cli {

enum class AdminFormat { kTable, kJson };

// Adds `-o,--output table|json` to `app`.
void AddAdminOutputFlag(CLI::App& app, AdminFormat* format);

// `dlp admin tenant ...`, `token ...` and `queue ...` under `admin`.
void RegisterAdminTenant(CLI::App& admin, Invocation& invocation);
void RegisterAdminToken(CLI::App& admin, Invocation& invocation);
void RegisterAdminQueue(CLI::App& admin, Invocation& invocation);

}  // namespace dlp::cli
