#include "launch/round_coordinator.h"

#include <signal.h>

#include <algorithm>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "launch/success_policy.h"

namespace dlp::launch {

std::string RoundKeys::Base() { return "dlp-run/base"; }
std::string RoundKeys::Events(int round) { return absl::StrCat("dlp-run/r", round, "/events"); }
std::string RoundKeys::Event(int round, int n) {
  return absl::StrCat("dlp-run/r", round, "/event/", n);
}
std::string RoundKeys::Decision(int round) { return absl::StrCat("dlp-run/r", round, "/decision"); }
std::string RoundKeys::Ack(int round, int rank) {
  return absl::StrCat("dlp-run/r", round, "/ack/", rank);
}

std::string StartEvent(int rank, int64_t pid, const std::string& host) {
  return absl::StrCat("start ", rank, " ", pid, " ", host);
}

std::string ExitEvent(int rank, const contract::RankStatus& status) {
  std::string event = absl::StrCat("exit ", rank, " ", status.exit_code.value_or(0), " ",
                                   status.signal.value_or(0));
  if (!status.reason.empty()) {
    absl::StrAppend(&event, " ", status.reason.substr(0, kMaxEventReasonBytes));
  }
  return event;
}

int JobExitCode(const contract::RankStatus& r) {
  return r.signal ? 128 + *r.signal : r.exit_code.value_or(1);
}

RoundCoordinator::RoundCoordinator(const contract::Group& group, const RankLayout& layout,
                                   std::function<void(const std::string&)> notify)
    : group_(group), notify_(std::move(notify)) {
  for (const RankPlan& plan : layout.ranks) {
    contract::RankStatus r;
    r.name = plan.name;
    r.role = plan.role;
    r.index = plan.index;
    r.rank = plan.rank;
    r.host = plan.host;
    status_.replicas.push_back(r);
  }
}

void RoundCoordinator::StartRound(int round) {
  round_ = round;
  status_.restarts = round;
  status_.state = std::string(contract::kStarting);
  for (contract::RankStatus& r : status_.replicas) {
    r = contract::RankStatus{r.name, r.role, r.index, r.rank, r.host};
  }
}

std::optional<std::string> RoundCoordinator::OnEvent(const std::string& event) {
  std::vector<std::string> words = absl::StrSplit(event, absl::MaxSplits(' ', 3));
  int rank = -1;
  if (words.size() < 4 || !absl::SimpleAtoi(words[1], &rank) || rank < 0 ||
      rank >= static_cast<int>(status_.replicas.size())) {
    return std::nullopt;
  }
  contract::RankStatus& r = status_.replicas[rank];
  if (words[0] == "start") {
    (void)absl::SimpleAtoi(words[2], &r.pid);
    r.pgid = r.pid;
    r.host = words[3];
    r.state = std::string(contract::kRunning);
    if (std::all_of(status_.replicas.begin(), status_.replicas.end(),
                    [](const auto& x) { return x.state != contract::kStarting; })) {
      status_.state = std::string(contract::kRunning);
    }
    return std::nullopt;
  }
  if (words[0] != "exit") return std::nullopt;
  int code = 0, sig = 0;
  // "SIGNAL" or "SIGNAL REASON".
  std::vector<std::string> rest = absl::StrSplit(words[3], absl::MaxSplits(' ', 1));
  (void)absl::SimpleAtoi(words[2], &code);
  (void)absl::SimpleAtoi(rest[0], &sig);
  r.reason = rest.size() > 1 ? rest[1].substr(0, kMaxEventReasonBytes) : "";
  r.exit_code.reset();
  r.signal.reset();
  if (sig != 0) {
    r.signal = sig;
  } else {
    r.exit_code = code;
  }
  if (code != 0 || sig != 0) {
    r.state = std::string(contract::kFailed);
    return Decide(r);
  }
  r.state = std::string(contract::kSucceeded);
  if (!RoundSucceeded(group_, status_.replicas)) return std::nullopt;
  // The tasks stop what still runs once they read "done"; its end does not count.
  bool stopping = false;
  for (contract::RankStatus& other : status_.replicas) {
    if (other.state == contract::kRunning || other.state == contract::kStarting) {
      MarkStoppedBySuccessPolicy(group_, &other);
      stopping = true;
    }
  }
  status_.state = std::string(contract::kSucceeded);
  status_.reason = stopping ? SuccessPolicyReason(group_) : "";
  if (stopping && notify_) notify_(status_.reason);
  return std::string(kDone);
}

std::string RoundCoordinator::Decide(const contract::RankStatus& failed) {
  const std::string failure = contract::DescribeRankEnd(failed);
  const int exit_code = JobExitCode(failed);
  if (notify_) notify_(absl::StrCat(failure, "; stopping the other ranks"));
  // The tasks stop what still runs with SIGTERM once they read the decision.
  for (contract::RankStatus& other : status_.replicas) {
    if (other.state == contract::kRunning || other.state == contract::kStarting) {
      other.state = std::string(contract::kFailed);
      other.signal = SIGTERM;
    }
  }
  status_.reason = failure;
  if (round_ < group_.max_restarts &&
      contract::ShouldRestart(group_.restart_policy, failed.exit_code.value_or(0),
                              failed.signal.value_or(0))) {
    if (notify_) {
      notify_(absl::StrCat("attempt ", round_, " exited with code ", exit_code, "; restart ",
                           round_ + 1, " of ", group_.max_restarts));
    }
    return std::string(kRestart);
  }
  if (group_.max_restarts > 0 && notify_) {
    notify_(
        absl::StrCat("attempt ", round_, " exited with code ", exit_code, "; no restarts left"));
  }
  status_.state = std::string(contract::kFailed);
  return absl::StrCat(kFail, " ", exit_code);
}

}  // namespace dlp::launch
