// Rank 0's side of `srun dlp-run --group` and of pods (group_task.h): the protocol the
// tasks speak through the rendezvous store, and the coordinator that turns
// their events into the group's status and one decision per round.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "contract/group.h"
#include "contract/status.h"
#include "launch/rank_layout.h"

namespace dlp::launch {

// The store keys of the coordination, all under "dlp-run/".
struct RoundKeys {
  static std::string Base();                    // the first round, or kNoRound
  static std::string Events(int round);         // counter numbering the events
  static std::string Event(int round, int n);   // the n-th event (n from 1)
  static std::string Decision(int round);       // kDone, kRestart or "kFail CODE"
  static std::string Ack(int round, int rank);  // a task has read the final decision
};

inline constexpr char kEnd[] = "end";  // the last event rank 0 reads in a round
inline constexpr char kDone[] = "done";
inline constexpr char kRestart[] = "restart";
inline constexpr char kFail[] = "fail";
inline constexpr char kNoRound[] = "none";

// "start RANK PID HOST" and "exit RANK CODE SIGNAL[ REASON]": the reason is the
// rank's own (contract::RankStatus::reason, "could not start: ..."), cut to
// kMaxEventReasonBytes, so that rank 0's status says why a rank on another
// node ended.
inline constexpr size_t kMaxEventReasonBytes = 1024;
std::string StartEvent(int rank, int64_t pid, const std::string& host);
std::string ExitEvent(int rank, const contract::RankStatus& status);

// The exit code a rank's end gives the job: its code, or 128+N for signal N.
int JobExitCode(const contract::RankStatus& rank);

// Keeps the group's status from the events of a round and decides it: done
// once every rank succeeded, or every rank of the success policy's roles
// (launch/success_policy.h); at the first failure before that, restart when the policy
// and the restarts left allow it, else fail with that rank's exit code.
// Not thread-safe.
class RoundCoordinator {
 public:
  RoundCoordinator(const contract::Group& group, const RankLayout& layout,
                   std::function<void(const std::string&)> notify);

  // Every rank Starting; `round` is the status file's restart count.
  void StartRound(int round);
  // Applies one event; returns the round's decision once there is one.
  std::optional<std::string> OnEvent(const std::string& event);

  contract::GroupStatus& status() { return status_; }

 private:
  std::string Decide(const contract::RankStatus& failed);

  const contract::Group& group_;
  std::function<void(const std::string&)> notify_;
  contract::GroupStatus status_;
  int round_ = 0;
};

}  // namespace dlp::launch
