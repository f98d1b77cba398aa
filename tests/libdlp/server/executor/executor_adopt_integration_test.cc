// A daemon that dies after starting dlp-run but before it records the start
// leaves a Queued job with a live runner. The next daemon must find that
// runner by its status file and adopt it, never start the job a second time.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/executor/executor.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

// A process with dlp-run's command line shape that runs `script` (sh) and
// lives until `hold` closes; with a `ready_file`, until the script created it.
class FakeRunner {
 public:
  explicit FakeRunner(const std::string& status_path, const std::string& script = "read line",
                      const std::string& ready_file = "") {
    if (pipe(hold_) != 0) std::abort();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, hold_[0], 0);
    posix_spawn_file_actions_addclose(&actions, hold_[1]);
    std::vector<std::string> args = {"/bin/sh",       "-c",       script, "dlp-run",
                                     "--status-file", status_path};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(hold_[0]);
    // posix_spawn returns once the exec began; the kernel sets the new command
    // line a moment later.
    const std::string cmdline = "/proc/" + std::to_string(pid_) + "/cmdline";
    if (pid_ > 0 && !dlp::testing::Eventually([&] {
          return dlp::testing::ReadFileOrEmpty(cmdline).find("--status-file") != std::string::npos;
        })) {
      pid_ = -1;
    }
    if (pid_ > 0 && !ready_file.empty() &&
        !dlp::testing::Eventually([&] { return access(ready_file.c_str(), F_OK) == 0; })) {
      pid_ = -1;
    }
  }
  ~FakeRunner() {
    close(hold_[1]);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  int hold_[2] = {-1, -1};
  pid_t pid_ = -1;
};

JobRecord QueuedRecord(const std::string& id) {
  JobRecord record;
  record.seq = 1;
  record.job.id = id;
  record.job.state = JobState::kQueued;
  return record;
}

TEST(ExecutorReconcileTest, QueuedJobWithALiveRunnerIsAdopted) {
  dlp::testing::TempDir dir;
  Executor executor({dir.Join("jobs")});
  FakeRunner runner(executor.StatusPath("41"));
  ASSERT_GT(runner.pid(), 0);
  JobRecord record = QueuedRecord("41");
  std::vector<Event> events;
  executor.Reconcile(record, events);
  EXPECT_EQ(record.job.state, JobState::kRunning);
  EXPECT_EQ(record.runner_pid, runner.pid());
  EXPECT_GT(record.runner_start_time, 0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "Adopted");
}

// dlp-run forks each rank before it executes the rank's command: for that
// moment the child carries dlp-run's command line too. The runner to adopt is
// the parent, not the child, whose end says nothing about the job's.
TEST(ExecutorReconcileTest, AdoptsTheRunnerNotItsForkedChild) {
  dlp::testing::TempDir dir;
  Executor executor({dir.Join("jobs")});
  const std::string ready = dir.Join("forked");
  // The subshell is a fork of the runner with the same command line.
  FakeRunner runner(executor.StatusPath("43"),
                    "exec 3<&0; (echo > '" + ready + "'; read line <&3; true) & wait", ready);
  ASSERT_GT(runner.pid(), 0);
  JobRecord record = QueuedRecord("43");
  std::vector<Event> events;
  executor.Reconcile(record, events);
  EXPECT_EQ(record.job.state, JobState::kRunning);
  EXPECT_EQ(record.runner_pid, runner.pid());
}

TEST(ExecutorReconcileTest, QueuedJobWithoutARunnerStaysQueued) {
  dlp::testing::TempDir dir;
  Executor executor({dir.Join("jobs")});
  FakeRunner other(executor.StatusPath("7"));  // another job's runner
  JobRecord record = QueuedRecord("42");
  std::vector<Event> events;
  executor.Reconcile(record, events);
  EXPECT_EQ(record.job.state, JobState::kQueued);
  EXPECT_EQ(record.runner_pid, 0);
  EXPECT_TRUE(events.empty());
}

}  // namespace
}  // namespace dlp::server
