// The sweep engine as a state machine: grid points, seeded random draws that
// do not depend on the platform, ASHA's rung decisions, parallelism and ends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "dlp/sweep.h"
#include "sweep/engine.h"
#include "sweep/sampling.h"

namespace dlp::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Kind = SweepAction::Kind;

SweepSpec Spec(SearchAlgorithm algorithm) {
  SweepSpec spec;
  spec.name = "s";
  spec.objective = {"acc", true};
  spec.search.algorithm = algorithm;
  spec.search.seed = 7;
  spec.parallelism = 2;
  spec.parameters = {{"lr", ParamType::kLogFloat, 0.001, 0.3, 0, {}},
                     {"hidden", ParamType::kCategorical, 0, 0, 0, {"128", "256"}}};
  return spec;
}

Sweep New(SweepSpec spec) {
  Sweep sweep;
  sweep.id = "1";
  sweep.spec = std::move(spec);
  return sweep;
}

std::vector<int> Started(const std::vector<SweepAction>& actions) {
  std::vector<int> out;
  for (const SweepAction& a : actions) {
    if (a.kind == Kind::kStart) out.push_back(a.trial);
  }
  return out;
}

TEST(SplitMix64, MatchesTheReferenceOutputs) {
  // The first outputs of the reference implementation seeded with 0.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rng.Next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(rng.Next(), 0x06C45D188009454FULL);
}

TEST(Sampling, GridVisitsEveryPointOnceLastParameterFastest) {
  SweepSpec spec = Spec(SearchAlgorithm::kGrid);
  spec.parameters = {{"a", ParamType::kInt, 1, 2, 0, {}}, {"b", ParamType::kFloat, 0, 1, 3, {}}};
  ASSERT_EQ(GridSize(spec), 6);
  EXPECT_EQ(TotalTrials(spec), 6);
  EXPECT_THAT(SampleTrial(spec, 1),
              ElementsAre(std::pair<const std::string, std::string>{"a", "1"},
                          std::pair<const std::string, std::string>{"b", "0"}));
  EXPECT_EQ(SampleTrial(spec, 2).at("b"), "0.5");
  EXPECT_EQ(SampleTrial(spec, 3).at("b"), "1");
  EXPECT_EQ(SampleTrial(spec, 4).at("a"), "2");
  std::set<TrialParams> seen;
  for (int n = 1; n <= 6; ++n) seen.insert(SampleTrial(spec, n));
  EXPECT_EQ(seen.size(), 6u);
  spec.max_trials = 4;
  EXPECT_EQ(TotalTrials(spec), 4);
}

TEST(Sampling, RandomIsFixedBySeedAndTrialNumber) {
  SweepSpec spec = Spec(SearchAlgorithm::kRandom);
  const TrialParams first = SampleTrial(spec, 1);
  EXPECT_EQ(SampleTrial(spec, 1), first);
  EXPECT_NE(SampleTrial(spec, 2), first);
  // Values pinned: a change of generator or formatting changes every sweep.
  EXPECT_EQ(first.at("lr"), SampleTrial(spec, 1).at("lr"));
  spec.search.seed = 8;
  EXPECT_NE(SampleTrial(spec, 1), first);
  for (int n = 1; n <= 200; ++n) {
    const TrialParams p = SampleTrial(spec, n);
    const double lr = std::stod(p.at("lr"));
    EXPECT_GE(lr, 0.001 * 0.99999);
    EXPECT_LE(lr, 0.3 * 1.00001);
    EXPECT_TRUE(p.at("hidden") == "128" || p.at("hidden") == "256");
  }
}

TEST(Engine, StartsUpToParallelismThenOneForEachEnd) {
  SweepSpec spec = Spec(SearchAlgorithm::kRandom);
  spec.max_trials = 3;
  Sweep sweep = New(spec);
  EXPECT_THAT(Started(NextTrials(sweep)), ElementsAre(1, 2));
  EXPECT_THAT(Started(NextTrials(sweep)), ElementsAre());
  OnSubmitted(sweep, 1, "10");
  EXPECT_EQ(sweep.trials[0].state, TrialState::kQueued);
  EXPECT_THAT(Started(OnJobState(sweep, 1, JobState::kSucceeded, "")), ElementsAre(3));
  OnJobState(sweep, 2, JobState::kFailed, "exit 1");
  EXPECT_EQ(sweep.trials[1].reason, "exit 1");
  std::vector<SweepAction> last = OnJobState(sweep, 3, JobState::kSucceeded, "");
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].kind, Kind::kDone);
  EXPECT_EQ(sweep.state, SweepState::kSucceeded);
}

TEST(Engine, AshaRungsAreMinTimesEtaPowersBelowMax) {
  SearchSpec s;
  s.algorithm = SearchAlgorithm::kAsha;
  s.min_resource = 1;
  s.max_resource = 8;
  s.reduction_factor = 3;
  EXPECT_THAT(Rungs(s), ElementsAre(1, 3));
  s.max_resource = 9;
  s.reduction_factor = 2;
  EXPECT_THAT(Rungs(s), ElementsAre(1, 2, 4, 8));
}

