// The frameworks and restart policies of a job, and their names: the only
// place they are defined and spelled (job specs, the JSON API, group files,
// dlp-run flags). Public, with the runtime, so that both layers share it.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace dlp {

enum class Framework { kNone, kPyTorch, kTensorFlow, kHorovod, kJax };

enum class RestartPolicyKind {
  kNever,      // a failed replica fails the job
  kOnFailure,  // restart the whole group on any failure, up to max_restarts
  kExitCode,   // restart only for exit codes 128-255 or death by signal (as Kubeflow)
};

// Each value with its name, in the order messages list them.
inline constexpr std::array<std::pair<Framework, std::string_view>, 5> kFrameworkTable = {{
    {Framework::kPyTorch, "pytorch"},
    {Framework::kTensorFlow, "tensorflow"},
    {Framework::kHorovod, "horovod"},
    {Framework::kJax, "jax"},
    {Framework::kNone, "none"},
}};
inline constexpr std::array<std::pair<RestartPolicyKind, std::string_view>, 3>
    kRestartPolicyTable = {{
        {RestartPolicyKind::kNever, "Never"},
        {RestartPolicyKind::kOnFailure, "OnFailure"},
        {RestartPolicyKind::kExitCode, "ExitCode"},
    }};

// The name of `value` in `table` (every value is listed), and the value of a
// name (nullopt for any other): the one name <-> enum lookup.
template <typename T, size_t N>
constexpr std::string_view NameIn(const std::array<std::pair<T, std::string_view>, N>& table,
                                  T value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return {};
}
template <typename T, size_t N>
constexpr std::optional<T> ValueIn(const std::array<std::pair<T, std::string_view>, N>& table,
                                   std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

constexpr std::string_view FrameworkName(Framework framework) {  // "pytorch", ..., "none"
  return NameIn(kFrameworkTable, framework);
}
constexpr std::optional<Framework> ParseFramework(std::string_view name) {
  return ValueIn(kFrameworkTable, name);
}
constexpr std::string_view RestartPolicyName(RestartPolicyKind kind) {  // "Never", ...
  return NameIn(kRestartPolicyTable, kind);
}
constexpr std::optional<RestartPolicyKind> ParseRestartPolicy(std::string_view name) {
  return ValueIn(kRestartPolicyTable, name);
}

}  // namespace dlp
