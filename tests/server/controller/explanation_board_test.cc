#include "server/controller/explanation_board.h"

#include <gtest/gtest.h>

namespace dlp::server {
namespace {

JobRecord Record(int64_t seq, JobState state, const std::string& reason) {
  JobRecord r;
  r.seq = seq;
  r.job.state = state;
  r.job.reason = reason;
  return r;
}

TEST(ExplanationBoard, AQueuedRecordGetsTheLatestExplanation) {
  ExplanationBoard board;
  board.Put({{7, "2nd in queue default", 2, absl::FromUnixSeconds(100)}});
  board.Put({{7, "1st in queue default", 1, std::nullopt}});
  JobRecord r = Record(7, JobState::kQueued, "3rd in queue default (stored)");
  board.Overlay(r);
  EXPECT_EQ(r.job.reason, "1st in queue default");
  EXPECT_EQ(r.job.position, 1);
  EXPECT_FALSE(r.job.estimated_start.has_value());
}

TEST(ExplanationBoard, OtherJobsAndOtherStatesKeepWhatTheStoreSays) {
  ExplanationBoard board;
  board.Put({{7, "1st in queue default", 1, std::nullopt}});
  JobRecord running = Record(7, JobState::kRunning, "");  // read after it started
  board.Overlay(running);
  EXPECT_EQ(running.job.reason, "");
  JobRecord other = Record(8, JobState::kQueued, "stored");
  board.Overlay(other);
  EXPECT_EQ(other.job.reason, "stored");
}

TEST(ExplanationBoard, AForgottenJobKeepsItsStoredReason) {
  ExplanationBoard board;
  board.Put({{7, "1st in queue default", 1, std::nullopt}});
  board.Forget(7);  // preempted and back in the queue: the store says why
  JobRecord r = Record(7, JobState::kQueued, "Preempted by job 9");
  board.Overlay(r);
  EXPECT_EQ(r.job.reason, "Preempted by job 9");
}

}  // namespace
}  // namespace dlp::server
