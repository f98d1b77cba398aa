// Sweeps on a real dlpd: a grid of 4, a random sweep reproducible by its
// seed, ASHA stopping a trial with its reason, a crash of dlpd between
// recording a trial and submitting its job (and just after) losing and
// duplicating nothing, and another tenant's sweep answering 404.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "dlp/sweep.h"
#include "tenant_fixture.h"
#include "sweep/sampling.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// Trials print their objective (`score`) at each epoch from a shell script.
SweepSpec ScriptSweep(SearchAlgorithm algorithm, const std::string& script) {
  SweepSpec spec;
  spec.name = "sw";
  spec.objective = {"score", true};
  spec.search.algorithm = algorithm;
  spec.parallelism = 2;
  spec.job = ShellJob("sw", script, 1, "100");
  return spec;
}

class DlpdSweepsTest : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_DLP_RUN(); }

  void Start(const RunOptions& options = {}) {
    dlpd_ = std::make_unique<Dlpd>(dir_.Join("state"), std::vector<std::string>{}, options);
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    client_ = dlpd_->Client();
  }

  std::string Submit(const SweepSpec& spec) {
    auto res = client_->Post("/v1/sweeps", SweepSpecToJson(spec), "application/json");
    EXPECT_TRUE(res && res->status == 201) << (res ? res->body : "no answer");
    if (!res) return "";
    return nlohmann::json::parse(res->body, nullptr, false).value("id", "");
  }

  // Until the sweep has ended (and its trials with it); the last answer.
  Sweep WaitDone(const std::string& id, absl::Duration timeout = absl::Seconds(120)) {
    Sweep sweep;
    EXPECT_TRUE(Eventually(
        [&] {
          auto res = client_->Get(("/v1/sweeps/" + id).c_str());
          if (!res || res->status != 200) return false;
          absl::StatusOr<Sweep> s = SweepFromJson(res->body);
          if (!s.ok()) return false;
          sweep = *s;
          if (sweep.state == SweepState::kRunning) return false;
          for (const SweepTrial& t : sweep.trials) {
            if (t.state == TrialState::kPending || t.state == TrialState::kQueued ||
                t.state == TrialState::kRunning) {
              return false;
            }
          }
          return true;
        },
        timeout))
        << "sweep " << id << " did not end: " << SweepToJson(sweep) << "\n"
        << dlpd_->process().OutputSoFar();
    return sweep;
  }

  // The ids of the jobs labelled with the sweep, by trial number.
  std::multimap<std::string, std::string> TrialJobs(const std::string& id) {
    std::multimap<std::string, std::string> out;
    nlohmann::json jobs = GetJson(*client_, "/v1/jobs?label=dlp.dev/sweep%3D" + id);
    for (const auto& j : jobs["jobs"]) {
      out.emplace(j["spec"]["labels"].value("dlp.dev/trial", ""), j.value("id", ""));
    }
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(DlpdSweepsTest, AGridOfFourRunsEachPointOnceAsLabelledJobs) {
  Start();
  SweepSpec spec = ScriptSweep(SearchAlgorithm::kGrid, "echo \"DLP_METRIC score=${A}${B} step=1\"");
  spec.parameters = {{"a", ParamType::kInt, 1, 2, 0, {}},
                     {"b", ParamType::kCategorical, 0, 0, 0, {"5", "7"}}};
  spec.job.replicas[0].env = {{"A", "${params.a}"}, {"B", "${params.b}"}};
  const std::string id = Submit(spec);
  Sweep done = WaitDone(id);
  EXPECT_EQ(done.state, SweepState::kSucceeded);
  ASSERT_EQ(done.trials.size(), 4u);
  std::set<TrialParams> points;
  for (const SweepTrial& t : done.trials) {
    EXPECT_EQ(t.state, TrialState::kSucceeded) << t.reason;
    points.insert(t.params);
    ASSERT_TRUE(t.objective.has_value());
    EXPECT_EQ(*t.objective, std::stod(t.params.at("a") + t.params.at("b")));
  }
  EXPECT_EQ(points.size(), 4u);
  const std::optional<size_t> best = BestTrial(done);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(*done.trials[*best].objective, 27);
  EXPECT_EQ(TrialJobs(id).size(), 4u);
}

TEST_F(DlpdSweepsTest, ARandomSweepIsReproducibleBySeed) {
  Start();
  SweepSpec spec = ScriptSweep(SearchAlgorithm::kRandom, "echo \"DLP_METRIC score=$LR step=1\"");
  spec.max_trials = 3;
  spec.parallelism = 3;
  spec.search.seed = 11;
  spec.parameters = {{"lr", ParamType::kLogFloat, 0.001, 0.5, 0, {}}};
  spec.job.replicas[0].env = {{"LR", "${params.lr}"}};
  auto params = [](const Sweep& s) {
    std::vector<TrialParams> out;
    for (const SweepTrial& t : s.trials) out.push_back(t.params);
    return out;
  };
  const Sweep first = WaitDone(Submit(spec));
  const Sweep again = WaitDone(Submit(spec));
  spec.search.seed = 12;
  const Sweep other = WaitDone(Submit(spec));
  ASSERT_EQ(first.trials.size(), 3u);
  EXPECT_EQ(params(first), params(again));
  EXPECT_NE(params(first), params(other));
  for (const SweepTrial& t : first.trials) {
    ASSERT_TRUE(t.objective.has_value()) << TrialStateName(t.state) << " " << t.reason;
    EXPECT_NEAR(*t.objective, std::stod(t.params.at("lr")), 1e-9);
  }
}

TEST_F(DlpdSweepsTest, AshaStopsATrialBelowItsRungWithTheReason) {
  // Trials one at a time, so the order of the reports is fixed; a seed whose
  // first two trials score high (they finish at once) and whose third scores
  // lower, so that it waits after epoch 1 until ASHA stops it.
  SweepSpec spec =
      ScriptSweep(SearchAlgorithm::kAsha,
                  "echo \"DLP_METRIC score=0.$X step=1\"; [ \"$X\" -ge 5 ] || sleep 600; "
                  "echo \"DLP_METRIC score=0.$X step=2\"; echo \"DLP_METRIC score=0.$X step=3\"");
  spec.max_trials = 3;
  spec.parallelism = 1;
  spec.search.max_resource = 3;
  spec.search.reduction_factor = 3;
  spec.parameters = {{"x", ParamType::kInt, 1, 9, 0, {}}};
  spec.job.replicas[0].env = {{"X", "${params.x}"}};
  auto x = [&](int trial) { return std::stoi(internal::SampleTrial(spec, trial).at("x")); };
  for (spec.search.seed = 1; spec.search.seed < 1000; ++spec.search.seed) {
    if (x(1) >= 5 && x(2) >= 5 && x(3) < 5) break;
  }
  ASSERT_LT(spec.search.seed, 1000u);
  Start();
  const std::string id = Submit(spec);
  Sweep done = WaitDone(id);
  ASSERT_EQ(done.trials.size(), 3u);
  EXPECT_EQ(done.trials[0].state, TrialState::kSucceeded);
  EXPECT_EQ(done.trials[1].state, TrialState::kSucceeded);
  const SweepTrial& stopped = done.trials[2];
  EXPECT_EQ(stopped.state, TrialState::kCancelled);
  const std::string cutoff = absl::StrCat("0.", std::max(x(1), x(2)));
  EXPECT_EQ(stopped.reason, absl::StrCat("stopped early by asha at epoch 1 (0.", x(3),
                                         " < rung cutoff ", cutoff, ")"));
  // Ranked by its value at the rung, which the store kept across the saves.
  EXPECT_EQ(stopped.stopped_at, 1);
  EXPECT_EQ(stopped.resource, 1);
  EXPECT_EQ(TrialOutcome(done, stopped), "stopped at rung 1 (epoch 1)");
  EXPECT_EQ(TrialOutcome(done, done.trials[0]), "finished");
  // The job itself ended Cancelled with the same reason.
  nlohmann::json job = GetJson(*client_, "/v1/jobs/" + stopped.job);
  EXPECT_EQ(job.value("state", ""), "Cancelled");
  EXPECT_EQ(job.value("reason", ""), stopped.reason);
}

// dlpd is killed (SIGKILL) right before, or right after, the submission of a
// sweep's second trial; the restarted dlpd goes on: every trial runs once.
class DlpdSweepCrashTest : public DlpdSweepsTest,
                           public ::testing::WithParamInterface<const char*> {};

TEST_P(DlpdSweepCrashTest, NoTrialIsLostOrRunTwice) {
  const std::string runs = dir_.Join("runs");
  SweepSpec spec = ScriptSweep(SearchAlgorithm::kRandom,
                               "echo \"$N\" >> " + runs + "; echo \"DLP_METRIC score=$N step=1\"");
  spec.max_trials = 4;
  spec.parallelism = 2;
  spec.parameters = {{"n", dlp::ParamType::kInt, 1, 1000000, 0, {}}};
  spec.job.replicas[0].env = {{"N", "${params.n}"}};
  Start(RunOptions{.env = {{"DLPD_TEST_CRASH_AT", GetParam()}}});
  // The first sweep of a fresh store is sweep 1; the answer may not arrive
  // (dlpd may die first).
  auto res = client_->Post("/v1/sweeps", SweepSpecToJson(spec), "application/json");
  if (res) {
    EXPECT_EQ(res->status, 201) << res->body;
    EXPECT_EQ(nlohmann::json::parse(res->body, nullptr, false).value("id", ""), "1");
  }
  const std::string id = "1";
  RunResult died = dlpd_->process().Wait(absl::Seconds(30));
  ASSERT_TRUE(!died.timed_out && died.signal == SIGKILL) << dlpd_->process().OutputSoFar();
  dlpd_->KeepJobsRunning();

  Start();
  Sweep done = WaitDone(id);
  EXPECT_EQ(done.state, SweepState::kSucceeded);
  ASSERT_EQ(done.trials.size(), 4u);
  std::multimap<std::string, std::string> jobs = TrialJobs(id);
  EXPECT_EQ(jobs.size(), 4u);
  std::set<std::string> job_ids;
  for (const SweepTrial& t : done.trials) {
    EXPECT_EQ(t.state, TrialState::kSucceeded) << t.reason;
    EXPECT_EQ(jobs.count(absl::StrCat(t.number)), 1u) << "trial " << t.number;
    job_ids.insert(t.job);
  }
  EXPECT_EQ(job_ids.size(), 4u);
  // Each trial's job ran once.
  std::vector<std::string> lines = absl::StrSplit(ReadFileOrEmpty(runs), '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), 4u) << ReadFileOrEmpty(runs);
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()).size(), 4u);
}

