// An elastic job end to end on a real dlpd given 4 CPUs, with real processes:
// it starts with the 2 workers that fit beside a 2-CPU job, grows to 4 when
// that job ends, shrinks to 2 (never preempted whole) for a priority-100 job
// of 2 CPUs, which runs and succeeds, and succeeds itself; every size shows
// in its logs, events, `dlp status -o json`, `dlp list -o wide` and --why.
#include <memory>

#include "absl/time/time.h"
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

int Size(const nlohmann::json& job) {
  const auto it = job.find("size");
  return it != job.end() && it->is_number_integer() ? it->get<int>() : 0;
}

class CliElastic : public ::testing::Test {
 protected:
  void SetUp() override {
    // Elastic jobs grow no sooner than a second after a resize here (60 s
    // by default), so that the test does not wait a minute for each.
    dlpd_ = std::make_unique<Background>(
        std::vector<std::string>{BinPath("dlpd"), "--state-dir", env_.StateDir(), "--listen",
                                 "127.0.0.1:0", "--cpus", "4", "--resize-interval", "1"},
        env_.Options());
    ASSERT_TRUE(Eventually([&] { return env_.Dlp({"server", "status"}).exit_code == 0; }))
        << dlpd_->OutputSoFar();
    // Shrinking, as preempting, applies where queues are configured.
    RunResult queue = env_.Dlp({"admin", "queue", "create", "default", "--nominal", "cpu=4"});
    ASSERT_EQ(queue.exit_code, 0) << queue.err;
  }

  void TearDown() override {
    if (!dlpd_) return;
    env_.Dlp({"server", "stop"});
    dlpd_->Wait(absl::Seconds(30));
  }

  // 4 workers of 1 CPU, at least 2; each says its size, checkpoints on
  // SIGUSR1 (the request before a resize) and ends once `done` exists.
  std::string WriteElasticJob(const std::string& done) const {
    return env_.dir().WriteFile(
        "elastic.yaml",
        absl::StrCat("apiVersion: dlp/v1\nkind: Job\nmetadata: {name: elastic}\nspec:\n",
                     "  replicas:\n    worker:\n      count: 4\n      minCount: 2\n",
                     "      resources: {cpu: 1}\n      command:\n        - /bin/sh\n",
                     "        - -c\n        - |\n",
                     "          echo \"rank $RANK of size $WORLD_SIZE, resize "
                     "$DLP_RESIZE_COUNT, restart $DLP_RESTART_COUNT\"\n",
                     "          trap 'echo \"checkpoint at size $WORLD_SIZE\"; exit 0' USR1\n",
                     "          while [ ! -f ", done, " ]; do sleep 0.05; done\n",
                     "          echo \"done at size $WORLD_SIZE\"\n"));
  }

  // Running (not re-forming) at `size` workers.
  bool RunsAt(const std::string& id, int size) const {
    const nlohmann::json job = env_.Status(id);
    return job.value("state", "") == "Running" && Size(job) == size;
  }

  std::string Events(const std::string& id) const { return env_.Dlp({"describe", id}).out; }

  CliEnv env_;
  std::unique_ptr<Background> dlpd_;
};

