// The sweep driver over an in-memory host (the real one is dlpd, tested in
// dlpd_sweeps_integration_test.cc): a driver that starts again from what was
// saved last, as after a crash at any step, submits every trial exactly once.
#include "dlp/sweep_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "sweep/engine.h"

namespace dlp::internal {
namespace {

// Jobs that end as soon as they are read, reporting `score` = the trial number.
class MemoryHost : public TrialHost {
 public:
  absl::StatusOr<std::string> Submit(const JobSpec& spec) override {
    ++submissions;
    Job job;
    job.id = absl::StrCat(jobs_.size() + 1);
    job.spec = spec;
    job.state = JobState::kRunning;
    jobs_[job.id] = job;
    return job.id;
  }
  absl::StatusOr<std::string> FindTrialJob(const std::string& sweep, int number) override {
    for (const auto& [id, job] : jobs_) {
      if (job.spec.labels.at("dlp.dev/sweep") == sweep &&
          job.spec.labels.at("dlp.dev/trial") == absl::StrCat(number)) {
        return id;
      }
    }
    return std::string();
  }
  absl::StatusOr<Job> Get(const std::string& id) override {
    Job& job = jobs_.at(id);
    Job seen = job;
    job.state = JobState::kSucceeded;  // ends after this read
    return seen;
  }
  absl::Status Cancel(const std::string& id, const std::string& reason) override {
    jobs_.at(id).state = JobState::kCancelled;
    jobs_.at(id).reason = reason;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<MetricPoint>> NewMetrics(const std::string& id, bool) override {
    MetricPoint p;
    p.name = "score";
    p.step = 1;
    p.value = std::stod(jobs_.at(id).spec.labels.at("dlp.dev/trial"));
    return std::vector<MetricPoint>{p};
  }
  int submissions = 0;

 private:
  std::map<std::string, Job> jobs_;
};

// Keeps what was saved; `fail_after` saves it refuses (a crash from there on).
class MemorySaver : public SweepSaver {
 public:
  absl::Status Save(const Sweep& sweep, const std::set<int>&) override {
    if (fail_after == 0) return absl::UnavailableError("crashed");
    if (fail_after > 0) --fail_after;
    saved = sweep;
    return absl::OkStatus();
  }
  Sweep saved;
  int fail_after = -1;
};

Sweep NewSweep() {
  Sweep sweep;
  sweep.id = "7";
  sweep.spec.name = "s";
  sweep.spec.objective = {"score", true};
  sweep.spec.search.algorithm = SearchAlgorithm::kRandom;
  sweep.spec.max_trials = 5;
  sweep.spec.parallelism = 2;
  sweep.spec.parameters = {{"x", ParamType::kInt, 1, 9, 0, {}}};
  ReplicaSpec r;
  r.role = "worker";
  r.command = {"echo", "${params.x}"};
  sweep.spec.job.name = "s";
  sweep.spec.job.replicas = {r};
  sweep.spec.job.workdir = "/tmp";
  return sweep;
}

TEST(SweepDriver, RunsEveryTrialOnce) {
  MemoryHost host;
  MemorySaver saver;
  SweepDriver driver(host, saver);
  Sweep sweep = NewSweep();
  for (int i = 0; i < 20 && SweepDriver::Active(sweep); ++i) ASSERT_TRUE(driver.Step(sweep).ok());
  EXPECT_EQ(sweep.state, SweepState::kSucceeded);
  EXPECT_EQ(host.submissions, 5);
  ASSERT_EQ(sweep.trials.size(), 5u);
  EXPECT_EQ(*sweep.trials[*BestTrial(sweep)].objective, 5);
  EXPECT_EQ(saver.saved.state, SweepState::kSucceeded);
}

// A crash after every possible number of saves: a new driver goes on from
// the last saved sweep over the same jobs, and no trial is submitted twice
// or lost.
TEST(SweepDriver, ACrashAtAnyStepLosesAndDuplicatesNothing) {
  for (int crash_after = 0; crash_after < 12; ++crash_after) {
    SCOPED_TRACE(absl::StrCat("crash after ", crash_after, " saves"));
    MemoryHost host;
    MemorySaver saver;
    saver.saved = NewSweep();
    saver.fail_after = crash_after;
    {
      SweepDriver first(host, saver);
      Sweep sweep = saver.saved;
      for (int i = 0; i < 20 && SweepDriver::Active(sweep); ++i) {
        if (!first.Step(sweep).ok()) break;  // "crashed": memory is lost
      }
    }
    saver.fail_after = -1;
    SweepDriver again(host, saver);
    Sweep sweep = saver.saved;
    for (int i = 0; i < 20 && SweepDriver::Active(sweep); ++i) ASSERT_TRUE(again.Step(sweep).ok());
    EXPECT_EQ(sweep.state, SweepState::kSucceeded);
    EXPECT_EQ(host.submissions, 5);
    std::set<std::string> jobs;
    for (const SweepTrial& t : sweep.trials) {
      EXPECT_EQ(t.state, TrialState::kSucceeded) << t.number;
      jobs.insert(t.job);
    }
    EXPECT_EQ(jobs.size(), 5u);
  }
}

TEST(SweepDriver, CancelStopsActiveTrialsThroughTheHost) {
  MemoryHost host;
  MemorySaver saver;
  SweepDriver driver(host, saver);
  Sweep sweep = NewSweep();
  ASSERT_TRUE(driver.Step(sweep).ok());  // two trials submitted, Queued
  ASSERT_TRUE(driver.Cancel(sweep, "sweep cancelled").ok());
  for (int i = 0; i < 5 && SweepDriver::Active(sweep); ++i) ASSERT_TRUE(driver.Step(sweep).ok());
  EXPECT_EQ(sweep.state, SweepState::kCancelled);
  EXPECT_EQ(sweep.trials.size(), 2u);
  EXPECT_EQ(host.submissions, 2);
}

// Jobs that have ended when first read, with every point they reported: the
// engine sees a trial's rung value, and its decision, only after its job finished.
class FinishedJobsHost : public MemoryHost {
 public:
  absl::StatusOr<Job> Get(const std::string& id) override {
    absl::StatusOr<Job> job = MemoryHost::Get(id);
    if (job.ok()) job->state = JobState::kSucceeded;
    return job;
  }
  absl::StatusOr<std::vector<MetricPoint>> NewMetrics(const std::string& id, bool) override {
    if (!read_.insert(id).second) return std::vector<MetricPoint>{};
    std::vector<MetricPoint> points;
    for (const auto& [step, value] : curves.at(id)) {
      MetricPoint p;
      p.name = "score";
      p.step = step;
      p.value = value;
      points.push_back(p);
    }
    return points;
  }
  std::map<std::string, std::vector<std::pair<int64_t, double>>> curves;  // by job id

