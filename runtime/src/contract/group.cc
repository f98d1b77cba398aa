#include "contract/group.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "contract/field_error.h"
#include "contract/files.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp::contract {
namespace {

using Json = nlohmann::json;

constexpr double kMaxBackoffSeconds = 365.0 * 24 * 3600;

// Every access below checks types first, so nlohmann never throws from here;
// ParseGroupJson still catches, as the one adapter for this format.
absl::StatusOr<Role> ParseRole(const Json& j, const std::string& source, const std::string& field) {
  if (!j.is_object()) return FieldError(source, field, "must be an object");
  Role role;
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
  if (j.contains("devices")) {
    const Json& devices = j["devices"];
    if (!devices.is_array() || devices.size() != static_cast<size_t>(role.count)) {
      return FieldError(
          source, field + ".devices",
          absl::StrCat("must be an array of ", role.count, " entries, one per replica"));
    }
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string f = absl::StrCat(field, ".devices[", i, "]");
      const Json& d = devices[i];
      if (!d.is_object() || !d.contains("visible") || !d["visible"].is_string()) {
        return FieldError(source, f, "must be an object with a string \"visible\"");
      }
      ReplicaDevices replica;
      replica.visible = d["visible"].get<std::string>();
      if (replica.visible.find_first_of(" \t\n") != std::string::npos) {
        return FieldError(source, f + ".visible", "must be a device list without spaces");
      }
      if (d.contains("env")) {
        if (!d["env"].is_object()) return FieldError(source, f + ".env", "must be an object");
        for (const auto& [key, value] : d["env"].items()) {
          if (key.empty() || key.find('=') != std::string::npos || !value.is_string()) {
            return FieldError(source, absl::StrCat(f, ".env.", key),
                              "must be a variable name with a string value");
          }
          replica.env[key] = value.get<std::string>();
        }
      }
      role.devices.push_back(std::move(replica));
    }
  }
  return role;
}

// {"roles": [...]}: each one of the group's roles, once.
absl::StatusOr<std::vector<std::string>> ParseSuccessRoles(const Json& j, const Group& group,
                                                           const std::string& source) {
  if (!j.is_object() || !j.contains("roles") || !j["roles"].is_array() || j["roles"].empty()) {
    return FieldError(source, "successPolicy",
                      "must be an object with a non-empty array \"roles\"");
  }
  std::vector<std::string> roles;
  for (const Json& entry : j["roles"]) {
    const std::string name = entry.is_string() ? entry.get<std::string>() : "";
    const bool known = std::any_of(group.roles.begin(), group.roles.end(),
                                   [&name](const Role& r) { return r.role == name; });
    if (!known || std::find(roles.begin(), roles.end(), name) != roles.end()) {
      return FieldError(source, "successPolicy.roles",
                        "must name each of the group's roles at most once");
    }
    roles.push_back(name);
  }
  return roles;
}

