// The Client functions the CLI is a table over, against a real dlpd: logs with
// and without metric lines, metrics, step rates, a cancelled wait, a profile
// window over a job that has ended.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "libdlp/client/client_test_util.h"

namespace dlp::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using ClientReportsTest = LocalDlpdTest;

// The lines of each stream, in order (the two streams interleave by time,
// which the job does not control).
std::map<std::string, std::vector<std::string>> Texts(Client& client, const std::string& id,
                                                      bool metrics) {
  LogOptions options;
  options.metrics = metrics;
  std::map<std::string, std::vector<std::string>> texts;
  absl::Status status = client.Logs(id, options, [&](const LogLine& line) {
    texts[line.stream].push_back(line.text);
    return true;
  });
  EXPECT_TRUE(status.ok()) << status;
  return texts;
}

TEST_F(ClientReportsTest, MetricLinesAreLeftOutOfLogsOnRequestAndStillReadAsMetrics) {
  auto client = NewLocalClient();
  auto job = client->Submit(
      ShellJob("metrics",
               "echo training\necho 'DLP_METRIC loss=0.5 step=1'\n"
               "echo 'DLP_METRIC loss=0.25 step=2'\necho 'DLP_METRIC x=1' >&2\necho done"));
  ASSERT_TRUE(job.ok()) << job.status();
  WaitOptions wait;
  wait.timeout = absl::Seconds(60);
  ASSERT_TRUE(client->Wait(job->id, wait).ok());

  auto all = Texts(*client, job->id, true);
  EXPECT_THAT(all["stdout"], ElementsAre("training", "DLP_METRIC loss=0.5 step=1",
                                         "DLP_METRIC loss=0.25 step=2", "done"));
  EXPECT_THAT(all["stderr"], ElementsAre("DLP_METRIC x=1"));
  // Only stdout carries metrics: the stderr line stays.
  auto quiet = Texts(*client, job->id, false);
  EXPECT_THAT(quiet["stdout"], ElementsAre("training", "done"));
  EXPECT_THAT(quiet["stderr"], ElementsAre("DLP_METRIC x=1"));

  auto metrics = client->Metrics(job->id);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->size(), 2u);
  EXPECT_EQ((*metrics)[0].replica, "worker-0");
  EXPECT_EQ((*metrics)[0].name, "loss");
  EXPECT_EQ((*metrics)[1].step, 2);
  EXPECT_DOUBLE_EQ((*metrics)[1].value, 0.25);
  EXPECT_TRUE(client->Metrics(job->id, {.name = "accuracy"})->empty());
  EXPECT_TRUE(client->Metrics(job->id, {.replica = "worker-1"})->empty());

  auto rates = client->StepRates(job->id);
  ASSERT_TRUE(rates.ok()) << rates.status();
  EXPECT_EQ(rates->at("worker-0").step, 2);
  EXPECT_EQ(client->Metrics("999999").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ClientReportsTest, ACancelledWaitLeavesTheJobRunning) {
  auto client = NewLocalClient();
  auto job = client->Submit(ShellJob("sleeper", "sleep 60"));
  ASSERT_TRUE(job.ok()) << job.status();
  int polls = 0;
  std::vector<JobState> updates;
  WaitOptions wait;
  wait.on_update = [&](const Job& j) { updates.push_back(j.state); };
  wait.cancelled = [&] { return ++polls > 3; };
  auto waited = client->Wait(job->id, wait);
  EXPECT_EQ(waited.status().code(), absl::StatusCode::kCancelled) << waited.status();
  EXPECT_THAT(waited.status().message(), HasSubstr("interrupted while waiting for job " + job->id));
  EXPECT_FALSE(updates.empty());
  EXPECT_FALSE(IsTerminal(client->Get(job->id)->state));
  ASSERT_TRUE(client->Cancel(job->id).ok());
  EXPECT_EQ(client->Wait(job->id)->state, JobState::kCancelled);
}

TEST_F(ClientReportsTest, AProfileWindowOverAnEndedJobIsWhatItWrote) {
  auto client = NewLocalClient();
  auto job = client->Submit(ShellJob("quick", "true"));
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_TRUE(client->Wait(job->id).ok());
  bool opened = false;
  ProfileWindowOptions options;
  options.length = absl::Hours(1);  // never waited out: the job has ended
  options.on_open = [&] { opened = true; };
  auto window = client->ProfileWindow(job->id, options);
  ASSERT_TRUE(window.ok()) << window.status();
  EXPECT_FALSE(window->windowed);
  EXPECT_FALSE(opened);
  EXPECT_TRUE(window->files.empty());
  EXPECT_EQ(client->ProfileWindow("999999", options).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace dlp::testing
