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