absl::StatusOr<Group> ParseGroup(const Json& j, const std::string& source) {
  if (!j.is_object()) return FieldError(source, "(top)", "must be an object");
  Group group;
  if (j.contains("framework")) {
    std::optional<Framework> framework;
    if (j["framework"].is_string()) framework = ParseFramework(j["framework"].get<std::string>());
    if (!framework) {
      return FieldError(source, "framework", "must be one of " + FrameworkNameList());
    }
    group.framework = *framework;
  }
  if (j.contains("workdir")) {
    if (!j["workdir"].is_string()) return FieldError(source, "workdir", "must be a string");
    group.workdir = j["workdir"].get<std::string>();
  }
  if (!j.contains("roles") || !j["roles"].is_array() || j["roles"].empty()) {
    return FieldError(source, "roles", "must be a non-empty array");
  }
  for (size_t i = 0; i < j["roles"].size(); ++i) {
    DLP_ASSIGN_OR_RETURN(Role role,
                         ParseRole(j["roles"][i], source, absl::StrCat("roles[", i, "]")));
    for (const Role& other : group.roles) {
      if (other.role == role.role) {
        return FieldError(source, absl::StrCat("roles[", i, "].role"),
                          absl::StrCat("duplicate role '", role.role, "'"));
      }
    }
    group.roles.push_back(std::move(role));
  }
  if (j.contains("restartPolicy")) {
    std::optional<RestartPolicy> policy;
    if (j["restartPolicy"].is_string()) {
      policy = ParseRestartPolicy(j["restartPolicy"].get<std::string>());
    }
    if (!policy) {
      return FieldError(source, "restartPolicy", "must be one of " + RestartPolicyNameList());
    }
    group.restart_policy = *policy;
  }
  if (j.contains("maxRestarts")) {
    if (!j["maxRestarts"].is_number_integer() || j["maxRestarts"].get<int64_t>() < 0) {
      return FieldError(source, "maxRestarts", "must be an integer >= 0");
    }
    group.max_restarts = j["maxRestarts"].get<int>();
  }
  if (j.contains("successPolicy")) {
    DLP_ASSIGN_OR_RETURN(group.success_roles, ParseSuccessRoles(j["successPolicy"], group, source));
  }
  if (j.contains("restartCount")) {
    if (!j["restartCount"].is_number_integer() || j["restartCount"].get<int64_t>() < 0 ||
        j["restartCount"].get<int64_t>() > 1000000) {
      return FieldError(source, "restartCount", "must be an integer >= 0");
    }
    group.restart_count = j["restartCount"].get<int>();
  }
  if (j.contains("jobMaxRestarts")) {
    if (!j["jobMaxRestarts"].is_number_integer() || j["jobMaxRestarts"].get<int64_t>() < 0 ||
        j["jobMaxRestarts"].get<int64_t>() > 1000000) {
      return FieldError(source, "jobMaxRestarts", "must be an integer >= 0");
    }
    group.job_max_restarts = j["jobMaxRestarts"].get<int>();
  }
  if (j.contains("backoffSeconds")) {
    // At most a year: a longer wait is a mistake, and the bound keeps the
    // value an exact integer when written back.
    if (!j["backoffSeconds"].is_number() || !(j["backoffSeconds"].get<double>() >= 0) ||
        j["backoffSeconds"].get<double>() > kMaxBackoffSeconds) {
      return FieldError(source, "backoffSeconds", "must be a number between 0 and 31536000");
    }
    group.backoff = absl::Seconds(j["backoffSeconds"].get<double>());
  }
  if (j.contains("logs")) {
    const Json& logs = j["logs"];
    if (!logs.is_object()) return FieldError(source, "logs", "must be an object");
    if (logs.contains("maxBytes")) {
      if (!logs["maxBytes"].is_number_integer() || logs["maxBytes"].get<int64_t>() < 0) {
        return FieldError(source, "logs.maxBytes", "must be an integer >= 0");
      }
      group.log_max_bytes = logs["maxBytes"].get<int64_t>();
    }
  }
  return group;
}

}  // namespace

std::string GroupToJson(const Group& group) {
  nlohmann::ordered_json j;
  j["framework"] = std::string(FrameworkName(group.framework));
  j["workdir"] = group.workdir;
  nlohmann::ordered_json roles = nlohmann::ordered_json::array();
  for (const Role& r : group.roles) {
    nlohmann::ordered_json role;
    role["role"] = r.role;
    role["count"] = r.count;
    role["command"] = r.command;
    role["env"] = r.env;
    role["gpus"] = r.gpus;
    if (!r.devices.empty()) {
      nlohmann::ordered_json devices = nlohmann::ordered_json::array();
      for (const ReplicaDevices& d : r.devices) {
        nlohmann::ordered_json entry;
        entry["visible"] = d.visible;
        if (!d.env.empty()) entry["env"] = d.env;
        devices.push_back(std::move(entry));
      }
      role["devices"] = std::move(devices);
    }
    roles.push_back(std::move(role));
  }
  j["roles"] = std::move(roles);
  j["restartPolicy"] = std::string(RestartPolicyName(group.restart_policy));
  j["maxRestarts"] = group.max_restarts;
  if (!group.success_roles.empty()) j["successPolicy"] = {{"roles", group.success_roles}};
  if (group.restart_count > 0) j["restartCount"] = group.restart_count;
  if (group.job_max_restarts > 0) j["jobMaxRestarts"] = group.job_max_restarts;
  const double backoff = absl::ToDoubleSeconds(group.backoff);
  // (The range check first: casting a double outside int64_t's range is undefined.)
  if (std::fabs(backoff) <= kMaxBackoffSeconds && backoff == static_cast<int64_t>(backoff)) {
    j["backoffSeconds"] = static_cast<int64_t>(backoff);
  } else {
    j["backoffSeconds"] = backoff;
  }
  if (group.log_max_bytes > 0) j["logs"] = {{"maxBytes", group.log_max_bytes}};
  return j.dump(2) + "\n";
}

absl::StatusOr<Group> ParseGroupJson(const std::string& text, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": invalid JSON at byte ", e.byte, ": ", e.what()));
  } catch (const Json::exception& e) {  // out_of_range: a number too large (1e999)
    return absl::InvalidArgumentError(absl::StrCat(source, ": invalid JSON: ", e.what()));
  }
  try {
    return ParseGroup(j, source);
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", e.what()));
  }
}

absl::StatusOr<Group> ReadGroupFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read group file ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseGroupJson(buffer.str(), path);
}

absl::Status WriteGroupFile(const std::string& path, const Group& group, base::FileSync sync) {
  return base::WriteFileAtomically(path, GroupToJson(group), 0600, sync);
}

}  // namespace dlp::contract
