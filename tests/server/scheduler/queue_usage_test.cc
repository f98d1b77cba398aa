// Each queue's used, borrowed, lent and fair-share value.
#include "server/scheduler/queue_usage.h"

#include <gtest/gtest.h>

#include "policy_test_util.h"

namespace dlp::server {
namespace {

using namespace dlp::server::testing;  // NOLINT

TEST(QueueUsageTest, BorrowedComesOutOfWhatTheOthersLeaveUnused) {
  Snapshot s = Machine(64, 8);
  s.queues = {Queue("vision", "lab", Res(16, 2), std::nullopt, 2), Queue("nlp", "lab", Res(16, 4)),
              Queue("idle", "lab", Res(16, 2))};
  // vision uses 5 GPUs (borrows 3); nlp uses 2 of its 4; idle none of its 2:
  // the 3 borrowed come from nlp's 2 unused and idle's 2, half each.
  s.running = {Running(1, "vision", 1, {"0", "1", "2", "3", "4"}),
               Running(2, "nlp", 1, {"5", "6"})};
  s.pending = {Job(3, "nlp", 1, 1), Job(4, "nlp", 1, 1)};
  std::vector<QueueStatus> q = QueueStatuses(s);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].config.name, "vision");
  EXPECT_EQ(q[0].used.gpu_millis, 5000);
  EXPECT_EQ(q[0].borrowed.gpu_millis, 3000);
  EXPECT_EQ(q[0].lent.gpu_millis, 0);
  EXPECT_DOUBLE_EQ(q[0].share, 3.0 / 8.0 / 2.0);  // the pool is 8 GPUs, weight 2
  EXPECT_EQ(q[0].running, 1);
  EXPECT_EQ(q[1].lent.gpu_millis, 1500);
  EXPECT_EQ(q[1].pending, 2);
  EXPECT_EQ(q[2].lent.gpu_millis, 1500);
  EXPECT_EQ(q[2].share, 0);
}

TEST(QueueUsageTest, WithoutQueuesEachNamedQueueHasTheMachine) {
  Snapshot s = Machine(8);
  s.running = {Running(1, "b", 2)};
  s.pending = {Job(2, "a", 1)};
  std::vector<QueueStatus> q = QueueStatuses(s);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].config, ImplicitQueue("a", s.capacity));
  EXPECT_EQ(q[1].used.cpu_millis, 2000);
  EXPECT_EQ(q[1].borrowed.cpu_millis, 0);
  EXPECT_EQ(q[1].share, 0);
}

}  // namespace
}  // namespace dlp::server
