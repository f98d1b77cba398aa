#include "spec/rules.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/strings/string_view_compat.h"
#include "dlp/spec.h"
#include "spec/suggest.h"
#include "spec/text.h"

namespace dlp::internal {
namespace {

bool IsLowerAlnum(char c) {
  return absl::ascii_isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'z');
}
bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

// RFC 1123 label: lowercase letters, digits and '-', alphanumeric at both ends.
bool IsDnsLabel(absl::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// Kubernetes "qualified name" part: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, <= 63.
bool IsQualifiedName(absl::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool IsDnsSubdomain(absl::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (start <= s.size()) {
    size_t dot = s.find('.', start);
    if (dot == absl::string_view::npos) dot = s.size();
    if (!IsDnsLabel(s.substr(start, dot - start))) return false;
    start = dot + 1;
  }
  return true;
}

std::string DnsLabelProblem(absl::string_view what, absl::string_view value) {
  return absl::StrFormat(
      "\"%s\" is not a valid %s; expected lowercase letters, digits and '-', starting and "
      "ending with a letter or digit, at most 63 characters (e.g. mnist-2)",
      absl::CHexEscape(value), what);
}

}  // namespace

int RoleIndex(absl::string_view role) {
  for (size_t i = 0; i < kRoles.size(); ++i) {
    if (kRoles[i] == role) return static_cast<int>(i);
  }
  return -1;
}

Problem CheckJobName(absl::string_view name) {
  if (name.empty()) return "required; a job needs a name (or pass --name)";
  if (!IsDnsLabel(name)) return DnsLabelProblem("job name", name);
  return std::nullopt;
}

Problem CheckDependencyJob(absl::string_view job) {
  if (job.empty()) return "required; a job id or name";
  if (!IsDnsLabel(job)) return DnsLabelProblem("job id or name", job);
  return std::nullopt;
}

Problem CheckDependencyCount(size_t count) {
  if (count <= static_cast<size_t>(kMaxDependencies)) return std::nullopt;
  return absl::StrFormat("%d dependencies; at most %d", count, kMaxDependencies);
}

Problem CheckSuccessRoleCount(size_t count) {
  if (count > 0) return std::nullopt;
  return "needs at least one role, e.g. roles: [chief]; leave successPolicy out for the "
         "default (every replica must succeed)";
}

Problem CheckSuccessRole(absl::string_view role, const std::vector<ReplicaSpec>& replicas) {
  std::vector<absl::string_view> roles;
  for (const ReplicaSpec& r : replicas) {
    if (r.role == role) return std::nullopt;
    roles.push_back(r.role);
  }
  // The name is the writer's text: escaped and cut short in the message.
  const std::string shown = absl::CHexEscape(role.substr(0, 64));
  if (roles.empty()) return absl::StrCat("unknown role \"", shown, "\"; the job has no replicas");
  return UnknownName("role", shown, roles);
}

Problem CheckQueueName(absl::string_view name) {
  if (!IsDnsLabel(name)) return DnsLabelProblem("queue name", name);
  return std::nullopt;
}

Problem CheckLabelKey(absl::string_view key) {
  absl::string_view name = key;
  const size_t slash = key.rfind('/');
  if (slash != absl::string_view::npos) {
    absl::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (!IsDnsSubdomain(prefix)) {
      return absl::StrFormat(
          "\"%s\" is not a valid label key; its prefix \"%s\" must be a DNS subdomain "
          "(e.g. example.com/team)",
          absl::CHexEscape(key), absl::CHexEscape(prefix));
    }
  }
  if (!IsQualifiedName(name)) {
    return absl::StrFormat(
        "\"%s\" is not a valid label key; expected letters, digits, '-', '_' and '.', starting "
        "and ending with a letter or digit, at most 63 characters, optionally after a "
        "DNS prefix and '/' (e.g. team or example.com/team)",
        absl::CHexEscape(key));
  }
  return std::nullopt;
}

Problem CheckLabelValue(absl::string_view value) {
  if (value.empty() || IsQualifiedName(value)) return std::nullopt;
  return absl::StrFormat(
      "\"%s\" is not a valid label value; expected letters, digits, '-', '_' and '.', starting "
      "and ending with a letter or digit, at most 63 characters",
      absl::CHexEscape(value));
}

Problem CheckEnvName(absl::string_view name) {
  bool ok = !name.empty() && !absl::ascii_isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (IsAlnum(c) || c == '_');
  if (ok && name.size() > kMaxEnvNameBytes) {
    return absl::StrFormat("an environment variable name of %d characters; at most %d", name.size(),
                           kMaxEnvNameBytes);
  }
  if (ok) return std::nullopt;
  return absl::StrFormat(
      "\"%s\" is not a valid environment variable name; expected letters, digits and '_', "
      "not starting with a digit",
      absl::CHexEscape(name.substr(0, 100)));
}

Problem CheckLabelCount(size_t labels) {
  if (labels <= static_cast<size_t>(kMaxLabels)) return std::nullopt;
  return absl::StrFormat("%d labels; at most %d", labels, kMaxLabels);
}

Problem CheckEnv(const std::map<std::string, std::string>& env) {
  if (env.size() > static_cast<size_t>(kMaxEnvVars)) {
    return absl::StrFormat("%d environment variables (spec.env included); at most %d", env.size(),
                           kMaxEnvVars);
  }
  size_t bytes = 0;  // as execve counts them: NAME=VALUE and a NUL each
  for (const auto& [name, value] : env) bytes += name.size() + value.size() + 2;
  if (bytes > kMaxEnvBytes) {
    return absl::StrFormat(
        "the environment takes %d bytes (spec.env included); at most %d (%d KiB)", bytes,
        kMaxEnvBytes, kMaxEnvBytes >> 10);
  }
  for (const auto& [name, value] : env) {
    if (Problem p = CheckText(value)) return absl::StrCat(name, ": ", *p);
  }
  return std::nullopt;
}

Problem CheckCommand(const std::vector<std::string>& command) {
  if (command.empty() || command[0].empty()) {
    return "must name a program to run; e.g. command: [python3, train.py]";
  }
  if (command.size() > static_cast<size_t>(kMaxCommandArgs)) {
    return absl::StrFormat("%d arguments; at most %d", command.size(), kMaxCommandArgs);
  }
  size_t bytes = 0;
  for (const std::string& arg : command) bytes += arg.size() + 1;
  if (bytes > kMaxCommandBytes) {
    return absl::StrFormat("the command takes %d bytes; at most %d (%d KiB)", bytes,
                           kMaxCommandBytes, kMaxCommandBytes >> 10);
  }
  for (size_t i = 0; i < command.size(); ++i) {
    if (Problem p = CheckText(command[i])) return absl::StrCat("[", i, "]: ", *p);
  }
  return std::nullopt;
}

Problem CheckWorkdir(absl::string_view workdir) {
  if (workdir.size() > kMaxWorkdirBytes) {
    return absl::StrFormat("a path of %d bytes; at most %d", workdir.size(), kMaxWorkdirBytes);
  }
  return CheckText(workdir);
}

Problem CheckImage(absl::string_view image) {
  if (image.empty()) return "must not be empty; leave it out for the context's image";
  if (image.size() > kMaxImageBytes) {
    return absl::StrFormat("an image reference of %d bytes; at most %d", image.size(),
                           kMaxImageBytes);
  }
  for (char c : image) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c))) {
      return "must be an image reference such as registry.example.com/team/train:1.0 "
             "(printable characters, no spaces)";
    }
  }
  return std::nullopt;
}

