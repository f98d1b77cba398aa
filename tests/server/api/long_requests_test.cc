#include "server/api/long_requests.h"

#include <gtest/gtest.h>

#include <vector>

namespace dlp::server {
namespace {

TEST(LongRequestsTest, BoundsEachTenantAndReleasesOnDrop) {
  LongRequests limits(/*per_tenant=*/2, /*total=*/10);
  std::vector<LongRequests::Slot> held;
  held.push_back(*limits.Acquire("a", "wait"));
  held.push_back(*limits.Acquire("a", "wait"));
  absl::StatusOr<LongRequests::Slot> third = limits.Acquire("a", "log follow");
  ASSERT_FALSE(third.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(third.status()));
  EXPECT_NE(third.status().message().find("2 per tenant"), absl::string_view::npos);
  EXPECT_NE(third.status().message().find("log follow"), absl::string_view::npos);
  EXPECT_TRUE(limits.Acquire("b", "wait").ok());  // another tenant's own bound
  held.pop_back();
  EXPECT_TRUE(limits.Acquire("a", "wait").ok());
}

TEST(LongRequestsTest, BoundsTheTotal) {
  LongRequests limits(/*per_tenant=*/5, /*total=*/3);
  std::vector<LongRequests::Slot> held;
  for (const char* tenant : {"a", "b", "c"}) held.push_back(*limits.Acquire(tenant, "wait"));
  absl::StatusOr<LongRequests::Slot> fourth = limits.Acquire("d", "wait");
  ASSERT_FALSE(fourth.ok());
  EXPECT_NE(fourth.status().message().find("3 waits and log follows"), absl::string_view::npos);
  held.clear();
  EXPECT_TRUE(limits.Acquire("d", "wait").ok());
}

}  // namespace
}  // namespace dlp::server
