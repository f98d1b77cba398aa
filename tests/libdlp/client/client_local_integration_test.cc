// The local backend against a real dlpd that it starts itself in a temp folder.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>
#include <thread>

#include "client_test_util.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// The dlpd processes serving `state_dir` (from /proc/*/cmdline).
int CountDlpd(const std::string& state_dir) {
  int count = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return -1;
  while (struct dirent* entry = readdir(proc)) {
    const std::string cmdline =
        ReadFileOrEmpty(std::string("/proc/") + entry->d_name + "/cmdline");
    const std::string stat = ReadFileOrEmpty(std::string("/proc/") + entry->d_name + "/stat");
    if (stat.find(") Z") != std::string::npos) continue;  // a zombie is gone
    if (cmdline.find("dlpd") != std::string::npos &&
        cmdline.find(std::string("--state-dir") + '\0' + state_dir + '\0') != std::string::npos) {
      ++count;
    }
  }
  closedir(proc);
  return count;
}

using LocalBackendTest = LocalDlpdTest;

TEST_F(LocalBackendTest, StartsDlpdOnDemandWithPrivateFiles) {
  auto before = LocalServerStatus(ServerOptions());
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_FALSE(before->running);

  auto client = NewLocalClient();
  auto jobs = client->List();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->empty());

  auto after = LocalServerStatus(ServerOptions());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(after->running);
  EXPECT_GT(after->pid, 0);
  EXPECT_THAT(after->address, HasSubstr("127.0.0.1:"));
  EXPECT_EQ(Mode(state_dir_), 0700);
  EXPECT_EQ(Mode(state_dir_ + "/dlpd.addr"), 0600);
  EXPECT_EQ(Mode(state_dir_ + "/dlpd.token"), 0600);
  EXPECT_EQ(CountDlpd(state_dir_), 1);
}

TEST_F(LocalBackendTest, RefusesATokenFileOthersCanRead) {
  ASSERT_TRUE(StartLocalServer(ServerOptions()).ok());
  const std::string token = state_dir_ + "/dlpd.token";
  ASSERT_EQ(chmod(token.c_str(), 0644), 0);
  auto jobs = NewLocalClient()->List();
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kPermissionDenied) << jobs.status();
  EXPECT_THAT(jobs.status().message(), HasSubstr("mode 0644"));
  EXPECT_THAT(jobs.status().message(), HasSubstr("dlpd.token"));
  ASSERT_EQ(chmod(token.c_str(), 0600), 0);
  EXPECT_TRUE(NewLocalClient()->List().ok());
}

TEST_F(LocalBackendTest, SubmitGetListWaitLogsEvents) {
  auto client = NewLocalClient();
  auto job = client->Submit(ShellJob("hello", "echo hello from $DLP_REPLICA", 2));
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_FALSE(job->id.empty());
  EXPECT_EQ(job->name, "hello");

  int updates = 0;
  WaitOptions wait;
  wait.timeout = absl::Seconds(30);
  wait.on_update = [&](const Job&) { ++updates; };
  auto done = client->Wait(job->id, wait);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state, JobState::kSucceeded) << done->reason;
  EXPECT_GE(updates, 1);
  ASSERT_EQ(done->replicas.size(), 2u);

  auto got = client->Get(job->id);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->state, JobState::kSucceeded);

  ListFilter filter;
  filter.state = JobState::kSucceeded;
  auto listed = client->List(filter);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, job->id);
  filter.state = JobState::kFailed;
  EXPECT_TRUE(client->List(filter)->empty());

  std::set<std::string> lines;
  ASSERT_TRUE(client
                  ->Logs(job->id, {}, [&](const LogLine& line) {
                    lines.insert(line.replica + ": " + line.text);
                    return true;
                  })
                  .ok());
  EXPECT_EQ(lines, (std::set<std::string>{"worker-0: hello from worker-0",
                                          "worker-1: hello from worker-1"}));
  LogOptions one;
  one.replica = "worker-1";
  std::vector<std::string> only;
  ASSERT_TRUE(client->Logs(job->id, one, [&](const LogLine& line) {
                     only.push_back(line.replica);
                     return true;
                   }).ok());
  EXPECT_EQ(only, std::vector<std::string>{"worker-1"});

  auto events = client->Events(job->id);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_FALSE(events->empty());
}

