#include "server/api/metric_summaries.h"

#include <gtest/gtest.h>

#include <fstream>

#include "contract/log_line.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

void AppendMetric(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app) << contract::FormatLogFileLine(
                                            absl::Now(), contract::LogStream::kOut, text)
                                     << "\n";
}

Job Started(JobState state) {
  Job job;
  job.id = "7";
  job.state = state;
  job.started = absl::Now();
  job.replicas.resize(1);
  job.replicas[0].name = "worker-0";
  return job;
}

TEST(MetricSummariesTest, ARunningJobIsReadOnFromWhereItStoppedAnEndedOneOnce) {
  testing::TempDir dir;
  // A replica's files, as dlp-run writes them: its log (which names it) and its metrics.
  std::ofstream(dir.Join("worker-0.log")) << "";
  const std::string file = dir.Join("worker-0.metrics");
  AppendMetric(file, "DLP_METRIC loss=2 step=1");
  AppendMetric(file, "DLP_METRIC loss=1 step=2");
  MetricSummaries summaries(/*max_kept=*/10, /*fresh_for=*/absl::ZeroDuration());
  int opened = 0;
  auto open = [&]() -> absl::StatusOr<LogFolderOpener> {
    ++opened;
    return LogFolderAt(dir.path());
  };
  MetricSummaryMap got = summaries.Of(Started(JobState::kRunning), open);
  EXPECT_EQ(got["loss"].last, 1);
  EXPECT_EQ(got["loss"].max, 2);
  AppendMetric(file, "DLP_METRIC loss=0.5 step=3");
  got = summaries.Of(Started(JobState::kRunning), open);
  EXPECT_EQ(got["loss"].last, 0.5);
  EXPECT_EQ(got["loss"].min, 0.5);
  EXPECT_EQ(got["loss"].count, 3);  // each line once
  got = summaries.Of(Started(JobState::kSucceeded), open);
  EXPECT_EQ(got["loss"].count, 3);
  // Ended and read to its end: kept as it is.
  AppendMetric(file, "DLP_METRIC loss=9 step=4");
  EXPECT_EQ(summaries.Of(Started(JobState::kSucceeded), open)["loss"].last, 0.5);
  EXPECT_EQ(opened, 1);

  Job never = Started(JobState::kCancelled);
  never.started.reset();
  EXPECT_TRUE(summaries.Of(never, open).empty());
  EXPECT_EQ(opened, 1);
}

}  // namespace
}  // namespace dlp::server
