// The controller's side of preemption, with real dlp-run processes: a policy
// that preempts job 1 for job 2 (the mechanism; which job to preempt is the
// policy's business, tested on its own) and the real executor and store.
// The victim gets SIGTERM, goes back to Queued (not a failure, whatever its
// restart policy), and starts again later with DLP_RESTART_COUNT raised.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/controller/controller.h"
#include "server/scheduler/policy.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using dlp::testing::Eventually;
using dlp::testing::ReadFileOrEmpty;
using ::testing::HasSubstr;

constexpr char kReason[] = "Preempted by job 2 (queue default reclaiming cpu)";

// Today's policy, plus: while job 2 waits and job 1 runs (and is not already
// stopping), preempt job 1 for job 2. Remembers whether it saw job 1 stopping.
class PreemptOneForTwo : public SchedulingPolicy {
 public:
  Decision Schedule(const Snapshot& snapshot) const override {
    Decision decision = fifo_.Schedule(snapshot);
    bool victim_running = false, preemptor_waiting = false;
    for (const RunningJob& job : snapshot.running) {
      if (job.seq != 1) continue;
      if (job.stopping) {
        std::lock_guard<std::mutex> lock(mu_);
        saw_stopping_ = true;
      } else {
        victim_running = true;
      }
    }
    for (const PendingJob& job : snapshot.pending) preemptor_waiting |= job.seq == 2;
    if (victim_running && preemptor_waiting) decision.preempt.push_back({1, 2, kReason});
    return decision;
  }
  bool saw_stopping() const {
    std::lock_guard<std::mutex> lock(mu_);
    return saw_stopping_;
  }

 private:
  PriorityFifoPolicy fifo_;
  mutable std::mutex mu_;
  mutable bool saw_stopping_ = false;
};

JobSpec ShellJob(const std::string& name, const std::string& script) {
  JobSpec spec;
  spec.name = name;
  ReplicaSpec r;
  r.role = "worker";
  r.command = {"/bin/sh", "-c", script};
  r.resources.cpu_millis = 1000;
  spec.replicas.push_back(r);
  spec.workdir = "/tmp";
  return spec;
}

void Touch(const std::string& path) { std::ofstream(path) << "go\n"; }

bool HasEvent(const std::vector<Event>& events, const std::string& type) {
  for (const Event& e : events) {
    if (e.type == type) return true;
  }
  return false;
}

// The message of the first event of `type`, or "".
std::string EventMessage(const std::vector<Event>& events, const std::string& type) {
  for (const Event& e : events) {
    if (e.type == type) return e.message;
  }
  return "";
}

class ControllerPreemptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(dlp::testing::BinPath("dlp-run").c_str(), X_OK) != 0) {
      GTEST_SKIP() << "dlp-run is not built";
    }
    absl::StatusOr<JobStore> store = JobStore::Open(dir_.Join("jobs.db"));
    ASSERT_TRUE(store.ok()) << store.status();
    ExecutorOptions executor;
    executor.jobs_dir = dir_.Join("jobs");
    // Far longer than any test waits: a victim is killed after its own grace period.
    executor.grace_period = absl::Seconds(300);
    executor.dlp_run = dlp::testing::BinPath("dlp-run");
    ControllerOptions options;
    options.capacity.cpu_millis = 1000;  // one job at a time
    options.poll_interval = absl::Milliseconds(20);
    auto policy = std::make_unique<PreemptOneForTwo>();
    policy_ = policy.get();
    controller_ = std::make_unique<Controller>(std::move(*store), std::move(policy),
                                               Executor(executor), options);
    ASSERT_TRUE(controller_->Start().ok());
  }
  void TearDown() override {
    if (!controller_) return;
    Touch(release_);
    Touch(leave_);
    for (const char* id : {"1", "2"}) {
      (void)controller_->Cancel(id, "");
      (void)controller_->Wait(id, "", absl::Seconds(60));
    }
    controller_->Shutdown();
  }

  std::string Submit(JobSpec spec) {
    absl::StatusOr<Job> job = controller_->Submit(std::move(spec), "");
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? job->id : "";
  }
  Job Get(const std::string& id) { return controller_->Get(id, "").value_or(Job()); }
  std::string Log(const std::string& id) {
    auto open = controller_->LogFolder(id, "");
    if (!open.ok()) return "";
    absl::StatusOr<contract::TenantFolder> folder = (*open)();
    return folder.ok() ? folder->ReadFile("worker-0.log", 0, 1 << 20).value_or("") : "";
  }
  // Job 2 runs until the test creates `release`.
  JobSpec Preemptor() {
    return ShellJob("preemptor", "while [ ! -e " + release_ + " ]; do sleep 0.05; done");
  }

  dlp::testing::TempDir dir_;
  const std::string release_ = dir_.Join("release");
  const std::string termed_ = dir_.Join("termed");
  const std::string leave_ = dir_.Join("leave");  // a TERMed victim waits for it
  PreemptOneForTwo* policy_ = nullptr;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerPreemptionTest, VictimGetsTermReturnsToQueueAndResumesWithRestartCount) {
  // Restart policy Never: a preemption is not a failure.
  const std::string victim =
      Submit(ShellJob("victim",
                      "echo restart=$DLP_RESTART_COUNT\n"
                      "if [ \"$DLP_RESTART_COUNT\" -gt 0 ]; then exit 0; fi\n"
                      "trap 'touch " +
                          termed_ + "; while [ ! -e " + leave_ +
                          " ]; do sleep 0.05; done; exit 0' TERM\n"
                          "while :; do sleep 0.05; done"));
  ASSERT_TRUE(Eventually([&] { return Log(victim).find("restart=0") != std::string::npos; }));
  const std::string preemptor = Submit(Preemptor());
  // The victim stays until the policy has seen it stopping: a victim that
  // leaves at once may be reaped before the policy decides again.
  ASSERT_TRUE(Eventually([&] { return policy_->saw_stopping(); })) << Get(victim).reason;
  Touch(leave_);

  // Back in its queue while the preemptor runs.
  ASSERT_TRUE(Eventually([&] { return Get(preemptor).state == JobState::kRunning; }))
      << Get(victim).reason;
  EXPECT_EQ(access(termed_.c_str(), F_OK), 0) << "the victim's TERM trap did not run";
  Job queued = Get(victim);
  EXPECT_EQ(queued.state, JobState::kQueued);
  // Its reason was the preemption's; the policy explains its wait since.
  EXPECT_FALSE(queued.reason.empty());
  EXPECT_EQ(queued.preemptions, 1);
  EXPECT_EQ(queued.restart_count, 1);
  EXPECT_FALSE(queued.started.has_value());
  absl::StatusOr<std::vector<Event>> events = controller_->Events(victim, "");
  ASSERT_TRUE(events.ok());
  EXPECT_THAT(EventMessage(*events, "Preempting"), HasSubstr(kReason));
  EXPECT_THAT(EventMessage(*events, "Preempted"), HasSubstr(kReason));
  EXPECT_THAT(EventMessage(*events, "Preempted"), HasSubstr("DLP_RESTART_COUNT=1"));
  EXPECT_FALSE(HasEvent(*events, "Killed"));  // it left on TERM
  EXPECT_FALSE(HasEvent(*events, "Failed"));

  // Once the preemptor is done, the victim starts again and resumes.
  Touch(release_);
  absl::StatusOr<Job> done = controller_->Wait(victim, "", absl::Seconds(60));
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, JobState::kSucceeded) << done->reason;
  EXPECT_EQ(done->preemptions, 1);
  EXPECT_EQ(done->restart_count, 1);
  EXPECT_THAT(Log(victim), HasSubstr("restart=1"));
  EXPECT_EQ(controller_->Wait(preemptor, "", absl::Seconds(60))->state, JobState::kSucceeded);
}

