// Runs real programs from tests: captured output, exit status, a deadline.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace dlp::testing {

struct RunOptions {
  std::map<std::string, std::string> env;  // added to (or overriding) the test's environment
  std::vector<std::string> unset_env;      // removed from the environment
  std::string stdin_data;
  std::string cwd;
  absl::Duration timeout = absl::Seconds(120);
};

struct RunResult {
  int exit_code = -1;  // -1 when killed by a signal (see signal) or timed out
  int signal = 0;
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs argv[0] (searched in PATH) and waits for it, killing its process group on timeout.
RunResult Run(const std::vector<std::string>& argv, const RunOptions& options = {});

// A program started in the background (its own process group), for daemons and
// jobs that a test talks to while they run.
class Background {
 public:
  Background(const std::vector<std::string>& argv, const RunOptions& options = {});
  ~Background() { Stop(); }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  int pid() const { return pid_; }
  // Waits for exit; returns the result with everything it wrote.
  RunResult Wait(absl::Duration timeout = absl::Seconds(120));
  // Unless it has exited: SIGTERM to its process group, so that a daemon stops
  // cleanly and tidies what it made (dlpd removes its cgroup folder), then
  // SIGKILL to whatever of the group is left once it exited or after `grace`.
  // Returns the result as Wait does.
  RunResult Stop(absl::Duration grace = absl::Seconds(10));
  void Signal(int signo);  // nothing once it has been waited for
  // Output written so far (stdout merged with stderr goes to files).
  std::string OutputSoFar() const;

 private:
  int pid_ = -1;
  std::string out_path_, err_path_;
  std::optional<RunResult> result_;
};

// Absolute path of a built program (build/bin/NAME).
std::string BinPath(const std::string& name);

// Polls `condition` every few milliseconds until it is true or `timeout` passes.
// Returns whether it became true. For waiting on observable state, never a fixed sleep.
template <typename Condition>
bool Eventually(Condition condition, absl::Duration timeout = absl::Seconds(30));

std::string ReadFileOrEmpty(const std::string& path);

}  // namespace dlp::testing

#include "support/subprocess_inl.h"
