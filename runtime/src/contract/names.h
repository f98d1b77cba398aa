// The names the job contract uses for frameworks and restart policies: the
// only place where they are spelled (group files, job specs, dlp-run flags).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace dlp::contract {

enum class Framework { kNone, kPyTorch, kTensorFlow, kHorovod, kJax };

enum class RestartPolicy {
  kNever,      // a failed rank fails the group
  kOnFailure,  // restart the group on any failure
  kExitCode,   // restart only for exit codes 128-255 or death by signal
};

inline constexpr std::array<std::string_view, 5> kFrameworkNames = {"pytorch", "tensorflow",
                                                                    "horovod", "jax", "none"};
inline constexpr std::array<std::string_view, 3> kRestartPolicyNames = {"Never", "OnFailure",
                                                                        "ExitCode"};

// "pytorch, tensorflow, horovod, jax, none" / "Never, OnFailure, ExitCode", for messages.
std::string FrameworkNameList();
std::string RestartPolicyNameList();

std::string_view FrameworkName(Framework framework);  // "pytorch", ..., "none"
std::optional<Framework> ParseFramework(std::string_view name);

std::string_view RestartPolicyName(RestartPolicy policy);  // "Never", "OnFailure", "ExitCode"
std::optional<RestartPolicy> ParseRestartPolicy(std::string_view name);

// Whether a rank that ended this way may be restarted under `policy`.
bool ShouldRestart(RestartPolicy policy, int exit_code, int signal);

}  // namespace dlp::contract
