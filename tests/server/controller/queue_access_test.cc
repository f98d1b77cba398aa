// Which queue a job may name: anything with no queue configured; else a known
// queue, one its tenant is allowed into (the owner: any), within its range.
#include "server/controller/queue_access.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/store/tenant_store.h"

namespace dlp::server {
namespace {

using ::testing::HasSubstr;

QueueCatalog Catalog() {
  QueueCatalog c;
  QueueConfig nlp, vision;
  nlp.name = "nlp";
  vision.name = "vision";
  vision.min_priority = -100;
  vision.max_priority = 100;
  c.queues = {nlp, vision};
  c.allowed["alice"] = {"vision"};
  return c;
}

TEST(QueueAccess, WithoutQueuesEveryNameIsAccepted) {
  EXPECT_TRUE(CheckQueueAccess(QueueCatalog{}, "anything", "alice", 5000).ok());
}

TEST(QueueAccess, UnknownQueueIsInvalidAndListsTheQueues) {
  absl::Status s = CheckQueueAccess(Catalog(), "audio", "alice", 0);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_THAT(s.message(), HasSubstr("spec.queue: no queue \"audio\"; this dlpd's queues are "
                                     "nlp, vision"));
}

TEST(QueueAccess, TenantsNeedAGrantTheOwnerDoesNot) {
  EXPECT_TRUE(CheckQueueAccess(Catalog(), "vision", "alice", 0).ok());
  absl::Status s = CheckQueueAccess(Catalog(), "nlp", "alice", 0);
  EXPECT_TRUE(absl::IsPermissionDenied(s));
  EXPECT_THAT(s.message(), HasSubstr("tenant \"alice\" may not use queue \"nlp\" (it may use "
                                     "only vision)"));
  EXPECT_THAT(CheckQueueAccess(Catalog(), "nlp", "bob", 0).message(),
              HasSubstr("(it may use no queue)"));
  EXPECT_TRUE(CheckQueueAccess(Catalog(), "nlp", kOwnerTenant, 0).ok());
  EXPECT_TRUE(CheckQueueAccess(Catalog(), "nlp", "", 0).ok());
}

TEST(QueueAccess, PriorityOutsideTheQueuesRange) {
  EXPECT_TRUE(CheckQueueAccess(Catalog(), "vision", "alice", 100).ok());
  absl::Status s = CheckQueueAccess(Catalog(), "vision", "alice", 1000);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_THAT(s.message(),
              HasSubstr("spec.priority: 1000 is outside queue vision's priority range -100..100"));
}

}  // namespace
}  // namespace dlp::server
