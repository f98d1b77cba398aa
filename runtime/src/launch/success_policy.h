// spec.successPolicy in dlp-run (dlp-job(5), "Success policy"): when a round
// has succeeded, and how the ranks it then stops are reported. The one rule
// for the local launcher (launcher.cc) and rank 0's round coordinator
// (round_coordinator.cc, for Slurm and pods).
#pragma once

#include <string>
#include <vector>

#include "contract/group.h"
#include "contract/status.h"

namespace dlp::launch {

// True once every rank of the group's success roles has succeeded; with no
// success roles, once every rank has.
bool RoundSucceeded(const contract::Group& group,
                    const std::vector<const contract::RankStatus*>& ranks);
bool RoundSucceeded(const contract::Group& group, const std::vector<contract::RankStatus>& ranks);

// Why a round succeeded while ranks still ran: "every replica of chief exited
// 0 (successPolicy); the other replicas were stopped".
std::string SuccessPolicyReason(const contract::Group& group);

// A rank still running when the round succeeded, which dlp-run stops: its end
// does not count, so it is reported Succeeded with why it was stopped.
void MarkStoppedBySuccessPolicy(const contract::Group& group, contract::RankStatus* rank);

}  // namespace dlp::launch
