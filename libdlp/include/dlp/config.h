// Contexts, as kubectl has them: ~/.config/dlp/config.yaml (or $DLP_CONFIG).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace dlp {

struct Context {
  std::string name;
  std::string backend;  // "local", "remote", "slurm", "kubernetes"
  // Every other key of the context entry, as written ("partition", "server",
  // "token-file", "rest-url", "state-dir", ...). Backends read what they need.
  std::map<std::string, std::string> fields;

  std::string Field(std::string_view key, std::string_view fallback = "") const;
};

struct Config {
  std::string path;  // where it was read from ("" when no file exists)
  std::string current_context;
  std::vector<Context> contexts;
};

// The config file path: `explicit_path`, else $DLP_CONFIG, else
// $XDG_CONFIG_HOME/dlp/config.yaml (default ~/.config/dlp/config.yaml).
std::string DefaultConfigPath(const std::string& explicit_path = "");

// Loads the config. A missing file is not an error: it yields one context
// named "local" with backend "local". Syntax errors name file:line:column.
absl::StatusOr<Config> LoadConfig(const std::string& path = "");
absl::Status SaveConfig(const Config& config);  // writes config.path atomically

// Picks `name`, else $DLP_CONTEXT, else config.current_context, else "local".
// NotFound (listing the known names) when it does not exist.
absl::StatusOr<Context> ResolveContext(const Config& config, std::string_view name = "");

// FailedPrecondition when `context` names a `server` that would carry its
// bearer token in clear across the network: an http:// URL whose host is not
// this machine (localhost, 127.0.0.0/8, ::1), unless the context opts in with
// `allow-insecure-http: true`. The message says why and what to do instead.
// OK for every other context. The remote backend refuses such a context.
absl::Status CheckServerTransport(const Context& context);

// The user's state folder: $XDG_STATE_HOME/dlp, default ~/.local/state/dlp.
std::string DefaultStateDir();

}  // namespace dlp
