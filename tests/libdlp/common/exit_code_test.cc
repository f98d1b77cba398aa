// The one place that maps outcomes to the CLI's exit codes.
#include "dlp/exit_code.h"

#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "dlp/job.h"

namespace dlp {
namespace {

TEST(ExitCodeForStatus, MapsEachStatusClass) {
  EXPECT_EQ(ExitCodeForStatus(absl::OkStatus()), ExitCode::kSuccess);
  EXPECT_EQ(ExitCodeForStatus(absl::InvalidArgumentError("bad spec")), ExitCode::kUsage);
  EXPECT_EQ(ExitCodeForStatus(absl::OutOfRangeError("x")), ExitCode::kUsage);
  EXPECT_EQ(ExitCodeForStatus(absl::FailedPreconditionError("x")), ExitCode::kUsage);
  EXPECT_EQ(ExitCodeForStatus(absl::AlreadyExistsError("tenant exists")), ExitCode::kUsage);
  EXPECT_EQ(ExitCodeForStatus(absl::NotFoundError("job 4 not found")), ExitCode::kNotFound);
  EXPECT_EQ(ExitCodeForStatus(absl::CancelledError("ctrl-c")), ExitCode::kInterrupted);
  EXPECT_EQ(ExitCodeForStatus(absl::UnavailableError("down")), ExitCode::kBackend);
  EXPECT_EQ(ExitCodeForStatus(absl::InternalError("bug")), ExitCode::kBackend);
  EXPECT_EQ(ExitCodeForStatus(absl::DeadlineExceededError("slow")), ExitCode::kBackend);
  EXPECT_EQ(ExitCodeForStatus(absl::UnauthenticatedError("token")), ExitCode::kBackend);
  EXPECT_EQ(ExitCodeForStatus(absl::PermissionDeniedError("owner only")), ExitCode::kDenied);
}

TEST(ExitCodeForJob, OnlySuccessIsZero) {
  Job job;
  job.state = JobState::kSucceeded;
  EXPECT_EQ(ExitCodeForJob(job), ExitCode::kSuccess);
  job.state = JobState::kFailed;
  EXPECT_EQ(ExitCodeForJob(job), ExitCode::kJobFailed);
  job.state = JobState::kCancelled;
  EXPECT_EQ(ExitCodeForJob(job), ExitCode::kCancelled);
  job.state = JobState::kRunning;
  EXPECT_EQ(ExitCodeForJob(job), ExitCode::kBackend);
  job.state = JobState::kQueued;
  EXPECT_EQ(ExitCodeForJob(job), ExitCode::kBackend);
}

TEST(ExitCode, DocumentedValues) {
  EXPECT_EQ(static_cast<int>(ExitCode::kSuccess), 0);
  EXPECT_EQ(static_cast<int>(ExitCode::kJobFailed), 1);
  EXPECT_EQ(static_cast<int>(ExitCode::kUsage), 2);
  EXPECT_EQ(static_cast<int>(ExitCode::kNotFound), 3);
  EXPECT_EQ(static_cast<int>(ExitCode::kBackend), 4);
  EXPECT_EQ(static_cast<int>(ExitCode::kCancelled), 5);
  EXPECT_EQ(static_cast<int>(ExitCode::kDenied), 6);
  EXPECT_EQ(static_cast<int>(ExitCode::kInterrupted), 130);
}

TEST(JobStateNames, ExactAndCaseInsensitiveParse) {
  const JobState all[] = {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                          JobState::kFailed, JobState::kCancelled};
  const char* names[] = {"Queued", "Running", "Succeeded", "Failed", "Cancelled"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(JobStateName(all[i]), names[i]);
    EXPECT_EQ(ParseJobState(names[i]), all[i]);
  }
  EXPECT_EQ(ParseJobState("running"), JobState::kRunning);
  EXPECT_EQ(ParseJobState("FAILED"), JobState::kFailed);
  EXPECT_EQ(ParseJobState("Canceled"), std::nullopt);
  EXPECT_EQ(ParseJobState(""), std::nullopt);
  EXPECT_FALSE(IsTerminal(JobState::kQueued));
  EXPECT_FALSE(IsTerminal(JobState::kRunning));
  EXPECT_TRUE(IsTerminal(JobState::kSucceeded));
  EXPECT_TRUE(IsTerminal(JobState::kFailed));
  EXPECT_TRUE(IsTerminal(JobState::kCancelled));
}

TEST(EnumNames, FrameworksAndPolicies) {
  EXPECT_EQ(FrameworkName(Framework::kNone), "none");
  EXPECT_EQ(FrameworkName(Framework::kPyTorch), "pytorch");
  EXPECT_EQ(FrameworkName(Framework::kTensorFlow), "tensorflow");
  EXPECT_EQ(FrameworkName(Framework::kHorovod), "horovod");
  EXPECT_EQ(FrameworkName(Framework::kJax), "jax");
  EXPECT_EQ(RestartPolicyName(RestartPolicyKind::kNever), "Never");
  EXPECT_EQ(RestartPolicyName(RestartPolicyKind::kOnFailure), "OnFailure");
  EXPECT_EQ(RestartPolicyName(RestartPolicyKind::kExitCode), "ExitCode");
}

}  // namespace
}  // namespace dlp
