// The constraints of dlp-job(5), shared by the YAML decoder (which reports them
// with file:line:column) and ValidateJobSpec (specs built in code or received
// over the API). Each check returns nothing when the value is fine, or what is
// wrong with it, phrased to follow "FIELD.PATH: ".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "contract/names.h"
#include "dlp/job.h"

namespace dlp::internal {

using Problem = std::optional<std::string>;

inline constexpr absl::string_view kApiVersion = "dlp/v1";
inline constexpr absl::string_view kKind = "Job";
// Canonical role order: ranks are numbered chief, ps, worker, evaluator.
inline constexpr std::array<absl::string_view, 4> kRoles = {"chief", "ps", "worker", "evaluator"};
// The job contract's names (contract/names.h), as Abseil's string views.
template <size_t N>
constexpr std::array<absl::string_view, N> AbslNames(const std::array<std::string_view, N>& names) {
  std::array<absl::string_view, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = absl::string_view(names[i].data(), names[i].size());
  return out;
}
inline constexpr auto kFrameworks = AbslNames(contract::kFrameworkNames);
inline constexpr auto kRestartPolicies = AbslNames(contract::kRestartPolicyNames);

inline constexpr int kMaxReplicasPerRole = 1024;
inline constexpr int kMaxRestarts = 100;
inline constexpr int kDefaultMaxRestarts = 3;  // OnFailure / ExitCode without maxRestarts
inline constexpr int kMaxBackoffSeconds = 3600;
inline constexpr int kMaxGpus = 64;
// A log file holds at least one whole line (contract::kMaxLogLineBytes).
inline constexpr int64_t kMinLogMaxBytes = 64 * 1024;

// Index of `role` in kRoles, or -1.
int RoleIndex(absl::string_view role);
std::optional<Framework> FrameworkFromName(absl::string_view name);
std::optional<RestartPolicyKind> RestartPolicyFromName(absl::string_view name);

Problem CheckJobName(absl::string_view name);  // DNS label: "mnist-2"
Problem CheckQueueName(absl::string_view name);
Problem CheckLabelKey(absl::string_view key);  // Kubernetes: [prefix/]name
Problem CheckLabelValue(absl::string_view value);
Problem CheckEnvName(absl::string_view name);
Problem CheckCount(absl::string_view role, int64_t count);
Problem CheckGpu(int64_t gpu);
Problem CheckCpuMillis(int64_t millis);
Problem CheckMemoryBytes(int64_t bytes);
Problem CheckMaxRestarts(RestartPolicyKind policy, int64_t max_restarts);
Problem CheckBackoffSeconds(int64_t seconds);
Problem CheckDeadlineSeconds(int64_t seconds);
Problem CheckPriority(int64_t priority);
Problem CheckLogMaxBytes(int64_t bytes);  // 0 (no limit) or at least kMinLogMaxBytes

}  // namespace dlp::internal
