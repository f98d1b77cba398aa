// Queueing when the machine is full: on a dlpd given 2 CPUs, a 2-CPU job makes
// a second one wait in Queued until it ends (all replicas or none).
#include <memory>

#include "absl/time/time.h"
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

absl::Time ParseTimeField(const nlohmann::json& job, const char* field) {
  absl::Time time = absl::InfinitePast();
  if (job.contains(field) && job[field].is_string()) {
    std::string error;
    EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, job[field].get<std::string>(), &time, &error))
        << error;
  }
  return time;
}

// A queued job's place in its queue; 0 until dlpd has placed it (null).
int Position(const nlohmann::json& job) {
  const auto it = job.find("position");
  return it != job.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// dlpd in the foreground, as a service manager runs it, with `cpus` to give;
// null (and the test failed) when it does not answer.
std::unique_ptr<Background> ForegroundDlpd(const CliEnv& env, int cpus) {
  auto dlpd = std::make_unique<Background>(
      std::vector<std::string>{BinPath("dlpd"), "--state-dir", env.StateDir(), "--listen",
                               "127.0.0.1:0", "--cpus", std::to_string(cpus)},
      env.Options());
  if (!Eventually([&] { return env.Dlp({"server", "status"}).exit_code == 0; })) {
    ADD_FAILURE() << "dlpd does not answer: " << dlpd->OutputSoFar();
    return nullptr;
  }
  return dlpd;
}

TEST(CliQueue, SecondJobWaitsUntilTheFirstEnds) {
  CliEnv env;
  std::unique_ptr<Background> dlpd = ForegroundDlpd(env, 2);
  ASSERT_TRUE(dlpd);

  const std::string go = env.Work("go");
  const std::string first =
      env.Submit(env.WriteJob("big", "while [ ! -f " + go + " ]; do sleep 0.05; done", 2, "1"));
  ASSERT_TRUE(Eventually([&] { return env.State(first) == "Running"; }));
  const std::string second = env.Submit(env.WriteJob("small", "true", 1, "1"));
  // The machine is full while `first` runs: `second` cannot have started.
  nlohmann::json queued = env.Status(second);
  EXPECT_EQ(queued["state"], "Queued") << queued.dump();
  EXPECT_EQ(env.State(first), "Running");
  RunResult listed = env.Dlp({"list", "--state", "Queued", "-o", "json"});
  EXPECT_THAT(listed.out, ::testing::HasSubstr("\"" + second + "\""));

  Touch(go);
  EXPECT_EQ(env.Dlp({"wait", first, second}).exit_code, 0);
  const nlohmann::json a = env.Status(first), b = env.Status(second);
  EXPECT_GE(ParseTimeField(b, "started"), ParseTimeField(a, "finished")) << a.dump() << "\n"
                                                                         << b.dump();

  // A job that can never fit is refused at submit with the reason.
  RunResult huge = env.Dlp({"submit", env.WriteJob("huge", "true", 3, "1")});
  EXPECT_EQ(huge.exit_code, 2) << huge.err;
  EXPECT_THAT(huge.err, ::testing::HasSubstr("dlp: error: "));

  EXPECT_EQ(env.Dlp({"server", "stop"}).exit_code, 0);
  EXPECT_EQ(dlpd->Wait(absl::Seconds(30)).exit_code, 0);
}

// "Why is my job pending?": each waiting job's place in its queue, in the
// job's JSON, `dlp list -o wide` (as `squeue --start`) and `dlp status --why`.
TEST(CliQueue, WaitingJobsShowTheirPlaceAndWhy) {
  CliEnv env;
  std::unique_ptr<Background> dlpd = ForegroundDlpd(env, 1);
  ASSERT_TRUE(dlpd);

  const std::string go = env.Work("go");
  const std::string first =
      env.Submit(env.WriteJob("big", "while [ ! -f " + go + " ]; do sleep 0.05; done", 1, "1"));
  ASSERT_TRUE(Eventually([&] { return env.State(first) == "Running"; }));
  const std::string second = env.Submit(env.WriteJob("next", "true", 1, "1"));
  const std::string third = env.Submit(env.WriteJob("last", "true", 1, "1"));
  ASSERT_TRUE(Eventually([&] { return Position(env.Status(third)) == 2; }))
      << env.Status(third).dump();
  const nlohmann::json next = env.Status(second);
  EXPECT_EQ(Position(next), 1) << next.dump();
  EXPECT_TRUE(next.contains("estimatedStart")) << next.dump();
  EXPECT_EQ(next.value("preemptions", -1), 0);
  EXPECT_FALSE(env.Status(first).contains("position"));  // Running: not in a queue

  RunResult wide = env.Dlp({"list", "--state", "queued", "-o", "wide"});
  EXPECT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_THAT(wide.out, HasSubstr("POSITION"));
  EXPECT_THAT(wide.out, HasSubstr("EST. START"));
  // QUEUE PRIORITY PREEMPTIONS POSITION EST. START
  EXPECT_THAT(wide.out, ::testing::ContainsRegex(second + " +next +Queued .* default +0 +0 +1 +- "))
      << wide.out;
  EXPECT_THAT(wide.out, ::testing::ContainsRegex(third + " +last +Queued .* default +0 +0 +2 +- "))
      << wide.out;
  EXPECT_THAT(wide.out, ::testing::Not(HasSubstr(" big ")));
  RunResult listed = env.Dlp({"list", "--state", "queued", "-o", "json"});
  nlohmann::json jobs = nlohmann::json::parse(listed.out, nullptr, false);
  ASSERT_TRUE(jobs.is_object()) << listed.out;
  ASSERT_EQ(jobs["jobs"].size(), 2u) << listed.out;
  EXPECT_EQ(Position(jobs["jobs"][1]), 2) << listed.out;
  EXPECT_TRUE(jobs["jobs"][1].contains("estimatedStart")) << listed.out;

  RunResult why = env.Dlp({"status", third, "--why"});
  EXPECT_EQ(why.exit_code, 0) << why.err;
  EXPECT_THAT(why.out, HasSubstr("job " + third + " (last): Queued"));
  EXPECT_THAT(why.out, HasSubstr("reason: waiting behind job " + second + " in queue default"));
  EXPECT_THAT(why.out, HasSubstr("position: 2 in queue default"));
  EXPECT_THAT(why.out, HasSubstr("decision:\n  waiting behind job " + second +
                                 " in queue default; tried for backfill"));
  RunResult why_json = env.Dlp({"status", second, "--why", "-o", "json"});
  nlohmann::json explained = nlohmann::json::parse(why_json.out, nullptr, false);
  ASSERT_TRUE(explained.is_object()) << why_json.out;
  EXPECT_EQ(Position(explained), 1);
  EXPECT_THAT(explained.value("reason", ""), HasSubstr("waiting for resources"));
  EXPECT_TRUE(explained["trace"].is_array());
  RunResult running = env.Dlp({"status", first, "--why"});
  EXPECT_EQ(running.exit_code, 0) << running.err;
  EXPECT_THAT(running.out, HasSubstr("it is not waiting"));
  EXPECT_EQ(env.Dlp({"status", "999", "--why"}).exit_code, 3);

  Touch(go);
  EXPECT_EQ(env.Dlp({"wait", first, second, third}).exit_code, 0);
  EXPECT_EQ(env.Dlp({"server", "stop"}).exit_code, 0);
  EXPECT_EQ(dlpd->Wait(absl::Seconds(30)).exit_code, 0);
}

// Behind a backlog, one start moves every job behind it: hundreds of
// positions change in one round. dlpd writes such a round's explanations
// together, at most a second later; `dlp status` must still show each move.
TEST(CliQueue, ABacklogSeesEveryPositionMove) {
  constexpr int kBacklog = 300;  // more than dlpd writes at once (256)
  CliEnv env;
  std::unique_ptr<Background> dlpd = ForegroundDlpd(env, 1);
  ASSERT_TRUE(dlpd);
  const std::string go_first = env.Work("go-first"), go_rest = env.Work("go-rest");
  const std::string first = env.Submit(
      env.WriteJob("first", "while [ ! -f " + go_first + " ]; do sleep 0.05; done", 1, "1"));
  ASSERT_TRUE(Eventually([&] { return env.State(first) == "Running"; }));
  const std::string waiting =
      env.WriteJob("waiting", "while [ ! -f " + go_rest + " ]; do sleep 0.05; done", 1, "1");
  std::vector<std::string> backlog;
  for (int i = 0; i < kBacklog; ++i) backlog.push_back(env.Submit(waiting));
  ASSERT_TRUE(Eventually([&] { return Position(env.Status(backlog.back())) == kBacklog; }))
      << env.Status(backlog.back()).dump();

  Touch(go_first);  // the head starts: every other position moves by one
  ASSERT_TRUE(Eventually([&] { return env.State(backlog.front()) == "Running"; }));
  ASSERT_TRUE(Eventually([&] { return Position(env.Status(backlog.back())) == kBacklog - 1; }))
      << env.Status(backlog.back()).dump();
  EXPECT_EQ(Position(env.Status(backlog[1])), 1);
  EXPECT_THAT(env.Status(backlog[2]).value("reason", ""),
              HasSubstr("waiting behind job " + backlog[1]));

  std::vector<std::string> cancel = {"cancel", "--quiet"};
  cancel.insert(cancel.end(), backlog.begin() + 1, backlog.end());
  EXPECT_EQ(env.Dlp(cancel).exit_code, 0);
  Touch(go_rest);
  EXPECT_EQ(env.Dlp({"wait", first, backlog.front()}).exit_code, 0);
  EXPECT_EQ(env.Dlp({"server", "stop"}).exit_code, 0);
  EXPECT_EQ(dlpd->Wait(absl::Seconds(30)).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
