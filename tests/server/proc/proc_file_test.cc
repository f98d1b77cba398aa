// /proc files of processes that exit while dlpd reads them: errors, never
// exceptions (std::ifstream + istreambuf_iterator threw here and ended dlpd).
#include "server/proc/proc_file.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "server/executor/process.h"

namespace dlp::server {
namespace {

// A child that exits at once, reaped: its pid names no process.
pid_t ExitedPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

TEST(ProcFileTest, ReadsALiveProcess) {
  absl::StatusOr<std::string> stat = ReadProcFile(ProcPath(getpid(), "stat"));
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->substr(0, std::to_string(getpid()).size()), std::to_string(getpid()));
}

TEST(ProcFileTest, ExitedProcessIsNotFound) {
  const pid_t pid = ExitedPid();
  absl::StatusOr<std::string> stat = ReadProcFile(ProcPath(pid, "stat"));
  EXPECT_TRUE(absl::IsNotFound(stat.status())) << stat.status();
  EXPECT_FALSE(ProcessStartTime(pid).has_value());
}

// The crash of dlpd: the file was opened while the process lived, and read
// after it was gone (read(2) fails with ESRCH).
TEST(ProcFileTest, ProcessThatExitsBetweenOpenAndReadIsAnError) {
  int hold[2];
  ASSERT_EQ(pipe(hold), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    char c;
    close(hold[1]);
    (void)!read(hold[0], &c, 1);
    _exit(0);
  }
  close(hold[0]);
  const std::string path = ProcPath(pid, "stat");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  close(hold[1]);
  waitpid(pid, nullptr, 0);
  absl::StatusOr<std::string> contents = ReadToEnd(fd, path);
  close(fd);
  EXPECT_TRUE(absl::IsNotFound(contents.status())) << contents.status();
  EXPECT_NE(contents.status().message().find(path), std::string::npos);
}

TEST(ProcFileTest, MissingFileIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(ReadProcFile("/proc/self/no-such-file").status()));
}

}  // namespace
}  // namespace dlp::server
