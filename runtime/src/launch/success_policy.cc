#include "launch/success_policy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dlp::launch {

bool RoundSucceeded(const contract::Group& group,
                    const std::vector<const contract::RankStatus*>& ranks) {
  const std::vector<std::string>& roles = group.success_roles;
  return std::all_of(ranks.begin(), ranks.end(), [&roles](const contract::RankStatus* r) {
    const bool counts =
        roles.empty() || std::find(roles.begin(), roles.end(), r->role) != roles.end();
    return !counts || r->state == contract::kSucceeded;
  });
}

bool RoundSucceeded(const contract::Group& group, const std::vector<contract::RankStatus>& ranks) {
  std::vector<const contract::RankStatus*> pointers;
  for (const contract::RankStatus& r : ranks) pointers.push_back(&r);
  return RoundSucceeded(group, pointers);
}

std::string SuccessPolicyReason(const contract::Group& group) {
  return absl::StrCat("every replica of ", absl::StrJoin(group.success_roles, ", "),
                      " exited 0 (successPolicy); the other replicas were stopped");
}

void MarkStoppedBySuccessPolicy(const contract::Group& group, contract::RankStatus* rank) {
  const std::string roles = absl::StrJoin(group.success_roles, ", ");
  rank->state = std::string(contract::kSucceeded);
  rank->reason = absl::StrCat("stopped: every replica of ", roles, " exited 0 (successPolicy)");
}

}  // namespace dlp::launch
