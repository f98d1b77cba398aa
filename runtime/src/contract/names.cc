#include "contract/names.h"

namespace dlp::contract {
namespace {

template <size_t N>
std::string JoinNames(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace

std::string FrameworkNameList() { return JoinNames(kFrameworkNames); }
std::string RestartPolicyNameList() { return JoinNames(kRestartPolicyNames); }

std::string_view FrameworkName(Framework framework) {
  switch (framework) {
    case Framework::kPyTorch:
      return kFrameworkNames[0];
    case Framework::kTensorFlow:
      return kFrameworkNames[1];
    case Framework::kHorovod:
      return kFrameworkNames[2];
    case Framework::kJax:
      return kFrameworkNames[3];
    case Framework::kNone:
      break;
  }
  return kFrameworkNames[4];
}

std::optional<Framework> ParseFramework(std::string_view name) {
  for (Framework f : {Framework::kPyTorch, Framework::kTensorFlow, Framework::kHorovod,
                      Framework::kJax, Framework::kNone}) {
    if (FrameworkName(f) == name) return f;
  }
  return std::nullopt;
}

std::string_view RestartPolicyName(RestartPolicy policy) {
  switch (policy) {
    case RestartPolicy::kOnFailure:
      return kRestartPolicyNames[1];
    case RestartPolicy::kExitCode:
      return kRestartPolicyNames[2];
    case RestartPolicy::kNever:
      break;
  }
  return kRestartPolicyNames[0];
}

std::optional<RestartPolicy> ParseRestartPolicy(std::string_view name) {
  for (RestartPolicy p :
       {RestartPolicy::kNever, RestartPolicy::kOnFailure, RestartPolicy::kExitCode}) {
    if (RestartPolicyName(p) == name) return p;
  }
  return std::nullopt;
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

}  // namespace dlp::contract
