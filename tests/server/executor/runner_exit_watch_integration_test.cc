// The controller learns of a runner's exit from RunnerExitWatch, not only
// from its 100 ms poll: a process's end must reach the callback, and a pid
// that is gone already must not break the watch.
#include "server/executor/runner_exit_watch.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include <gtest/gtest.h>

#include "support/subprocess.h"

namespace dlp::server {
namespace {

// `sh -c 'read line'`: lives until the pipe it reads from is closed.
struct HeldProcess {
  pid_t pid = -1;
  int hold = -1;
  HeldProcess() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;  // no other child keeps a copy
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    char sh[] = "/bin/sh", c[] = "-c", script[] = "read line";
    char* argv[] = {sh, c, script, nullptr};
    if (posix_spawn(&pid, sh, &actions, nullptr, argv, environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[0]);
    hold = fds[1];
  }
  void End() {
    if (hold >= 0) close(hold);
    hold = -1;
  }
  ~HeldProcess() {
    End();
    if (pid > 0) waitpid(pid, nullptr, 0);
  }
};

TEST(RunnerExitWatch, CallsBackWhenAWatchedProcessExits) {
  std::atomic<int> calls = 0;
  RunnerExitWatch watch([&] { ++calls; });
  HeldProcess first, second;
  ASSERT_GT(first.pid, 0);
  ASSERT_GT(second.pid, 0);
  watch.Watch(first.pid);
  watch.Watch(second.pid);
  first.End();
  ASSERT_TRUE(testing::Eventually([&] { return calls.load() >= 1; }));
  const int after_first = calls.load();
  second.End();
  ASSERT_TRUE(testing::Eventually([&] { return calls.load() > after_first; }));
}

TEST(RunnerExitWatch, APidAlreadyGoneLeavesTheWatchWorking) {
  std::atomic<int> calls = 0;
  RunnerExitWatch watch([&] { ++calls; });
  pid_t gone = -1;
  {
    HeldProcess reaped;
    ASSERT_GT(reaped.pid, 0);
    gone = reaped.pid;
  }  // ended and reaped: no such process any more
  watch.Watch(gone);
  watch.Watch(-1);
  HeldProcess live;
  ASSERT_GT(live.pid, 0);
  watch.Watch(live.pid);
  live.End();
  ASSERT_TRUE(testing::Eventually([&] { return calls.load() >= 1; }));
}

int OpenDescriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++n;
  }
  return n;
}

TEST(RunnerExitWatch, StopsWithProcessesStillWatchedAndClosesTheirPidfds) {
  HeldProcess running;
  ASSERT_GT(running.pid, 0);
  const int before = OpenDescriptors();
  {
    RunnerExitWatch watch([] {});
    watch.Watch(running.pid);
    EXPECT_GT(OpenDescriptors(), before);
  }  // the destructor returns although the process still runs
  EXPECT_EQ(OpenDescriptors(), before);
  EXPECT_EQ(waitpid(running.pid, nullptr, WNOHANG), 0);
}

}  // namespace
}  // namespace dlp::server
