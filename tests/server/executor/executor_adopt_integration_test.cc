// A daemon that dies after starting dlp-run but before it records the start
// leaves a Queued job with a live runner. The next daemon must find that
// runner by its status file and adopt it, never start the job a second time.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/executor/cgroup.h"
#include "server/executor/executor.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

// A process with dlp-run's command line shape that runs `script` (sh) and
// lives until `hold` closes; with a `ready_file`, until the script created it.
// Like dlpd's runners it leads a session of its own (unless `own_session` is
// false: a process that only claims to be a runner), and the job's folder exists.
class FakeRunner {
 public:
  explicit FakeRunner(const std::string& status_path, const std::string& script = "read line",
                      const std::string& ready_file = "", bool own_session = true) {
    if (pipe(hold_) != 0) std::abort();
    std::filesystem::create_directories(std::filesystem::path(status_path).parent_path());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (own_session) posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, hold_[0], 0);
    posix_spawn_file_actions_addclose(&actions, hold_[1]);
    std::vector<std::string> args = {"/bin/sh",       "-c",       script, "dlp-run",
                                     "--status-file", status_path};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &actions, &attr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
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

// Anyone can start a process whose command line names a job's status file:
// one that does not lead its own session, as dlpd's runners do, is not the job's.
TEST(ExecutorReconcileTest, AProcessThatOnlyClaimsToBeTheRunnerIsNotAdopted) {
  dlp::testing::TempDir dir;
  Executor executor({dir.Join("jobs")});
  FakeRunner impostor(executor.StatusPath("44"), "read line", "", /*own_session=*/false);
  ASSERT_GT(impostor.pid(), 0);
  JobRecord record = QueuedRecord("44");
  std::vector<Event> events;
  executor.Reconcile(record, events);
  EXPECT_EQ(record.job.state, JobState::kQueued);
  EXPECT_EQ(record.runner_pid, 0);
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

// A daemon killed while its spawned child had joined the job's cgroup and
// created dlp-run's output file, but not yet executed dlp-run: the child
// still carries the daemon's command line. It is the job's runner, about to
// run it; settling the job as lost (and killing the cgroup) would lose a job
// that never ran.
TEST(ExecutorReconcileTest, ARunnerNotYetExecutedIsAdoptedFromTheJobCgroup) {
  absl::StatusOr<Cgroups> cgroups = Cgroups::Detect(absl::StrCat("adopt-test-", getpid()));
  if (!cgroups.ok()) GTEST_SKIP() << "no writable cgroup: " << cgroups.status();
  dlp::testing::TempDir dir;
  ExecutorOptions options{dir.Join("jobs")};
  options.cgroups = *cgroups;
  Executor executor(options);
  absl::StatusOr<std::vector<std::string>> procs = cgroups->Create("45", {});
  ASSERT_TRUE(procs.ok()) << procs.status();
  int hold[2];
  ASSERT_EQ(pipe(hold), 0);
  const pid_t child = fork();
  if (child == 0) {  // joins the cgroup and waits, as the spawned child before its exec
    close(hold[1]);
    const std::string pid = std::to_string(getpid());
    for (const std::string& p : *procs) {
      const int fd = open(p.c_str(), O_WRONLY);
      if (fd < 0 || write(fd, pid.data(), pid.size()) < 0) _exit(1);
      close(fd);
    }
    char c;
    (void)!read(hold[0], &c, 1);
    _exit(0);
  }
  close(hold[0]);
  ASSERT_TRUE(dlp::testing::Eventually([&] { return cgroups->Processes("45").size() == 1; }));
  std::filesystem::create_directories(executor.JobDir("45"));
  std::ofstream(executor.RunnerOutput("45")).flush();  // created before the exec
  ASSERT_EQ(access(executor.RunnerOutput("45").c_str(), F_OK), 0);
  JobRecord record = QueuedRecord("45");
  record.start_attempt = 1;
  std::vector<Event> events;
  executor.Reconcile(record, events);
  EXPECT_EQ(record.job.state, JobState::kRunning) << record.job.reason;
  EXPECT_EQ(record.runner_pid, child);
  EXPECT_EQ(kill(child, 0), 0) << "the runner was killed";
  close(hold[1]);
  waitpid(child, nullptr, 0);
  cgroups->Remove("45");
  cgroups->RemoveIfUnused();
}

}  // namespace
}  // namespace dlp::server
