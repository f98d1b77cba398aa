// dlp config view|get-contexts|current-context|use-context NAME|set-context NAME ...
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "command.h"
#include "command_table.h"
#include "common.h"
#include "dlp/config.h"
#include "dlp/status.h"
#include "table.h"
#include "yaml-cpp/yaml.h"

namespace dlp::cli {
namespace {

struct ConfigFlags {
  std::string name;
  std::string backend;
  std::vector<std::string> fields;
  bool allow_insecure_http = false;
};

absl::StatusOr<Config> Load(const GlobalFlags& globals) {
  return LoadConfig(DefaultConfigPath(globals.config_path));
}

int RunView(const GlobalFlags& globals) {
  absl::StatusOr<Config> config = Load(globals);
  if (!config.ok()) return ReportError(config.status());
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "current-context" << YAML::Value
      << config->current_context << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq;
  for (const Context& c : config->contexts) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << c.name << YAML::Key
        << "backend" << YAML::Value << c.backend;
    for (const auto& [key, value] : c.fields) out << YAML::Key << key << YAML::Value << value;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  std::printf("# %s\n%s\n",
              config->path.empty()
                  ? absl::StrCat("no config file (", DefaultConfigPath(globals.config_path), "): defaults").c_str()
                  : config->path.c_str(),
              out.c_str());
  return Code(ExitCode::kSuccess);
}

int RunGetContexts(const GlobalFlags& globals) {
  absl::StatusOr<Config> config = Load(globals);
  if (!config.ok()) return ReportError(config.status());
  absl::StatusOr<Context> current = ResolveContext(*config, globals.context);
  Table table({"CURRENT", "NAME", "BACKEND", "FIELDS"});
  for (const Context& c : config->contexts) {
    std::vector<std::string> fields;
    for (const auto& [key, value] : c.fields) fields.push_back(absl::StrCat(key, "=", value));
    table.AddRow({current.ok() && current->name == c.name ? "*" : "", c.name, c.backend,
                  fields.empty() ? "-" : absl::StrJoin(fields, ",")});
  }
  table.Print(stdout, UseColor(globals, STDOUT_FILENO));
  return Code(ExitCode::kSuccess);
}

int RunCurrentContext(const GlobalFlags& globals) {
  absl::StatusOr<Config> config = Load(globals);
  if (!config.ok()) return ReportError(config.status());
  absl::StatusOr<Context> current = ResolveContext(*config, globals.context);
  if (!current.ok()) return ReportError(current.status());
  std::printf("%s\n", current->name.c_str());
  return Code(ExitCode::kSuccess);
}

// A config about to be written needs a path even when none existed yet.
absl::StatusOr<Config> LoadForWrite(const GlobalFlags& globals) {
  DLP_ASSIGN_OR_RETURN(Config config, Load(globals));
  if (config.path.empty()) config.path = DefaultConfigPath(globals.config_path);
  return config;
}

int RunUseContext(const ConfigFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<Config> config = LoadForWrite(globals);
  if (!config.ok()) return ReportError(config.status());
  absl::StatusOr<Context> context = ResolveContext(*config, flags.name);
  if (!context.ok()) return ReportError(context.status());
  config->current_context = flags.name;
  absl::Status saved = SaveConfig(*config);
  if (!saved.ok()) return ReportError(saved);
  std::printf("switched to context \"%s\"\n", flags.name.c_str());
  return Code(ExitCode::kSuccess);
}

int RunSetContext(const ConfigFlags& flags, const GlobalFlags& globals) {
  absl::StatusOr<Config> config = LoadForWrite(globals);
  if (!config.ok()) return ReportError(config.status());
  auto it = std::find_if(config->contexts.begin(), config->contexts.end(),
                         [&](const Context& c) { return c.name == flags.name; });
  const bool created = it == config->contexts.end();
  if (created) {
    if (flags.backend.empty()) {
      PrintError(absl::StrCat("context \"", flags.name, "\" is new: --backend is required"));
      return Code(ExitCode::kUsage);
    }
    config->contexts.push_back(Context{flags.name, flags.backend, {}});
    it = config->contexts.end() - 1;
  }
  if (!flags.backend.empty()) it->backend = flags.backend;
  for (const std::string& field : flags.fields) {
    const size_t eq = field.find('=');
    if (eq == std::string::npos || eq == 0) {
      PrintError(absl::StrCat("--field wants KEY=VALUE, got '", field, "'"));
      return Code(ExitCode::kUsage);
    }
    const std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    if (value.empty()) {
      it->fields.erase(key);  // "--field key=" removes a field
    } else {
      it->fields[key] = value;
    }
  }
  if (flags.allow_insecure_http) it->fields["allow-insecure-http"] = "true";
  if (absl::Status transport = CheckServerTransport(*it); !transport.ok()) {
    PrintWarning(std::string(transport.message()));
  }
  if (config->current_context.empty()) config->current_context = flags.name;
  absl::Status saved = SaveConfig(*config);
  if (!saved.ok()) return ReportError(saved);
  std::printf("context \"%s\" %s in %s\n", flags.name.c_str(), created ? "created" : "modified",
              config->path.c_str());
  return Code(ExitCode::kSuccess);
}

}  // namespace

void RegisterConfig(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<ConfigFlags>();
  Invocation* inv = &invocation;
  CLI::App* cmd = parent.add_subcommand("config", "View and edit contexts (~/.config/dlp/config.yaml)");
  cmd->require_subcommand(1);

  cmd->add_subcommand("view", "Print the config")->callback([inv] {
    inv->action = [inv] { return RunView(inv->globals); };
  });
  cmd->add_subcommand("get-contexts", "List the contexts")->callback([inv] {
    inv->action = [inv] { return RunGetContexts(inv->globals); };
  });
  cmd->add_subcommand("current-context", "Print the context in use")->callback([inv] {
    inv->action = [inv] { return RunCurrentContext(inv->globals); };
  });

  CLI::App* use = cmd->add_subcommand("use-context", "Make a context the current one");
  use->add_option("CONTEXT", flags->name, "Context name")->required();
  use->callback([flags, inv] { inv->action = [flags, inv] { return RunUseContext(*flags, inv->globals); }; });

  CLI::App* set = cmd->add_subcommand("set-context", "Create or modify a context");
  set->add_option("CONTEXT", flags->name, "Context name")->required();
  set->add_option("--backend", flags->backend, "Backend: local, remote, slurm, kubernetes")
      ->transform(Choices(BackendNames()))
      ->option_text("NAME");
  set->add_option("--field", flags->fields,
                  "Set a field, e.g. --field server=https://host:8470 (repeatable; KEY= removes)")
      ->option_text("KEY=VALUE")
      ->allow_extra_args(false);
  set->add_flag("--allow-insecure-http", flags->allow_insecure_http,
                "Let a remote context send its token over plain http:// to another machine "
                "(sets allow-insecure-http: true; prefer https://)");
  set->callback([flags, inv] { inv->action = [flags, inv] { return RunSetContext(*flags, inv->globals); }; });
}

}  // namespace dlp::cli