TEST_F(CliElastic, StartsWithWhatFitsGrowsShrinksForPriorityAndSucceeds) {
  const std::string first_go = env_.Work("first.go"), done = env_.Work("elastic.done");
  const std::string first = env_.Submit(
      env_.WriteJob("first", "while [ ! -f " + first_go + " ]; do sleep 0.05; done", 1, "2"));
  ASSERT_TRUE(Eventually([&] { return env_.State(first) == "Running"; }));

  // 2 of its 4 workers fit beside the first job: it starts with them.
  const std::string elastic = env_.Submit(WriteElasticJob(done));
  ASSERT_TRUE(Eventually([&] { return RunsAt(elastic, 2); })) << env_.Status(elastic).dump();
  RunResult wide = env_.Dlp({"list", "-o", "wide"});
  // SIZE, after EXIT: the workers it runs now, of its range.
  EXPECT_THAT(wide.out,
              ::testing::ContainsRegex(elastic + " +elastic +Running .* - +2 \\(2-4\\) +20"))
      << wide.out;
  EXPECT_THAT(env_.Dlp({"status", elastic, "--why"}).out, HasSubstr("size: 2 (2-4)"));

  // The first job ends: the elastic job grows into the 2 CPUs it frees.
  Touch(first_go);
  EXPECT_EQ(env_.Dlp({"wait", first}).exit_code, 0);
  ASSERT_TRUE(Eventually([&] { return RunsAt(elastic, 4); }, absl::Seconds(60)))
      << env_.Status(elastic).dump() << Events(elastic);
  EXPECT_THAT(Events(elastic), HasSubstr("Resized 2\u21924 (capacity free)"));

  // A priority-100 job of 2 CPUs: the elastic job gives 2 workers back
  // instead of being preempted, and the high-priority job runs.
  const std::string high = env_.Submit(
      env_.WriteJob("high", "echo high", 1, "2", "  priority: 100\n"));
  EXPECT_EQ(env_.Dlp({"wait", high}).exit_code, 0) << Events(elastic);
  EXPECT_EQ(env_.State(high), "Succeeded");
  EXPECT_THAT(Events(elastic),
              HasSubstr("Resized 4\u21922 (for job " + high + ", priority 100)"));

  // It grows back once the machine is free, then finishes.
  ASSERT_TRUE(Eventually([&] { return RunsAt(elastic, 4); }, absl::Seconds(60)))
      << env_.Status(elastic).dump() << Events(elastic);
  RunResult why = env_.Dlp({"status", elastic, "--why"});
  EXPECT_THAT(why.out, HasSubstr("size: 4 (2-4)")) << why.out;
  EXPECT_THAT(why.out, HasSubstr("re-formed 3 times")) << why.out;
  EXPECT_THAT(why.out, HasSubstr("last resize: Resized 2\u21924 (capacity free)")) << why.out;
  Touch(done);
  EXPECT_EQ(env_.Dlp({"wait", elastic}).exit_code, 0) << Events(elastic);
  const nlohmann::json end = env_.Status(elastic);
  EXPECT_EQ(end["state"], "Succeeded") << end.dump();
  EXPECT_EQ(end["preemptions"], 0) << end.dump();  // never preempted whole
  EXPECT_EQ(end["restartCount"], 0) << end.dump();
  EXPECT_EQ(end["resizes"], 3) << end.dump();  // 2→4, 4→2, 2→4
  const std::string logs = env_.Dlp({"logs", elastic}).out;
  EXPECT_THAT(logs, HasSubstr("rank 1 of size 2, resize 0, restart 0"));
  EXPECT_THAT(logs, HasSubstr("rank 3 of size 4, resize 1, restart 0"));
  EXPECT_THAT(logs, HasSubstr("rank 1 of size 2, resize 2, restart 0"));
  EXPECT_THAT(logs, HasSubstr("checkpoint at size 4"));
  EXPECT_THAT(logs, HasSubstr("done at size 4"));
}

// minCount workers beyond what the queue may ever use are refused at submit.
TEST_F(CliElastic, AMinimumBeyondTheQueuesQuotaIsRefused) {
  const std::string spec = env_.dir().WriteFile(
      "too-big.yaml",
      "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: big}\nspec:\n  replicas:\n"
      "    worker: {count: 8, minCount: 5, command: [\"true\"], resources: {cpu: 1}}\n");
  RunResult refused = env_.Dlp({"submit", spec});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("even at its minimum (worker minCount 5)")) << refused.err;
  // A minimum that fits is accepted, however large its count.
  const std::string fits = env_.dir().WriteFile(
      "fits.yaml",
      "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: fits}\nspec:\n  replicas:\n"
      "    worker: {count: 8, minCount: 2, command: [\"true\"], resources: {cpu: 1}}\n");
  const std::string id = env_.Submit(fits);
  EXPECT_EQ(env_.Dlp({"wait", id}).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