TEST_F(LocalBackendTest, FollowSeesLinesWhileTheJobRuns) {
  auto client = NewLocalClient();
  const std::string go = dir_.Join("go");
  auto job = client->Submit(ShellJob(
      "follow", "echo first; while [ ! -e " + go + " ]; do sleep 0.02; done; echo last"));
  ASSERT_TRUE(job.ok()) << job.status();
  std::vector<std::string> seen;
  std::optional<JobState> state_at_first;
  LogOptions options;
  options.follow = true;
  absl::Status status = client->Logs(job->id, options, [&](const LogLine& line) {
    seen.push_back(line.text);
    if (line.text == "first") {
      state_at_first = client->Get(job->id)->state;
      std::ofstream(go) << "";
    }
    return true;
  });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "last"}));
  EXPECT_EQ(state_at_first, JobState::kRunning);
  // The stream ended because the job did.
  EXPECT_TRUE(IsTerminal(client->Get(job->id)->state));
}

TEST_F(LocalBackendTest, CancelAndWaitDeadline) {
  auto client = NewLocalClient();
  auto job = client->Submit(ShellJob("sleeper", "sleep 60"));
  ASSERT_TRUE(job.ok()) << job.status();
  WaitOptions short_wait;
  short_wait.timeout = absl::Milliseconds(500);
  auto waited = client->Wait(job->id, short_wait);
  EXPECT_EQ(waited.status().code(), absl::StatusCode::kDeadlineExceeded) << waited.status();
  EXPECT_THAT(waited.status().message(),
              HasSubstr("timed out waiting for job " + job->id + ": still Running"));

  auto cancelled = client->Cancel(job->id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  WaitOptions wait;
  wait.timeout = absl::Seconds(30);
  auto done = client->Wait(job->id, wait);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state, JobState::kCancelled);
  // Cancelling a terminal job is not an error.
  EXPECT_TRUE(client->Cancel(job->id).ok());
}

TEST_F(LocalBackendTest, UnknownJobIsNotFound) {
  auto client = NewLocalClient();
  EXPECT_EQ(client->Get("999999").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(client->Cancel("999999").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(LocalBackendTest, RacingClientsShareOneDlpd) {
  constexpr int kClients = 4;
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(NewLocalClient());
  std::atomic<int> ready{0};
  std::vector<absl::Status> results(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < kClients) {
      }
      results[i] = clients[i]->List().status();
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& status : results) EXPECT_TRUE(status.ok()) << status;
  // Losers of dlpd's lock exit on their own; one dlpd remains.
  EXPECT_TRUE(Eventually([&] { return CountDlpd(state_dir_) == 1; }, absl::Seconds(10)))
      << CountDlpd(state_dir_) << " dlpd processes";
  auto status = LocalServerStatus(ServerOptions());
  ASSERT_TRUE(status.ok());
  EXPECT_TRUE(status->running);
}

TEST_F(LocalBackendTest, StopThenStartAgain) {
  auto started = StartLocalServer(ServerOptions());
  ASSERT_TRUE(started.ok()) << started.status();
  ASSERT_TRUE(StopLocalServer(ServerOptions()).ok());
  // The process is gone (or a zombie awaiting its reaper), not only asked to go.
  const std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(started->pid) + "/stat");
  EXPECT_TRUE(stat.empty() || stat.find(") Z") != std::string::npos) << stat;
  EXPECT_FALSE(LocalServerStatus(ServerOptions())->running);
  EXPECT_TRUE(StopLocalServer(ServerOptions()).ok());  // stopping nothing is fine

  // Without autostart, nothing answers.
  auto down = NewClient(LocalContext(/*autostart=*/false))->List();
  EXPECT_EQ(down.status().code(), absl::StatusCode::kUnavailable) << down.status();
  EXPECT_THAT(down.status().message(), HasSubstr("no dlpd is running"));
  // With it, the client brings dlpd back.
  EXPECT_TRUE(NewLocalClient()->List().ok());
}

TEST_F(LocalBackendTest, FailedStartQuotesTheLog) {
  const std::string fake = dir_.WriteFile("fake-dlpd", "#!/bin/sh\necho 'boom: no database' >&2\nexit 1\n");
  ASSERT_EQ(chmod(fake.c_str(), 0755), 0);
  Context context = LocalContext();
  context.fields["dlpd"] = fake;
  auto jobs = NewClient(context)->List();
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(jobs.status().message(), HasSubstr("dlpd did not start"));
  EXPECT_THAT(jobs.status().message(), HasSubstr("boom: no database"));
}

}  // namespace
}  // namespace dlp::testing