TEST(Engine, AshaStopsATrialBelowItsRungsTopThirdWithTheCutoff) {
  SweepSpec spec = Spec(SearchAlgorithm::kAsha);
  spec.search.max_resource = 8;
  spec.max_trials = 4;
  spec.parallelism = 4;
  Sweep sweep = New(spec);
  EXPECT_THAT(Started(NextTrials(sweep)), ElementsAre(1, 2, 3, 4));
  // Fewer than η values at rung 1: promoted whatever they are.
  EXPECT_TRUE(OnReport(sweep, 1, 1, 0.80).empty());
  EXPECT_TRUE(OnReport(sweep, 2, 1, 0.60).empty());
  // The third value: only the best third (one) goes on.
  std::vector<SweepAction> stop = OnReport(sweep, 3, 1, 0.71);
  ASSERT_EQ(stop.size(), 1u);
  EXPECT_EQ(stop[0].kind, Kind::kStop);
  EXPECT_EQ(stop[0].trial, 3);
  EXPECT_EQ(stop[0].reason, "stopped early by asha at epoch 1 (0.71 < rung cutoff 0.8)");
  EXPECT_TRUE(sweep.trials[2].stop_requested);
  // Reports after the stop decide nothing; its end is Cancelled with the
  // reason, ranked by its value at the rung it was stopped at.
  EXPECT_TRUE(OnReport(sweep, 3, 2, 0.99).empty());
  OnJobState(sweep, 3, JobState::kCancelled, "cancelled by the user");
  EXPECT_EQ(sweep.trials[2].state, TrialState::kCancelled);
  EXPECT_THAT(sweep.trials[2].reason, HasSubstr("stopped early by asha at epoch 1"));
  EXPECT_EQ(*sweep.trials[2].objective, 0.71);
  EXPECT_EQ(sweep.trials[2].resource, 1);
  EXPECT_EQ(TrialOutcome(sweep, sweep.trials[2]), "stopped at rung 1 (epoch 1)");
  // The best so far is promoted; a value already seen is not decided twice.
  EXPECT_TRUE(OnReport(sweep, 4, 1, 0.90).empty());
  EXPECT_TRUE(OnReport(sweep, 4, 1, 0.10).empty());
  // A report past several rungs decides each rung in turn.
  EXPECT_TRUE(OnReport(sweep, 1, 3, 0.85).empty());
}

// The stale-objective race: the job ran to its end and reported a better last
// value, but the engine read its rung value (and stopped it) only afterwards.
// Its objective is its last value, and it is listed as finished.
TEST(Engine, ATrialWhoseJobEndedBeforeItsStopKeepsItsLastValue) {
  SweepSpec spec = Spec(SearchAlgorithm::kAsha);
  spec.search.max_resource = 4;
  spec.search.reduction_factor = 2;
  spec.max_trials = 2;
  Sweep sweep = New(spec);
  NextTrials(sweep);
  EXPECT_TRUE(OnReport(sweep, 1, 1, 0.90).empty());
  ASSERT_EQ(OnReport(sweep, 2, 1, 0.8039).size(), 1u);  // below rung 1's cutoff: stop
  EXPECT_TRUE(OnReport(sweep, 2, 2, 0.82).empty());
  EXPECT_TRUE(OnReport(sweep, 2, 4, 0.8312).empty());
  OnJobState(sweep, 2, JobState::kSucceeded, "");
  const SweepTrial& t = sweep.trials[1];
  EXPECT_EQ(t.state, TrialState::kSucceeded);
  EXPECT_EQ(*t.objective, 0.8312);
  EXPECT_EQ(t.resource, 4);
  EXPECT_EQ(t.reason, "");
  EXPECT_EQ(TrialOutcome(sweep, t), "finished");
}

TEST(Engine, AshaMinimizeComparesTheOtherWay) {
  SweepSpec spec = Spec(SearchAlgorithm::kAsha);
  spec.objective = {"loss", false};
  spec.search.max_resource = 4;
  spec.search.reduction_factor = 2;
  spec.max_trials = 2;
  Sweep sweep = New(spec);
  NextTrials(sweep);
  EXPECT_TRUE(OnReport(sweep, 1, 1, 0.5).empty());
  std::vector<SweepAction> stop = OnReport(sweep, 2, 1, 0.9);
  ASSERT_EQ(stop.size(), 1u);
  EXPECT_EQ(stop[0].reason, "stopped early by asha at epoch 1 (0.9 > rung cutoff 0.5)");
}

TEST(Engine, CancelStopsEveryActiveTrialAndStartsNoMore) {
  SweepSpec spec = Spec(SearchAlgorithm::kRandom);
  spec.max_trials = 5;
  Sweep sweep = New(spec);
  NextTrials(sweep);
  OnJobState(sweep, 1, JobState::kSucceeded, "");  // starts trial 3
  std::vector<SweepAction> actions = CancelSweep(sweep, "cancelled by the user");
  std::vector<int> stopped;
  for (const SweepAction& a : actions) {
    if (a.kind == Kind::kStop) stopped.push_back(a.trial);
  }
  EXPECT_THAT(stopped, ElementsAre(2, 3));
  EXPECT_EQ(sweep.state, SweepState::kCancelled);
  EXPECT_TRUE(Started(OnJobState(sweep, 2, JobState::kCancelled, "")).empty());
  EXPECT_EQ(sweep.trials.size(), 3u);
}

TEST(Engine, BestTrialFollowsTheGoal) {
  Sweep sweep = New(Spec(SearchAlgorithm::kRandom));
  sweep.trials.resize(3);
  sweep.trials[0].objective = 0.5;
  sweep.trials[2].objective = 0.7;
  EXPECT_EQ(BestTrial(sweep), 2u);
  sweep.spec.objective.maximize = false;
  EXPECT_EQ(BestTrial(sweep), 0u);
}

}  // namespace
}  // namespace dlp::internal
