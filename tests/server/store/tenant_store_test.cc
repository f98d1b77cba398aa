// Tenants and tokens in the SQLite store: names, hashes only, expiry,
// revocation, the import of `--tokens FILE` lines, and the move of the
// owner's jobs off the name `default`.
#include "server/store/tenant_store.h"

#include <gtest/gtest.h>

#include "server/auth/auth.h"
#include "server/controller/controller.h"
#include "server/store/job_store.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

class TenantStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = TenantStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }
  // The tenant the Authenticator finds for a token, through this store.
  std::optional<std::string> Who(const std::string& token) const {
    return Authenticator("owner-token-0123456789", *store_).Authenticate("Bearer " + token);
  }

  testing::TempDir dir_;
  const std::string path_ = dir_.Join("dlpd.db");
  std::unique_ptr<TenantStore> store_;
};

TEST_F(TenantStoreTest, OwnDiskQuotaUntilSetBackAndGoneWithTheTenant) {
  ASSERT_TRUE(store_->CreateTenant("alice", "").ok());
  ASSERT_TRUE(store_->CreateTenant("bob", "").ok());
  EXPECT_EQ(store_->GetTenant("alice")->disk_quota, std::nullopt);
  auto set = store_->SetDiskQuota("alice", int64_t{64} << 10);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->disk_quota, int64_t{64} << 10);
  ASSERT_TRUE(store_->SetDiskQuota("bob", 0).ok());  // none, whatever dlpd's default
  auto tenants = store_->ListTenants();
  ASSERT_TRUE(tenants.ok());
  ASSERT_EQ(tenants->size(), 2u);
  EXPECT_EQ((*tenants)[0].disk_quota, int64_t{64} << 10);
  EXPECT_EQ((*tenants)[1].disk_quota, 0);
  EXPECT_TRUE(absl::IsNotFound(store_->SetDiskQuota("carol", 1).status()));
  // Set back: dlpd's default applies again.
  ASSERT_TRUE(store_->SetDiskQuota("alice", std::nullopt).ok());
  EXPECT_EQ(store_->GetTenant("alice")->disk_quota, std::nullopt);
  // A tenant made again under the name of a deleted one starts without its quota.
  ASSERT_TRUE(store_->DeleteTenant("bob").ok());
  ASSERT_TRUE(store_->CreateTenant("bob", "").ok());
  EXPECT_EQ(store_->GetTenant("bob")->disk_quota, std::nullopt);
}

TEST_F(TenantStoreTest, TenantNames) {
  const std::vector<std::string> good_names = {"alice",   "team-a", "a.b_c",
                                               "default", "X9",     std::string(64, 'a')};
  for (const std::string& good : good_names) {
    EXPECT_TRUE(ValidateTenantName(good).ok()) << good;
  }
  const std::vector<std::string> bad_names = {"",    "@owner", "-x", ".x",
                                              "a b", "a/b",    "é",  std::string(65, 'a')};
  for (const std::string& bad : bad_names) {
    EXPECT_TRUE(absl::IsInvalidArgument(ValidateTenantName(bad))) << bad;
  }
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateTenantName(kOwnerTenant)));
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateUnixUser(std::string(33, 'u'))));
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateUnixUser("-oops")));
}

TEST_F(TenantStoreTest, CreateListDeleteAndUnixUser) {
  auto alice = store_->CreateTenant("alice", "");
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->unix_user, "alice");
  ASSERT_TRUE(store_->CreateTenant("bob", "svc_bob").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(store_->CreateTenant("alice", "").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(store_->CreateTenant("@owner", "").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(store_->CreateTenant("carol", "-x").status()));

  auto tenants = store_->ListTenants();
  ASSERT_TRUE(tenants.ok());
  ASSERT_EQ(tenants->size(), 2u);
  EXPECT_EQ((*tenants)[0].name, "alice");
  EXPECT_EQ((*tenants)[1].unix_user, "svc_bob");

  EXPECT_EQ(store_->UnixUser("bob").value_or("?"), "svc_bob");
  EXPECT_EQ(store_->UnixUser("alice").value_or("?"), "alice");
  EXPECT_EQ(store_->UnixUser(kOwnerTenant).value_or("?"), "");
  EXPECT_TRUE(absl::IsNotFound(store_->UnixUser("nobody").status()));

  ASSERT_TRUE(store_->CreateToken("bob", HashToken("bob-secret-0123456789"), std::nullopt).ok());
  auto revoked = store_->DeleteTenant("bob");
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(*revoked, 1);
  EXPECT_FALSE(Who("bob-secret-0123456789"));
  EXPECT_TRUE(absl::IsNotFound(store_->DeleteTenant("bob").status()));
  EXPECT_TRUE(absl::IsNotFound(store_->UnixUser("bob").status()));
}

TEST_F(TenantStoreTest, TokensAuthenticateUntilRevokedOrExpired) {
  ASSERT_TRUE(store_->CreateTenant("alice", "").ok());
  const std::string secret = *NewSecretToken();
  EXPECT_EQ(secret.size(), 64u);
  EXPECT_NE(secret, *NewSecretToken());
  auto token = store_->CreateToken("alice", HashToken(secret), std::nullopt);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->tenant, "alice");
  EXPECT_FALSE(token->expires);
  EXPECT_EQ(Who(secret), "alice");
  EXPECT_EQ(Who("owner-token-0123456789"), "");
  EXPECT_FALSE(Who(secret + "0"));
  EXPECT_TRUE(absl::IsNotFound(
      store_->CreateToken("nobody", HashToken("x-0123456789abcdef"), std::nullopt).status()));

  // Expiry is checked at each request: an expiry in the past never passes,
  // one in the future does.
  const std::string old_secret = *NewSecretToken(), new_secret = *NewSecretToken();
  ASSERT_TRUE(
      store_->CreateToken("alice", HashToken(old_secret), absl::Now() - absl::Seconds(1)).ok());
  ASSERT_TRUE(
      store_->CreateToken("alice", HashToken(new_secret), absl::Now() + absl::Hours(1)).ok());
  EXPECT_FALSE(Who(old_secret));
  EXPECT_EQ(Who(new_secret), "alice");

  auto revoked = store_->RevokeToken(token->id);
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_TRUE(revoked->revoked);
  EXPECT_FALSE(Who(secret));
  EXPECT_EQ(store_->RevokeToken(token->id)->revoked, revoked->revoked);  // idempotent
  EXPECT_TRUE(absl::IsNotFound(store_->RevokeToken(999).status()));

  auto listed = store_->ListTokens("alice");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 3u);
  EXPECT_EQ((*listed)[0].id, token->id);
  EXPECT_TRUE((*listed)[0].revoked);
  EXPECT_TRUE(store_->ListTokens("bob")->empty());
}

