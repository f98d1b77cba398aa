#include "launch/group_spec.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp::launch {
namespace {

using Json = nlohmann::json;

absl::Status FieldError(const std::string& source, const std::string& field,
                        const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", field, ": ", what));
}

// The only place where nlohmann's exceptions are caught: every access below
// checks types first, so a throw here is a bug in the checks, still reported.
absl::StatusOr<RoleSpec> ParseRole(const Json& j, const std::string& source,
                                   const std::string& field) {
  if (!j.is_object()) return FieldError(source, field, "must be an object");
  RoleSpec role;
  if (j.contains("role")) {
    if (!j["role"].is_string()) return FieldError(source, field + ".role", "must be a string");
    role.role = j["role"].get<std::string>();
  }
  if (role.role.empty() || role.role.find_first_of("/ \t") != std::string::npos) {
    return FieldError(source, field + ".role", "must be a non-empty name without '/' or spaces");
  }
  if (j.contains("count")) {
    if (!j["count"].is_number_integer() || j["count"].get<int64_t>() < 1 ||
        j["count"].get<int64_t>() > 100000) {
      return FieldError(source, field + ".count", "must be an integer >= 1");
    }
    role.count = j["count"].get<int>();
  }
  if (!j.contains("command") || !j["command"].is_array() || j["command"].empty()) {
    return FieldError(source, field + ".command", "must be a non-empty array of strings");
  }
  for (const Json& arg : j["command"]) {
    if (!arg.is_string()) return FieldError(source, field + ".command", "must hold strings");
    role.command.push_back(arg.get<std::string>());
  }
  if (j.contains("env")) {
    if (!j["env"].is_object()) return FieldError(source, field + ".env", "must be an object");
    for (const auto& [key, value] : j["env"].items()) {
      if (key.empty() || key.find('=') != std::string::npos) {
        return FieldError(source, field + ".env", absl::StrCat("bad variable name '", key, "'"));
      }
      if (value.is_string()) {
        role.env[key] = value.get<std::string>();
      } else if (value.is_number() || value.is_boolean()) {
        role.env[key] = value.dump();
      } else {
        return FieldError(source, absl::StrCat(field, ".env.", key), "must be a string");
      }
    }
  }
  if (j.contains("gpus")) {
    if (!j["gpus"].is_number_integer() || j["gpus"].get<int64_t>() < 0) {
      return FieldError(source, field + ".gpus", "must be an integer >= 0");
    }
    role.gpus = j["gpus"].get<int>();
  }
  return role;
}

absl::StatusOr<GroupSpec> ParseGroup(const Json& j, const std::string& source) {
  if (!j.is_object()) return FieldError(source, "(top)", "must be an object");
  GroupSpec group;
  if (j.contains("framework")) {
    if (!j["framework"].is_string() || !IsKnownFramework(j["framework"].get<std::string>())) {
      return FieldError(source, "framework",
                        "must be one of pytorch, tensorflow, horovod, jax, none");
    }
    group.framework = j["framework"].get<std::string>();
  }
  if (j.contains("workdir")) {
    if (!j["workdir"].is_string()) return FieldError(source, "workdir", "must be a string");
    group.workdir = j["workdir"].get<std::string>();
  }
  if (!j.contains("roles") || !j["roles"].is_array() || j["roles"].empty()) {
    return FieldError(source, "roles", "must be a non-empty array");
  }
  for (size_t i = 0; i < j["roles"].size(); ++i) {
    DLP_ASSIGN_OR_RETURN(RoleSpec role,
                         ParseRole(j["roles"][i], source, absl::StrCat("roles[", i, "]")));
    for (const RoleSpec& other : group.roles) {
      if (other.role == role.role) {
        return FieldError(source, absl::StrCat("roles[", i, "].role"),
                          absl::StrCat("duplicate role '", role.role, "'"));
      }
    }
    group.roles.push_back(std::move(role));
  }
  if (j.contains("restartPolicy")) {
    if (!j["restartPolicy"].is_string()) {
      return FieldError(source, "restartPolicy", "must be a string");
    }
    auto policy = ParseRestartPolicy(j["restartPolicy"].get<std::string>());
    if (!policy.ok()) return FieldError(source, "restartPolicy", std::string(policy.status().message()));
    group.restart_policy = *policy;
  }
  if (j.contains("maxRestarts")) {
    if (!j["maxRestarts"].is_number_integer() || j["maxRestarts"].get<int64_t>() < 0) {
      return FieldError(source, "maxRestarts", "must be an integer >= 0");
    }
    group.max_restarts = j["maxRestarts"].get<int>();
  }
  if (j.contains("backoffSeconds")) {
    if (!j["backoffSeconds"].is_number() || j["backoffSeconds"].get<double>() < 0) {
      return FieldError(source, "backoffSeconds", "must be a number >= 0");
    }
    group.backoff = absl::Seconds(j["backoffSeconds"].get<double>());
  }
  return group;
}

}  // namespace

bool IsKnownFramework(const std::string& name) {
  return name == "pytorch" || name == "tensorflow" || name == "horovod" || name == "jax" ||
         name == "none";
}

absl::StatusOr<RestartPolicy> ParseRestartPolicy(const std::string& name) {
  if (name == "Never") return RestartPolicy::kNever;
  if (name == "OnFailure") return RestartPolicy::kOnFailure;
  if (name == "ExitCode") return RestartPolicy::kExitCode;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown restart policy '", name, "' (Never, OnFailure, ExitCode)"));
}

bool ShouldRestart(RestartPolicy policy, int exit_code, int signal) {
  switch (policy) {
    case RestartPolicy::kNever:
      return false;
    case RestartPolicy::kOnFailure:
      return true;
    case RestartPolicy::kExitCode:
      return signal != 0 || (exit_code >= 128 && exit_code <= 255);
  }
  return false;
}

absl::StatusOr<GroupSpec> ParseGroupJson(const std::string& text, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": invalid JSON at byte ", e.byte, ": ", e.what()));
  }
  try {
    return ParseGroup(j, source);
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", e.what()));
  }
}

absl::StatusOr<GroupSpec> ReadGroupFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read group file ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseGroupJson(buffer.str(), path);
}

}  // namespace dlp::launch