Problem CheckText(absl::string_view text) {
  std::optional<TextFault> fault = FindTextFault(text);
  if (!fault) return std::nullopt;
  return absl::StrFormat("holds %s at byte %d; text must be UTF-8 without NUL", fault->what,
                         fault->offset);
}

Problem CheckCount(absl::string_view role, int64_t count) {
  if (count < 1 || count > kMaxReplicasPerRole) {
    return absl::StrFormat("must be between 1 and %d, got %d (leave the role out to run none)",
                           kMaxReplicasPerRole, count);
  }
  if (role == "chief" && count != 1) {
    return absl::StrFormat("a job has exactly one chief, got %d; use worker for more", count);
  }
  return std::nullopt;
}

Problem CheckMinCount(absl::string_view role, int64_t min_count, int64_t count) {
  if (min_count < 1 || min_count > count) {
    return absl::StrFormat("must be between 1 and count (%d), got %d", count, min_count);
  }
  if (min_count < count && role != "worker") {
    return absl::StrFormat(
        "only worker may be elastic (minCount below count); %s runs whole, so leave "
        "minCount out or set it to %d",
        role, count);
  }
  return std::nullopt;
}

Problem CheckTotalReplicas(int64_t total) {
  if (total <= kMaxReplicas) return std::nullopt;
  return absl::StrFormat("%d replicas in all roles together; at most %d", total, kMaxReplicas);
}