 private:
  std::set<std::string> read_;
};

TEST(SweepDriver, AnAshaTrialThatFinishedIsRankedByItsLastValueNotItsRung) {
  FinishedJobsHost host;
  host.curves["1"] = {{1, 0.90}, {2, 0.91}, {4, 0.92}};
  host.curves["2"] = {{1, 0.8039}, {2, 0.82}, {4, 0.8312}};
  MemorySaver saver;
  SweepDriver driver(host, saver);
  Sweep sweep = NewSweep();
  sweep.spec.search.algorithm = SearchAlgorithm::kAsha;
  sweep.spec.search.min_resource = 1;
  sweep.spec.search.max_resource = 4;
  sweep.spec.search.reduction_factor = 2;
  sweep.spec.max_trials = 2;
  for (int i = 0; i < 10 && SweepDriver::Active(sweep); ++i) ASSERT_TRUE(driver.Step(sweep).ok());
  ASSERT_EQ(sweep.state, SweepState::kSucceeded);
  const SweepTrial& second = saver.saved.trials.at(1);
  EXPECT_EQ(second.state, TrialState::kSucceeded);
  EXPECT_EQ(*second.objective, 0.8312);
  EXPECT_EQ(second.resource, 4);
  EXPECT_EQ(TrialOutcome(saver.saved, second), "finished");
}

}  // namespace
}  // namespace dlp::internal
