// Contexts: reading and writing ~/.config/dlp/config.yaml. yaml-cpp throws; every
// exception is caught in this file and turned into "FILE:LINE:COLUMN: message".
#include "dlp/config.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "config/paths.h"
#include "dlp/status.h"
#include "yaml-cpp/yaml.h"

namespace dlp {
namespace {

using internal::HomeDir;

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

absl::Status ErrorAt(const std::string& file, const YAML::Mark& mark, std::string_view what) {
  if (mark.is_null()) return absl::InvalidArgumentError(absl::StrCat(file, ": ", std::string(what)));
  return absl::InvalidArgumentError(
      absl::StrCat(file, ":", mark.line + 1, ":", mark.column + 1, ": ", std::string(what)));
}

absl::StatusOr<Context> ParseContext(const std::string& file, const YAML::Node& node,
                                     size_t index) {
  const std::string where = absl::StrCat("contexts[", index, "]");
  if (!node.IsMap()) return ErrorAt(file, node.Mark(), absl::StrCat(where, ": expected a map"));
  Context context;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (!entry.second.IsScalar()) {
      return ErrorAt(file, entry.second.Mark(),
                     absl::StrCat(where, ".", key, ": expected a single value"));
    }
    const std::string value = entry.second.as<std::string>();
    if (key == "name") {
      context.name = value;
    } else if (key == "backend") {
      context.backend = value;
    } else {
      context.fields[key] = value;
    }
  }
  if (context.name.empty()) {
    return ErrorAt(file, node.Mark(), absl::StrCat(where, ".name: required"));
  }
  if (context.backend.empty()) {
    return ErrorAt(file, node.Mark(),
                   absl::StrCat(where, ".backend: required (local, remote, slurm, kubernetes)"));
  }
  return context;
}

absl::StatusOr<Config> ParseConfig(const std::string& file, const YAML::Node& root) {
  Config config;
  config.path = file;
  if (root.IsNull()) return config;  // an empty file
  if (!root.IsMap()) return ErrorAt(file, root.Mark(), "expected a map at the top level");
  std::set<std::string> names;
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    const YAML::Node& value = entry.second;
    if (key == "current-context") {
      if (!value.IsScalar()) return ErrorAt(file, value.Mark(), "current-context: expected a name");
      config.current_context = value.as<std::string>();
    } else if (key == "contexts") {
      if (value.IsNull()) continue;
      if (!value.IsSequence()) return ErrorAt(file, value.Mark(), "contexts: expected a list");
      for (size_t i = 0; i < value.size(); ++i) {
        DLP_ASSIGN_OR_RETURN(Context context, ParseContext(file, value[i], i));
        if (!names.insert(context.name).second) {
          return ErrorAt(file, value[i].Mark(),
                         absl::StrCat("contexts[", i, "].name: '", context.name,
                                      "' is defined twice"));
        }
        config.contexts.push_back(std::move(context));
      }
    } else {
      return ErrorAt(file, entry.first.Mark(),
                     absl::StrCat("unknown key '", key,
                                  "' (expected 'current-context' or 'contexts')"));
    }
  }
  return config;
}

Context LocalContext() {
  Context context;
  context.name = "local";
  context.backend = "local";
  return context;
}

}  // namespace

std::string Context::Field(std::string_view key, std::string_view fallback) const {
  auto it = fields.find(std::string(key));
  return it == fields.end() ? std::string(fallback) : it->second;
}

std::string DefaultConfigPath(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  const std::string from_env = EnvOr("DLP_CONFIG", "");
  if (!from_env.empty()) return from_env;
  const std::string base = EnvOr("XDG_CONFIG_HOME", absl::StrCat(HomeDir(), "/.config"));
  return absl::StrCat(base, "/dlp/config.yaml");
}

std::string DefaultStateDir() {
  const std::string base = EnvOr("XDG_STATE_HOME", absl::StrCat(HomeDir(), "/.local/state"));
  return absl::StrCat(base, "/dlp");
}

absl::StatusOr<Config> LoadConfig(const std::string& path) {
  const std::string file = DefaultConfigPath(path);
  auto text = internal::ReadFile(file);
  if (absl::IsNotFound(text.status())) {
    Config config;
    config.current_context = "local";
    config.contexts.push_back(LocalContext());
    return config;
  }
  if (!text.ok()) return text.status();
  try {
    return ParseConfig(file, YAML::Load(*text));
  } catch (const YAML::Exception& e) {
    return ErrorAt(file, e.mark, e.msg);
  }
}

absl::Status SaveConfig(const Config& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  if (!config.current_context.empty()) {
    out << YAML::Key << "current-context" << YAML::Value << config.current_context;
  }
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq;
  for (const Context& context : config.contexts) {
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << context.name;
    out << YAML::Key << "backend" << YAML::Value << context.backend;
    for (const auto& [key, value] : context.fields) {
      out << YAML::Key << key << YAML::Value << value;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good()) return absl::InternalError(absl::StrCat("config: ", out.GetLastError()));
  const std::string path = config.path.empty() ? DefaultConfigPath() : config.path;
  return internal::WriteFileInNewDirs(path, absl::StrCat(out.c_str(), "\n"), 0600);
}

absl::StatusOr<Context> ResolveContext(const Config& config, std::string_view name) {
  std::string wanted(name);
  if (wanted.empty()) wanted = EnvOr("DLP_CONTEXT", config.current_context);
  if (wanted.empty()) wanted = "local";
  for (const Context& context : config.contexts) {
    if (context.name == wanted) return context;
  }
  // The implicit local context exists even when a config file does not list it.
  if (wanted == "local") return LocalContext();
  std::vector<std::string> known;
  for (const Context& context : config.contexts) known.push_back(context.name);
  if (std::find(known.begin(), known.end(), "local") == known.end()) known.push_back("local");
  return absl::NotFoundError(absl::StrCat("no context named '", wanted, "' (known: ",
                                          absl::StrJoin(known, ", "), ")"));
}

}  // namespace dlp
