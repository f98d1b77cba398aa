// One running rank as the launcher sees it: its process group, the pipes of
// its stdout and stderr (split into lines for its writer), its readiness
// (a remote rank is ready when its ready marker arrives) and its end.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/process/spawn.h"
#include "contract/status.h"
#include "launch/output.h"
#include "launch/rank_layout.h"

namespace dlp::launch {

class RankProcess {
 public:
  RankProcess(RankPlan plan, std::unique_ptr<LineWriter> writer);
  ~RankProcess();
  RankProcess(const RankProcess&) = delete;
  RankProcess& operator=(const RankProcess&) = delete;

  // Starts a new incarnation. A command that cannot be executed leaves the
  // rank Failed with exit code 127 and returns the reason.
  absl::Status Start(base::SpawnOptions options);

  // Appends the open pipes to `fds` (for poll) and handles their events.
  void CollectPollFds(std::vector<pollfd>* fds) const;
  void OnPollEvent(const pollfd& fd);

  // Reaps the process if it ended; true when it did just now.
  bool Reap();
  // Signals the whole process group (also after the leader ended, for leftovers).
  void SignalGroup(int signo);
  // Closes the remote rank's stdin: its watchdog then stops the command.
  void CloseStdin();
  // Writes `line` and a newline to the rank's stdin pipe (the job's secret
  // for a remote rank, ssh_command.h); fails when there is no pipe.
  absl::Status WriteStdinLine(const std::string& line);
  // Reads whatever is left in the pipes without waiting, then closes them.
  void DrainAndClose();

  const RankPlan& plan() const { return plan_; }
  const contract::RankStatus& status() const { return status_; }
  bool running() const { return pid_ > 0 && !exited_; }
  bool exited() const { return exited_; }
  bool ready() const { return ready_; }
  bool failed() const { return status_.state == "Failed"; }
  // "rank 2 (worker-2) on host h exited with code 3" / "... killed by signal 9 (Killed)".
  std::string Describe() const;

 private:
  void ReadFrom(int* fd, LineSplitter* splitter);
  RankPlan plan_;
  std::unique_ptr<LineWriter> writer_;
  LineSplitter out_, err_;
  pid_t pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1, in_fd_ = -1;
  bool ready_ = false, exited_ = false;
  contract::RankStatus status_;
};

}  // namespace dlp::launch