TEST_F(TenantStoreTest, TokensSurviveReopenAndNeverInClear) {
  ASSERT_TRUE(store_->CreateTenant("alice", "").ok());
  const std::string secret = "alice-secret-token-0123456789";
  ASSERT_TRUE(store_->CreateToken("alice", HashToken(secret), std::nullopt).ok());
  store_.reset();
  auto reopened = TenantStore::Open(path_);
  ASSERT_TRUE(reopened.ok());
  store_ = std::move(*reopened);
  EXPECT_EQ(Who(secret), "alice");
  auto db = Database::Open(path_);
  ASSERT_TRUE(db.ok());
  auto hash = db->Prepare("SELECT hash FROM tokens");
  ASSERT_TRUE(hash.ok());
  ASSERT_TRUE(*hash->Step());
  EXPECT_EQ(hash->Text(0), HashToken(secret));
  EXPECT_EQ(HashToken("abc"),  // SHA-256 of "abc" (FIPS 180-2, appendix B.1)
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_F(TenantStoreTest, ImportAddsWhatIsMissingAndKeepsRevocations) {
  std::vector<TokenHash> lines = {{"team-a", HashToken("aaaaaaaaaaaaaaaa")},
                                  {"default", HashToken("dddddddddddddddd")}};
  EXPECT_EQ(store_->ImportTokens(lines).value_or(-1), 2);
  EXPECT_EQ(store_->ImportTokens(lines).value_or(-1), 0);  // idempotent
  EXPECT_EQ(store_->ListTenants()->size(), 2u);
  EXPECT_EQ(store_->UnixUser("team-a").value_or("?"), "team-a");
  EXPECT_EQ(Who("aaaaaaaaaaaaaaaa"), "team-a");
  EXPECT_EQ(Who("dddddddddddddddd"), "default");

  ASSERT_TRUE(store_->RevokeToken(store_->ListTokens("team-a")->front().id).ok());
  EXPECT_EQ(store_->ImportTokens(lines).value_or(-1), 0);
  EXPECT_FALSE(Who("aaaaaaaaaaaaaaaa"));  // the file does not bring it back
  EXPECT_TRUE(absl::IsInvalidArgument(
      store_->ImportTokens({{"@owner", HashToken("oooooooooooooooo")}}).status()));
}

TEST(TenantMigrationTest, OwnerJobsMoveOffTheNameDefault) {
  testing::TempDir dir;
  const std::string path = dir.Join("dlpd.db");
  {
    // A store as the previous schema left it: the owner's job under "default".
    auto jobs = JobStore::Open(path);
    ASSERT_TRUE(jobs.ok());
    JobRecord r;
    r.job.name = "old";
    r.job.tenant = "default";
    r.job.spec.name = "old";
    ReplicaSpec worker;
    worker.role = "worker";
    worker.command = {"echo", "hi"};
    r.job.spec.replicas.push_back(worker);
    ASSERT_TRUE(jobs->Insert(r).ok());
    r.job.tenant = "team-a";
    ASSERT_TRUE(jobs->Insert(r).ok());
    auto db = Database::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("UPDATE jobs SET tenant='default' WHERE id=1; DROP TABLE tokens; "
                         "DROP TABLE tenants; ALTER TABLE jobs DROP COLUMN start_attempt; "
                         "ALTER TABLE jobs DROP COLUMN preemptions; "
                         "ALTER TABLE jobs DROP COLUMN position; "
                         "ALTER TABLE jobs DROP COLUMN estimated_start_us; "
                         "ALTER TABLE jobs DROP COLUMN placement; "
                         "ALTER TABLE jobs DROP COLUMN labels; "
                         "ALTER TABLE jobs ADD COLUMN gpus TEXT NOT NULL DEFAULT ''; "
                         "DROP TABLE queue_tenants; DROP TABLE queues; PRAGMA user_version=3")
                    .ok());
  }
  auto jobs = JobStore::Open(path);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->schema_version(), LatestSchemaVersion());
  EXPECT_EQ(jobs->Get(1)->job.tenant, kOwnerTenant);
  EXPECT_EQ(jobs->Get(2)->job.tenant, "team-a");
  StoreFilter filter;
  filter.tenant = "default";
  EXPECT_TRUE(jobs->List(filter)->empty());
}

}  // namespace
}  // namespace dlp::server