TEST_F(ControllerPreemptionTest, VictimIgnoringTermIsKilledAfterItsGracePeriod) {
  JobSpec spec =
      ShellJob("stubborn", "trap '' TERM\necho ignoring TERM\nwhile :; do sleep 0.05; done");
  spec.preemption.grace_period_seconds = 1;  // the executor's own is 300 s
  const std::string victim = Submit(spec);
  // Preempted only once the trap is set (Running comes before the shell sets it).
  ASSERT_TRUE(Eventually([&] { return Log(victim).find("ignoring TERM") != std::string::npos; }));
  const std::string preemptor = Submit(Preemptor());
  ASSERT_TRUE(Eventually([&] { return Get(victim).preemptions == 1; }, absl::Seconds(60)))
      << Get(victim).reason;
  absl::StatusOr<std::vector<Event>> events = controller_->Events(victim, "");
  ASSERT_TRUE(events.ok());
  EXPECT_TRUE(HasEvent(*events, "Killed"));
  EXPECT_THAT(EventMessage(*events, "Preempted"), HasSubstr(kReason));
  EXPECT_EQ(Get(victim).state, JobState::kQueued);
  EXPECT_TRUE(Eventually([&] { return Get(preemptor).state == JobState::kRunning; }));
}

TEST_F(ControllerPreemptionTest, PreemptionDoesNotUseUpMaxRestarts) {
  // One restart allowed for failures; the preemption is not one of them.
  JobSpec spec = ShellJob("resumes",
                          "echo restart=$DLP_RESTART_COUNT\n"
                          "case $DLP_RESTART_COUNT in\n"
                          "  0) trap 'exit 0' TERM; while :; do sleep 0.05; done;;\n"
                          "  1) exit 3;;\n"
                          "  *) exit 0;;\n"
                          "esac");
  spec.restart_policy.policy = RestartPolicyKind::kOnFailure;
  spec.restart_policy.max_restarts = 1;
  const std::string victim = Submit(spec);
  ASSERT_TRUE(Eventually([&] { return Log(victim).find("restart=0") != std::string::npos; }));
  Touch(release_);  // the preemptor ends at once
  Submit(Preemptor());
  absl::StatusOr<Job> done = controller_->Wait(victim, "", absl::Seconds(60));
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, JobState::kSucceeded) << done->reason;
  EXPECT_EQ(done->preemptions, 1);
  EXPECT_EQ(done->restart_count, 2);  // one preemption, one failure
  const std::string log = Log(victim);
  EXPECT_THAT(log, HasSubstr("restart=1"));
  EXPECT_THAT(log, HasSubstr("restart=2"));
}

}  // namespace
}  // namespace dlp::server
