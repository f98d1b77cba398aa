// base::Spawn against real programs: streams, environment, folder, groups,
// descriptors, CPUs, the switch of user, detaching, and the errors of each step.
#include "base/process/spawn.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::base {
namespace {

using ::testing::HasSubstr;

// Everything `fd` gives until EOF (within a deadline), then closes it.
std::string ReadAll(int fd) {
  std::string text;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

int ExitCode(pid_t pid) {
  const int status = WaitForExit(pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

SpawnOptions Shell(const std::string& script) {
  SpawnOptions options;
  options.argv = {"sh", "-c", script};
  return options;
}

TEST(SpawnTest, PipesCarryStdinStdoutAndStderr) {
  SpawnOptions options = Shell("read line; echo \"out:$line\"; echo err >&2; exit 3");
  options.stdin_stream = Stream::kPipe;
  options.stdout_stream = Stream::kPipe;
  options.stderr_stream = Stream::kPipe;
  absl::StatusOr<SpawnedProcess> child = Spawn(options);
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_EQ(write(child->stdin_fd, "hello\n", 6), 6);
  close(child->stdin_fd);
  EXPECT_EQ(ReadAll(child->stdout_fd), "out:hello\n");
  EXPECT_EQ(ReadAll(child->stderr_fd), "err\n");
  EXPECT_EQ(ExitCode(child->pid), 3);
}

TEST(SpawnTest, EnvironmentFolderAndAnAppendedFile) {
  dlp::testing::TempDir dir;
  SpawnOptions options = Shell("echo \"A=$A HOME=${HOME:-none}\"; pwd; echo oops >&2");
  options.env = {{"A", "1"}, {"PATH", "/usr/bin:/bin"}};
  options.inherit_environment = false;
  options.workdir = dir.path();
  options.stdout_stream = Stream::kFile;
  options.stderr_stream = Stream::kStdout;
  options.output_path = dir.WriteFile("out.log", "before\n");
  absl::StatusOr<SpawnedProcess> child = Spawn(options);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(ExitCode(child->pid), 0);
  EXPECT_EQ(dlp::testing::ReadFileOrEmpty(options.output_path),
            absl::StrCat("before\nA=1 HOME=none\n", dir.path(), "\noops\n"));
  struct stat st;
  ASSERT_EQ(stat(dir.Join("fresh.log").c_str(), &st), -1);
  options.output_path = dir.Join("fresh.log");
  child = Spawn(options);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(ExitCode(child->pid), 0);
  ASSERT_EQ(stat(options.output_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(SpawnTest, LeadsANewProcessGroupOrSession) {
  for (Grouping grouping : {Grouping::kProcessGroup, Grouping::kSession}) {
    SpawnOptions options = Shell("read line");
    options.stdin_stream = Stream::kPipe;
    options.grouping = grouping;
    absl::StatusOr<SpawnedProcess> child = Spawn(options);
    ASSERT_TRUE(child.ok()) << child.status();
    EXPECT_EQ(getpgid(child->pid), child->pid);
    if (grouping == Grouping::kSession) {
      EXPECT_EQ(getsid(child->pid), child->pid);
    } else {
      EXPECT_EQ(getsid(child->pid), getsid(0));
    }
    close(child->stdin_fd);
    EXPECT_EQ(ExitCode(child->pid), 1);  // read at EOF
  }
}

TEST(SpawnTest, ClosesOtherDescriptorsAndResetsSignals) {
  const int leaked = open("/dev/null", O_RDONLY);  // not close-on-exec
  ASSERT_GT(leaked, 2);
  struct sigaction ignore = {}, old = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGUSR1, &ignore, &old);
  for (bool close_others : {false, true}) {
    SpawnOptions options = Shell(absl::StrCat("[ -e /proc/$$/fd/", leaked,
                                              " ] && echo open || echo closed; "
                                              "grep SigIgn /proc/$$/status"));
    options.stdout_stream = Stream::kPipe;
    options.close_other_fds = close_others;
    absl::StatusOr<SpawnedProcess> child = Spawn(options);
    ASSERT_TRUE(child.ok()) << child.status();
    const std::string out = ReadAll(child->stdout_fd);
    EXPECT_THAT(out, HasSubstr(close_others ? "closed" : "open"));
    EXPECT_THAT(out, HasSubstr("SigIgn:\t0000000000000000"));
    EXPECT_EQ(ExitCode(child->pid), 0);
  }
  sigaction(SIGUSR1, &old, nullptr);
  close(leaked);
}

TEST(SpawnTest, BindsToTheCpusAsked) {
  SpawnOptions options = Shell("grep Cpus_allowed_list /proc/self/status");
  options.cpus = {0};
  options.stdout_stream = Stream::kPipe;
  absl::StatusOr<SpawnedProcess> child = Spawn(options);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(ReadAll(child->stdout_fd), "Cpus_allowed_list:\t0\n");
  EXPECT_EQ(ExitCode(child->pid), 0);
}

TEST(SpawnTest, EachFailingStepIsAnErrorThatNamesIt) {
  dlp::testing::TempDir dir;
  SpawnOptions options;
  options.argv = {"no-such-program-xyz"};
  absl::StatusOr<SpawnedProcess> child = Spawn(options);
  EXPECT_TRUE(absl::IsNotFound(child.status())) << child.status();
  EXPECT_EQ(child.status().message(),
            "cannot execute no-such-program-xyz: No such file or directory");

  options = Shell("true");
  options.workdir = dir.Join("missing");
  child = Spawn(options);
  EXPECT_TRUE(absl::IsFailedPrecondition(child.status())) << child.status();
  EXPECT_THAT(std::string(child.status().message()),
              HasSubstr("cannot enter working directory " + dir.Join("missing")));

  options = Shell("true");
  options.cpus = {-1};
  EXPECT_TRUE(absl::IsInvalidArgument(Spawn(options).status()));

  // The output file is never followed through a link.
  ASSERT_EQ(symlink(dir.WriteFile("target", "").c_str(), dir.Join("link").c_str()), 0);
  options = Shell("true");
  options.stdout_stream = Stream::kFile;
  options.output_path = dir.Join("link");
  child = Spawn(options);
  EXPECT_THAT(std::string(child.status().message()), HasSubstr("cannot open " + dir.Join("link")));

  options = Shell("true");
  options.cgroup_procs = {dir.Join("no-cgroup/cgroup.procs")};
  EXPECT_THAT(std::string(Spawn(options).status().message()),
              HasSubstr("cannot open " + dir.Join("no-cgroup/cgroup.procs")));

  options.argv.clear();
  EXPECT_TRUE(absl::IsInvalidArgument(Spawn(options).status()));
}

TEST(SpawnTest, ADetachedProgramIsNotThisProcesssChild) {
  dlp::testing::TempDir dir;
  SpawnOptions options = Shell("echo $$ > \"$OUT.tmp\" && mv \"$OUT.tmp\" \"$OUT\"");
  options.env = {{"OUT", dir.Join("pid")}};
  options.detach = true;
  options.close_other_fds = true;
  absl::StatusOr<SpawnedProcess> child = Spawn(options);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_GT(child->pid, 0);
  // The program writes its pid once it runs.
  std::string written;
  EXPECT_TRUE(dlp::testing::Eventually([&] {
    written = dlp::testing::ReadFileOrEmpty(dir.Join("pid"));
    return !written.empty();
  }));
  EXPECT_EQ(written, absl::StrCat(child->pid, "\n"));
  EXPECT_EQ(waitpid(child->pid, nullptr, WNOHANG), -1);  // ECHILD: not ours to reap
  EXPECT_EQ(errno, ECHILD);

  options.argv = {"/no/such/daemon"};
  EXPECT_TRUE(absl::IsNotFound(Spawn(options).status()));
}

TEST(SpawnTest, SwitchesUserBeforeOpeningAFileAndDropsCapabilities) {
  if (geteuid() != 0) GTEST_SKIP() << "switching user needs root";
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user nobody";
  Credentials as{"nobody", nobody->pw_uid, nobody->pw_gid, {nobody->pw_gid}, "/nonexistent"};
  SpawnOptions options = Shell("id -u; id -G; pwd; grep -E 'Cap(Eff|Prm|Amb)' /proc/self/status");
  options.run_as = as;
  options.stdout_stream = Stream::kPipe;
  absl::StatusOr<SpawnedProcess> child = Spawn(options);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(ReadAll(child->stdout_fd),
            absl::StrCat(nobody->pw_uid, "\n", nobody->pw_gid, "\n/\nCapPrm:\t0000000000000000\n",
                         "CapEff:\t0000000000000000\nCapAmb:\t0000000000000000\n"));
  EXPECT_EQ(ExitCode(child->pid), 0);

  // A file in a folder only root may write is opened as the user: refused.
  dlp::testing::TempDir dir;
  chmod(dir.path().c_str(), 0700);
  options = Shell("true");
  options.run_as = as;
  options.stdout_stream = Stream::kFile;
  options.output_path = dir.Join("out.log");
  child = Spawn(options);
  EXPECT_THAT(std::string(child.status().message()),
              HasSubstr("cannot open " + dir.Join("out.log") + ": Permission denied"));
}

}  // namespace
}  // namespace dlp::base
