// A Slurm job's logs read from its folder through the contract's log format:
// per-replica files merged by time, slurm.out as replica "slurm", filters, the
// rotated file first, metrics from the metrics file.
#include "backends/slurm/logs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
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

// Line `i` of a replica file: "line i" or, with `metric`, a metric point.
std::string Line(int i, bool metric = false) {
  return contract::FormatLogFileLine(
      absl::FromUnixSeconds(1796040000) + absl::Microseconds(i), contract::LogStream::kOut,
      metric ? absl::StrCat("DLP_METRIC loss=", i, " step=", i) : absl::StrCat("line ", i));
}

TEST(ReadJobLogs, ReadsTheRotatedFileFirst) {
  testing::TempDir dir;
  dir.WriteFile("logs/worker-0.log.1", Line(0) + Line(1));
  dir.WriteFile("logs/worker-0.log", Line(2));
  EXPECT_THAT(Read(dir.path(), {}),
              ::testing::ElementsAre("worker-0/stdout:line 0", "worker-0/stdout:line 1",
                                     "worker-0/stdout:line 2"));
}

TEST(ReadJobLogs, AFollowGoesOnInTheNewFileAfterARotation) {
  testing::TempDir dir;
  dir.WriteFile("logs/worker-0.log", Line(0) + Line(1));
  const std::string log = dir.Join("logs/worker-0.log");
  LogOptions follow;
  follow.follow = true;
  std::vector<std::string> seen;
  int polls = 0;
  absl::Status status = ReadJobLogs(
      dir.path(), follow,
      [&](const LogLine& line) {
        seen.push_back(line.text);
        return true;
      },
      [&]() -> absl::StatusOr<bool> {
        // Between the first read and the last, dlp-run rotates the log and
        // writes a line shorter than what was read of the old one.
        if (++polls == 2) {
          EXPECT_EQ(rename(log.c_str(), (log + ".1").c_str()), 0);
          dir.WriteFile("logs/worker-0.log", Line(2));
        }
        return polls >= 2;
      });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(seen, ::testing::ElementsAre("line 0", "line 1", "line 2"));
}

TEST(ReadJobLogs, MetricsOnlyReadsTheMetricsFileOrTheLogOfAnOlderJob) {
  testing::TempDir dir;
  // worker-0's log was rotated past its first points; worker-1 predates metrics files.
  dir.WriteFile("logs/worker-0.metrics", Line(1, true) + Line(3, true));
  dir.WriteFile("logs/worker-0.log", Line(2) + Line(3, true));
  dir.WriteFile("logs/worker-1.log", Line(4) + Line(5, true));
  dir.WriteFile("slurm.out", "srun: error\n");
  LogOptions metrics;
  metrics.metrics_only = true;
  EXPECT_THAT(Read(dir.path(), metrics),
              ::testing::ElementsAre("worker-0/stdout:DLP_METRIC loss=1 step=1",
                                     "worker-0/stdout:DLP_METRIC loss=3 step=3",
                                     "worker-1/stdout:DLP_METRIC loss=5 step=5"));
}

}  // namespace
}  // namespace dlp::internal