Problem CheckGpuMillis(int64_t millis) {
  if (millis < 0 || millis > int64_t{kMaxGpus} * 1000) {
    return absl::StrFormat("must be between 0 and %d GPUs per replica, got %s", kMaxGpus,
                           FormatGpuMillis(millis));
  }
  if (millis > 1000 && millis % 1000 != 0) {
    return absl::StrFormat(
        "got %s: a fraction above 1 cannot be packed on one device; ask for whole GPUs (%d or "
        "%d) or a fraction below 1",
        FormatGpuMillis(millis), millis / 1000, millis / 1000 + 1);
  }
  return std::nullopt;
}

Problem CheckGpuType(absl::string_view gpu_type) {
  if (gpu_type.empty()) return "must not be empty; leave it out for any GPU";
  if (gpu_type.size() > kMaxGpuTypeBytes) {
    return absl::StrFormat("must be at most %d characters", kMaxGpuTypeBytes);
  }
  for (char c : gpu_type) {
    if (!absl::ascii_isprint(static_cast<unsigned char>(c))) {
      return "must be a flavour such as h200 or a device name such as \"NVIDIA H200\"";
    }
  }
  return std::nullopt;
}

Problem CheckCpuMillis(int64_t millis) {
  if (millis <= 0) return absl::StrFormat("must be more than 0 CPUs, got %dm", millis);
  if (millis > kMaxCpuMillis) {
    return absl::StrFormat("must be at most %d CPUs per replica, got %s", kMaxCpuMillis / 1000,
                           FormatCpuMillis(millis));
  }
  return std::nullopt;
}

Problem CheckMemoryBytes(int64_t bytes) {
  if (bytes < 0) return absl::StrFormat("must not be negative, got %d bytes", bytes);
  if (bytes > kMaxMemoryBytes) {
    return absl::StrFormat("must be at most %s per replica, got %s",
                           FormatMemoryBytes(kMaxMemoryBytes), FormatMemoryBytes(bytes));
  }
  return std::nullopt;
}

Problem CheckMaxRestarts(RestartPolicyKind policy, int64_t max_restarts) {
  if (policy == RestartPolicyKind::kNever) {
    if (max_restarts != 0) {
      return absl::StrFormat(
          "policy Never never restarts, so maxRestarts must be 0 or left out, got %d; "
          "use policy OnFailure or ExitCode to restart",
          max_restarts);
    }
    return std::nullopt;
  }
  if (max_restarts < 1 || max_restarts > kMaxRestarts) {
    return absl::StrFormat("must be between 1 and %d with policy %s, got %d", kMaxRestarts,
                           std::string(RestartPolicyName(policy)).c_str(), max_restarts);
  }
  return std::nullopt;
}

Problem CheckBackoffSeconds(int64_t seconds) {
  if (seconds < 0 || seconds > kMaxBackoffSeconds) {
    return absl::StrFormat("must be between 0 and %d seconds, got %d", kMaxBackoffSeconds, seconds);
  }
  return std::nullopt;
}

Problem CheckPreemptionGraceSeconds(int64_t seconds) {
  if (seconds < 0 || seconds > kMaxPreemptionGraceSeconds) {
    return absl::StrFormat("must be between 0 and %d seconds, got %d", kMaxPreemptionGraceSeconds,
                           seconds);
  }
  return std::nullopt;
}

Problem CheckDeadlineSeconds(int64_t seconds) {
  if (seconds < 0) {
    return absl::StrFormat("must be 0 (no deadline) or a positive number of seconds, got %d",
                           seconds);
  }
  if (seconds > kMaxDeadlineSeconds) {
    return absl::StrFormat("must be at most %d seconds (366 days), got %d", kMaxDeadlineSeconds,
                           seconds);
  }
  return std::nullopt;
}

std::optional<int> PriorityClassValue(absl::string_view name) {
  for (const PriorityClass& c : kPriorityClasses) {
    if (c.name == name) return c.value;
  }
  return std::nullopt;
}

Problem CheckPriority(int64_t priority) {
  constexpr int64_t kLimit = 1000000;
  if (priority < -kLimit || priority > kLimit) {
    return absl::StrFormat("must be between %d and %d, got %d", -kLimit, kLimit, priority);
  }
  return std::nullopt;
}

Problem CheckLogMaxBytes(int64_t bytes) {
  if (bytes != 0 && (bytes < kMinLogMaxBytes || bytes > kMaxLogMaxBytes)) {
    return absl::StrFormat("must be 0 (the default, 64Mi) or between 64Ki and 1Ti bytes, got %d", bytes);
  }
  return std::nullopt;
}

}  // namespace dlp::internal
