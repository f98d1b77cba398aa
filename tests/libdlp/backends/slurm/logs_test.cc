// A Slurm job's logs read from its folder through the contract's log format:
// per-replica files merged by time, slurm.out as replica "slurm", filters.
#include "backends/slurm/logs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "contract/log_line.h"
#include "support/temp_dir.h"

namespace dlp::internal {
namespace {

std::vector<std::string> Read(const std::string& dir, const LogOptions& options) {
  std::vector<std::string> out;
  absl::Status status = ReadJobLogs(
      dir, options,
      [&](const LogLine& line) {
        out.push_back(line.replica + "/" + line.stream + ":" + line.text);
        return true;
      },
      []() -> absl::StatusOr<bool> { return true; });
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

TEST(ReadJobLogs, MergesReplicasByTimeInTheContractsFormat) {
  testing::TempDir dir;
  const absl::Time t = absl::FromUnixSeconds(1796040000);
  auto line = [&](int us, contract::LogStream stream, const std::string& text) {
    return contract::FormatLogFileLine(t + absl::Microseconds(us), stream, text);
  };
  dir.WriteFile("logs/worker-0.log", line(1, contract::LogStream::kOut, "a1") +
                                         line(3, contract::LogStream::kErr, "a2"));
  dir.WriteFile("logs/worker-1.log", line(2, contract::LogStream::kOut, "b1") +
                                         line(4, contract::LogStream::kOut, "b2 partial"));
  EXPECT_THAT(Read(dir.path(), {}),
              ::testing::ElementsAre("worker-0/stdout:a1", "worker-1/stdout:b1",
                                     "worker-0/stderr:a2", "worker-1/stdout:b2 partial"));
  LogOptions one;
  one.replica = "worker-1";
  one.tail = 1;
  EXPECT_THAT(Read(dir.path(), one), ::testing::ElementsAre("worker-1/stdout:b2 partial"));
  LogOptions since;
  since.since = t + absl::Microseconds(3);
  EXPECT_EQ(Read(dir.path(), since).size(), 2u);
}

TEST(ReadJobLogs, SlurmOutIsItsOwnReplica) {
  testing::TempDir dir;
  dir.WriteFile("logs/worker-0.log", "");
  dir.WriteFile("slurm.out", "dlp-run: attempt 0 exited with code 1; restart 1 of 2\n");
  EXPECT_THAT(
      Read(dir.path(), {}),
      ::testing::ElementsAre("slurm/stdout:dlp-run: attempt 0 exited with code 1; restart 1 of 2"));
}

}  // namespace
}  // namespace dlp::internal
