// The per-tenant disk quota: a tenant's own quota takes the place of dlpd's
// default, in both directions (smaller, larger, none), for submissions and
// for running jobs alike; the owner has none.
#include "server/controller/disk_quota.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kKiB = 1024;

// Every tenant holds 100 KiB of models; alice's own quota is 64 KiB, carol's
// none (0); bob has none of his own.
class DiskQuotaTest : public ::testing::Test {
 protected:
  std::unique_ptr<DiskQuota> Make(int64_t default_bytes) {
    auto quota = std::make_unique<DiskQuota>(default_bytes, dir_.Join("jobs"));
    DiskQuota::Sources sources;
    sources.job_ids = [](const std::string&) { return std::vector<std::string>{}; };
    sources.other_bytes = [](const std::string&) { return 100 * kKiB; };
    sources.own_quota = [this](const std::string& tenant) -> std::optional<int64_t> {
      auto it = own_.find(tenant);
      return it == own_.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    quota->SetSources(sources);
    return quota;
  }
  // The tenants Enforce stops, with `running` running jobs.
  std::vector<std::string> Stopped(DiskQuota& quota, std::vector<std::string> running) {
    std::vector<std::string> stopped;
    quota.Enforce([&] { return running; },
                  [&](const std::string& tenant, const std::string&) { stopped.push_back(tenant); });
    return stopped;
  }

  testing::TempDir dir_;
  std::map<std::string, int64_t> own_ = {{"alice", 64 * kKiB}, {"carol", 0}};
};

TEST_F(DiskQuotaTest, ASmallerOwnQuotaRefusesWhatTheDefaultAllows) {
  std::unique_ptr<DiskQuota> quota = Make(int64_t{1} << 30);
  EXPECT_TRUE(quota->Check("bob").ok());
  const absl::Status refused = quota->Check("alice");
  EXPECT_TRUE(absl::IsResourceExhausted(refused)) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("tenant alice holds"));
  EXPECT_THAT(refused.message(), HasSubstr("dlp admin tenant update --disk-quota"));
  EXPECT_EQ(quota->QuotaOf("alice"), 64 * kKiB);
  EXPECT_EQ(quota->QuotaOf("bob"), int64_t{1} << 30);
  EXPECT_THAT(Stopped(*quota, {"alice", "bob", "alice"}), ElementsAre("alice"));
}

TEST_F(DiskQuotaTest, AnOwnQuotaAppliesWhereDlpdHasNoneAndNoneLiftsTheDefault) {
  std::unique_ptr<DiskQuota> none = Make(0);
  EXPECT_TRUE(none->Check("bob").ok());
  EXPECT_TRUE(absl::IsResourceExhausted(none->Check("alice")));
  EXPECT_THAT(Stopped(*none, {"alice", "bob"}), ElementsAre("alice"));

  std::unique_ptr<DiskQuota> small = Make(10 * kKiB);
  const absl::Status bob = small->Check("bob");
  EXPECT_TRUE(absl::IsResourceExhausted(bob)) << bob;
  EXPECT_THAT(bob.message(), HasSubstr("dlpd --tenant-disk-quota"));
  EXPECT_TRUE(small->Check("carol").ok());
  EXPECT_EQ(small->QuotaOf("carol"), 0);
  EXPECT_THAT(Stopped(*small, {"bob", "carol"}), ElementsAre("bob"));
}

TEST_F(DiskQuotaTest, TheOwnerHasNone) {
  own_[""] = 1;
  std::unique_ptr<DiskQuota> quota = Make(1);
  EXPECT_TRUE(quota->Check("").ok());
  EXPECT_EQ(quota->QuotaOf(""), 0);
}

}  // namespace
}  // namespace dlp::server
