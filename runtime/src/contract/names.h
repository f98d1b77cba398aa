// The job contract's frameworks and restart policies: the public enums and
// their one table of names (dlp/job_kinds.h), under the contract's names.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "dlp/job_kinds.h"

namespace dlp::contract {

using Framework = ::dlp::Framework;
using RestartPolicy = ::dlp::RestartPolicyKind;
using ::dlp::FrameworkName;
using ::dlp::ParseFramework;
using ::dlp::ParseRestartPolicy;
using ::dlp::RestartPolicyName;

template <typename T, size_t N>
constexpr std::array<std::string_view, N> NamesOf(
    const std::array<std::pair<T, std::string_view>, N>& table) {
  std::array<std::string_view, N> names{};
  for (size_t i = 0; i < N; ++i) names[i] = table[i].second;
  return names;
}
inline constexpr auto kFrameworkNames = NamesOf(kFrameworkTable);
inline constexpr auto kRestartPolicyNames = NamesOf(kRestartPolicyTable);

// "pytorch, tensorflow, horovod, jax, none" / "Never, OnFailure, ExitCode", for messages.
std::string FrameworkNameList();
std::string RestartPolicyNameList();

// Whether a rank that ended this way may be restarted under `policy`.
bool ShouldRestart(RestartPolicy policy, int exit_code, int signal);

}  // namespace dlp::contract
