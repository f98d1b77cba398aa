// Slurm's job records (squeue/sacct JSON) mapped into dlp's job model: states,
// reasons, exit codes, and the replicas from dlp-run's status file.
#include "backends/slurm/job_mapping.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "contract/dlp_run.h"
#include "contract/status.h"
#include "dlp/codec.h"
#include "support/temp_dir.h"

namespace dlp::internal {
namespace {

using ::testing::HasSubstr;

TEST(MapSlurmState, EveryStateHasADlpState) {
  for (const char* s : {"PENDING", "REQUEUED", "REQUEUE_HOLD", "CONFIGURING"}) {
    EXPECT_EQ(MapSlurmState(s), JobState::kQueued) << s;
  }
  for (const char* s : {"RUNNING", "COMPLETING", "SUSPENDED", "STAGE_OUT"}) {
    EXPECT_EQ(MapSlurmState(s), JobState::kRunning) << s;
  }
  EXPECT_EQ(MapSlurmState("COMPLETED"), JobState::kSucceeded);
  EXPECT_EQ(MapSlurmState("CANCELLED"), JobState::kCancelled);
  for (const char* s :
       {"FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "PREEMPTED"}) {
    EXPECT_EQ(MapSlurmState(s), JobState::kFailed) << s;
  }
}

TEST(MapSlurmReason, NamesHowAJobEnded) {
  SlurmJobRecord r;
  r.state = "TIMEOUT";
  r.reason = "TimeLimit";
  EXPECT_EQ(MapSlurmReason(r, JobState::kFailed), "TimeLimit");
  r.state = "OUT_OF_MEMORY";
  EXPECT_EQ(MapSlurmReason(r, JobState::kFailed), "OutOfMemory");
  r.state = "NODE_FAIL";
  EXPECT_EQ(MapSlurmReason(r, JobState::kFailed), "NodeFail");
  r.state = "PENDING";
  r.reason = "Resources";
  EXPECT_EQ(MapSlurmReason(r, JobState::kQueued), "Resources");
  r.reason = "None";
  EXPECT_EQ(MapSlurmReason(r, JobState::kRunning), "");
  r.state = "COMPLETED";
  r.reason = "Whatever";
  EXPECT_EQ(MapSlurmReason(r, JobState::kSucceeded), "");
  r.state = "CANCELLED";
  r.reason = "Dependency";  // scancel of a job waiting for another
  EXPECT_EQ(MapSlurmReason(r, JobState::kCancelled), "");
  r.reason = "DependencyNeverSatisfied";
  EXPECT_EQ(MapSlurmReason(r, JobState::kCancelled), "DependencyNeverSatisfied");
}

SlurmJobRecord Finished(const std::string& state, int exit_status) {
  SlurmJobRecord r;
  r.id = "42";
  r.name = "train";
  r.user = "u";
  r.partition = "batch";
  r.state = state;
  r.reason = state == "FAILED" ? "NonZeroExitCode" : "None";
  r.exit_status = exit_status;
  r.nodes = "node1";
  r.submitted = absl::FromUnixSeconds(100);
  r.started = absl::FromUnixSeconds(110);
  r.ended = absl::FromUnixSeconds(120);
  return r;
}

TEST(ToJob, ExitCodesFromTheWaitStatus) {
  Job ok = ToJob(Finished("COMPLETED", 0), "");
  EXPECT_EQ(ok.state, JobState::kSucceeded);
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.started, absl::FromUnixSeconds(110));
  EXPECT_EQ(ok.finished, absl::FromUnixSeconds(120));
  EXPECT_EQ(ToJob(Finished("FAILED", 3 << 8), "").exit_code, 3);
  EXPECT_EQ(ToJob(Finished("FAILED", 9), "").exit_code, 137);
  Job queued = ToJob(Finished("PENDING", 0), "");
  EXPECT_FALSE(queued.started);
  EXPECT_FALSE(queued.exit_code);
}

class ToJobWithFolder : public ::testing::Test {
 protected:
  ToJobWithFolder() {
    JobSpec spec;
    spec.name = "train";
    spec.replicas = {{"worker", 2, {"true"}, {}, {}}};
    dir_.WriteFile("spec.json", JobSpecToJson(spec, 2));
  }
  void WriteStatus(const contract::GroupStatus& status) {
    dir_.WriteFile("status.json", contract::StatusToJson(status));
  }
  testing::TempDir dir_;
};

TEST_F(ToJobWithFolder, BeforeDlpRunStartsEveryReplicaIsInTheJobsState) {
  Job job = ToJob(Finished("RUNNING", 0), dir_.path());
  ASSERT_EQ(job.replicas.size(), 2u);
  EXPECT_EQ(job.replicas[1].name, "worker-1");
  EXPECT_EQ(job.replicas[1].state, JobState::kRunning);
  EXPECT_EQ(job.replicas[1].host, "node1");
  EXPECT_EQ(job.restart_count, 0);
}

TEST_F(ToJobWithFolder, ReplicasAndRestartsComeFromTheStatusFile) {
  contract::GroupStatus status;
  status.state = "Failed";
  status.restarts = 2;
  status.replicas = {{"worker-0", "worker", 0, 0, "node1", 10, 10, "Failed", std::nullopt, 15},
                     {"worker-1", "worker", 1, 1, "node2", 11, 11, "Failed", 3, std::nullopt}};
  WriteStatus(status);
  Job job = ToJob(Finished("FAILED", 3 << 8), dir_.path());
  EXPECT_EQ(job.name, "train");
  EXPECT_EQ(job.restart_count, 2);
  ASSERT_EQ(job.replicas.size(), 2u);
  EXPECT_EQ(job.replicas[0].signal, 15);
  EXPECT_EQ(job.replicas[1].exit_code, 3);
  EXPECT_EQ(job.replicas[1].host, "node2");
  EXPECT_EQ(job.exit_code, 3);
  EXPECT_THAT(job.reason, HasSubstr("worker-1 exited with code 3"));
}

TEST_F(ToJobWithFolder, AReplicaThatCouldNotStartSaysWhy) {
  contract::GroupStatus status;
  status.state = "Failed";
  status.replicas = {{"worker-0", "worker", 0, 0, "node1", 0, 0, "Failed", 127, std::nullopt,
                      "could not start: cannot execute train: No such file or directory"}};
  WriteStatus(status);
  Job job = ToJob(Finished("FAILED", 127 << 8), dir_.path());
  EXPECT_EQ(job.reason,
            "NonZeroExitCode: worker-0 could not start: cannot execute train: No such file or "
            "directory");
  EXPECT_EQ(job.exit_code, 127);
}

TEST_F(ToJobWithFolder, SlurmsStateWinsOverAStatusFileItOutlived) {
  contract::GroupStatus status;
  status.state = "Running";
  status.restarts = 1;
  status.replicas = {{"worker-0", "worker", 0, 0, "node1", 10, 10, "Running", {}, {}},
                     {"worker-1", "worker", 1, 1, "node1", 11, 11, "Running", {}, {}}};
  WriteStatus(status);
  Job cancelled = ToJob(Finished("CANCELLED", 15), dir_.path());
  EXPECT_EQ(cancelled.replicas[0].state, JobState::kCancelled);
  Job requeued = ToJob(Finished("PENDING", 0), dir_.path());
  EXPECT_EQ(requeued.replicas[0].state, JobState::kQueued);
  EXPECT_EQ(requeued.restart_count, 1);
}

TEST(ParseSlurmJobs, ReadsSqueueAndRestReplies) {
  auto jobs = ParseSlurmJobs(R"({"jobs": [
    {"job_id": 7, "name": "a", "comment": "dlp:a-1", "user_name": "u", "partition": "p",
     "job_state": "RUNNING", "state_reason": "None", "exit_code": 0, "nodes": "n1",
     "submit_time": 100, "start_time": 110, "end_time": 0},
    {"job_id": {"set": true, "number": 8}, "job_state": ["FAILED"],
     "exit_code": {"set": true, "number": 768}}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].id, "7");
  EXPECT_EQ((*jobs)[0].comment, "dlp:a-1");
  EXPECT_EQ((*jobs)[0].started, absl::FromUnixSeconds(110));
  EXPECT_FALSE((*jobs)[0].ended);
  EXPECT_EQ((*jobs)[1].id, "8");
  EXPECT_EQ((*jobs)[1].state, "FAILED");
  EXPECT_EQ(ToJob((*jobs)[1], "").exit_code, 3);
  auto errors = ParseSlurmJobs(R"({"errors": [{"error": "Invalid job id"}]})");
  ASSERT_FALSE(errors.ok());
  EXPECT_THAT(std::string(errors.status().message()), HasSubstr("Invalid job id"));
  EXPECT_FALSE(ParseSlurmJobs("not json").ok());
}

}  // namespace
}  // namespace dlp::internal