INSTANTIATE_TEST_SUITE_P(CrashPoints, DlpdSweepCrashTest,
                         ::testing::Values("sweep-before-submit", "sweep-after-submit"));

TEST_F(DlpdSweepsTest, AnotherTenantsSweepIsNotFound) {
  TestUser user;
  const std::string why = EnsureTestUser("dlptest-a", {}, &user);
  if (!why.empty()) GTEST_SKIP() << why;
  MakeSearchableUpwards(dir_.path());
  Start();
  auto alice =
      dlpd_->Client(AddTenantWithToken(*client_, "alice", user.name).value("token", ""));

  SweepSpec spec = ScriptSweep(SearchAlgorithm::kRandom, "echo \"DLP_METRIC score=1 step=1\"");
  spec.max_trials = 1;
  spec.parameters = {{"n", ParamType::kInt, 1, 3, 0, {}}};
  const std::string id = Submit(spec);  // the owner's
  for (const char* path : {"/v1/sweeps/", "/v1/sweeps/999"}) {
    const std::string target = std::string(path) == "/v1/sweeps/" ? path + id : path;
    auto res = alice->Get(target.c_str());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404) << target;
  }
  auto cancel = alice->Post(("/v1/sweeps/" + id + "/cancel").c_str(), "{}", "application/json");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 404);
  nlohmann::json listed = GetJson(*alice, "/v1/sweeps");
  EXPECT_TRUE(listed["sweeps"].empty()) << listed.dump();
  EXPECT_EQ(GetJson(*client_, "/v1/sweeps")["sweeps"].size(), 1u);
}

TEST_F(DlpdSweepsTest, AnInvalidSweepIsRefusedWithTheField) {
  Start();
  SweepSpec spec = ScriptSweep(SearchAlgorithm::kRandom, "echo ${params.nope}");
  spec.job.replicas[0].command[2] = "echo ${params.nope}";
  spec.max_trials = 2;
  spec.parameters = {{"n", ParamType::kInt, 1, 3, 0, {}}};
  int status = 0;
  auto res = client_->Post("/v1/sweeps", SweepSpecToJson(spec), "application/json");
  ASSERT_TRUE(res);
  status = res->status;
  EXPECT_EQ(status, 400);
  EXPECT_THAT(res->body, HasSubstr("spec.template.replicas.worker.command[2]: unknown parameter"));
}

}  // namespace
}  // namespace dlp::testing
