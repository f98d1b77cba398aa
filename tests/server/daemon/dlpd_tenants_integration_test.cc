// Tenants and tokens on a real dlpd: the owner's /v1/admin endpoints, what a
// tenant's token may see and do, revoked and expired tokens, a tenant named
// `default`, the import of `--tokens FILE`, tokens never stored in clear, and
// the memory a tenant's replica gets when it asks for none.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tenant_fixture.h"

namespace dlp::testing {
namespace {

class DlpdTenantsTest : public TenantDlpdTest {
 protected:
  // Creates the tenant and a token for it; returns the token.
  std::string TenantWithToken(const std::string& name,
                              const std::optional<std::string>& expires = std::nullopt) {
    nlohmann::json token = nlohmann::json::object();
    if (expires) token["expires"] = *expires;
    return AddTenant(name, nlohmann::json::object(), token).value("token", "");
  }
};

TEST_F(DlpdTenantsTest, ATenantSeesOnlyItsOwnJobsAndTheOwnerSeesAll) {
  Start();
  const std::string alice_token = TenantWithToken("alice");
  ASSERT_EQ(alice_token.size(), 64u);
  auto alice = dlpd_->Client(alice_token);
  auto mine = SubmitJson(*owner_, ShellJob("owners", "exit 0"));
  EXPECT_EQ(mine.value("tenant", ""), "@owner");
  auto theirs = SubmitJson(*alice, ShellJob("alices", "exit 0"));
  EXPECT_EQ(theirs.value("tenant", ""), "alice");

  auto visible = GetJson(*alice, "/v1/jobs");
  ASSERT_EQ(visible["jobs"].size(), 1u);
  EXPECT_EQ(visible["jobs"][0].value("name", ""), "alices");
  EXPECT_EQ(GetJson(*owner_, "/v1/jobs")["jobs"].size(), 2u);
  const std::string owners_job = "/v1/jobs/" + mine.value("id", "");
  for (const std::string& path :
       {owners_job, owners_job + "/events", owners_job + "/logs", owners_job + "/why"}) {
    int status = 0;
    GetJson(*alice, path, &status);
    EXPECT_EQ(status, 404) << path;
  }
  auto cancel = alice->Post((owners_job + "/cancel").c_str(), "{}", "application/json");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 404);
}

TEST_F(DlpdTenantsTest, OnlyTheOwnerAdministers) {
  Start();
  auto alice = dlpd_->Client(TenantWithToken("alice"));
  struct Call {
    std::string method, path;
  };
  for (const Call& call : std::vector<Call>{{"GET", "/v1/admin/tenants"},
                                            {"POST", "/v1/admin/tenants"},
                                            {"DELETE", "/v1/admin/tenants/alice"},
                                            {"GET", "/v1/admin/tokens"},
                                            {"POST", "/v1/admin/tokens"},
                                            {"DELETE", "/v1/admin/tokens/1"}}) {
    int status = 0;
    nlohmann::json body;
    if (call.method == "GET") body = GetJson(*alice, call.path, &status);
    if (call.method == "POST") {
      body = PostJson(*alice, call.path, {{"name", "mallory"}, {"tenant", "alice"}}, &status);
    }
    if (call.method == "DELETE") body = DeleteJson(*alice, call.path, &status);
    EXPECT_EQ(status, 403) << call.method << " " << call.path;
    EXPECT_EQ(body["error"].value("code", ""), "PERMISSION_DENIED");
    EXPECT_NE(body["error"].value("message", "").find("owner"), std::string::npos);
  }
  // Nothing changed.
  auto tenants = GetJson(*owner_, "/v1/admin/tenants");
  ASSERT_EQ(tenants["tenants"].size(), 1u);
  EXPECT_EQ(GetJson(*owner_, "/v1/admin/tokens")["tokens"].size(), 1u);
}

TEST_F(DlpdTenantsTest, RevokedAndExpiredTokensGet401) {
  Start();
  const std::string token = TenantWithToken("alice");
  const std::string expired = TenantWithToken("bob", "2020-01-01T00:00:00Z");
  const std::string later =
      absl::FormatTime(absl::RFC3339_full, absl::Now() + absl::Hours(1), absl::UTCTimeZone());
  int status = 0;
  auto valid =
      PostJson(*owner_, "/v1/admin/tokens", {{"tenant", "bob"}, {"expires", later}}, &status);
  ASSERT_EQ(status, 201);

  GetJson(*dlpd_->Client(expired), "/v1/jobs", &status);
  EXPECT_EQ(status, 401);
  GetJson(*dlpd_->Client(valid.value("token", "")), "/v1/jobs", &status);
  EXPECT_EQ(status, 200);
  GetJson(*dlpd_->Client(token), "/v1/jobs", &status);
  EXPECT_EQ(status, 200);

  auto tokens = GetJson(*owner_, "/v1/admin/tokens?tenant=alice");
  ASSERT_EQ(tokens["tokens"].size(), 1u);
  const std::string id = tokens["tokens"][0].value("id", "");
  EXPECT_TRUE(tokens["tokens"][0]["revoked"].is_null());
  EXPECT_FALSE(tokens["tokens"][0].contains("token"));
  auto revoked = DeleteJson(*owner_, "/v1/admin/tokens/" + id, &status);
  EXPECT_EQ(status, 200);
  EXPECT_TRUE(revoked["revoked"].is_string());
  auto body = GetJson(*dlpd_->Client(token), "/v1/jobs", &status);
  EXPECT_EQ(status, 401);
  EXPECT_EQ(body["error"].value("code", ""), "UNAUTHENTICATED");
  DeleteJson(*owner_, "/v1/admin/tokens/999", &status);
  EXPECT_EQ(status, 404);
}

TEST_F(DlpdTenantsTest, ATenantNamedDefaultSeesNoneOfTheOwnersJobs) {
  Start();
  auto owners = SubmitJson(*owner_, ShellJob("owners", "exit 0"));
  ASSERT_TRUE(owners.is_object());
  auto tenant = dlpd_->Client(TenantWithToken("default"));
  EXPECT_TRUE(GetJson(*tenant, "/v1/jobs")["jobs"].empty());
  int status = 0;
  GetJson(*tenant, "/v1/jobs/" + owners.value("id", ""), &status);
  EXPECT_EQ(status, 404);
  auto its = SubmitJson(*tenant, ShellJob("its", "exit 0"));
  EXPECT_EQ(its.value("tenant", ""), "default");
  ASSERT_EQ(GetJson(*tenant, "/v1/jobs")["jobs"].size(), 1u);
  EXPECT_EQ(GetJson(*owner_, "/v1/jobs")["jobs"].size(), 2u);
}

TEST_F(DlpdTenantsTest, TheTokensFileIsImportedOnceAndRevocationsStick) {
  const std::string tokens = dir_.WriteFile("tokens", "team-a aaaaaaaaaaaaaaaaaaaa\n");
  Start({"--tokens", tokens});
  int status = 0;
  GetJson(*dlpd_->Client("aaaaaaaaaaaaaaaaaaaa"), "/v1/jobs", &status);
  EXPECT_EQ(status, 200);
  auto tenants = GetJson(*owner_, "/v1/admin/tenants");
  ASSERT_EQ(tenants["tenants"].size(), 1u);
  EXPECT_EQ(tenants["tenants"][0].value("name", ""), "team-a");
  EXPECT_EQ(tenants["tenants"][0].value("unixUser", ""), "team-a");
  auto listed = GetJson(*owner_, "/v1/admin/tokens");
  ASSERT_EQ(listed["tokens"].size(), 1u);
  DeleteJson(*owner_, "/v1/admin/tokens/" + listed["tokens"][0].value("id", ""), &status);
  ASSERT_EQ(status, 200);

  dlpd_->process().Signal(SIGTERM);
  ASSERT_EQ(dlpd_->process().Wait(absl::Seconds(20)).exit_code, 0);
  Start({"--tokens", tokens});
  EXPECT_EQ(GetJson(*owner_, "/v1/admin/tokens")["tokens"].size(), 1u);
  GetJson(*dlpd_->Client("aaaaaaaaaaaaaaaaaaaa"), "/v1/jobs", &status);
  EXPECT_EQ(status, 401);
}

TEST_F(DlpdTenantsTest, ABadTenantNameInTheTokensFileStopsTheStart) {
  const std::string tokens =
      dir_.WriteFile("tokens", "ok bbbbbbbbbbbbbbbbbbbb\n@owner cccccccccccccccccccc\n");
  Background dlpd({BinPath("dlpd"), "--state-dir", dir_.Join("state"), "--tokens", tokens});
  RunResult r = dlpd.Wait(absl::Seconds(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(tokens + ":2: tenant name \"@owner\""), std::string::npos) << r.err;
}

TEST_F(DlpdTenantsTest, TokensAreNeverStoredInClear) {
  Start();
  const std::string token = TenantWithToken("alice");
  ASSERT_FALSE(token.empty());
  dlpd_->process().Signal(SIGTERM);
  ASSERT_EQ(dlpd_->process().Wait(absl::Seconds(20)).exit_code, 0);
  std::string bytes;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    bytes += ReadFileOrEmpty(dir_.Join("state/dlpd.db") + suffix);
  }
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.find(token), std::string::npos);
  EXPECT_EQ(ReadFileOrEmpty(dir_.Join("state/dlpd.log")).find(token), std::string::npos);
}

TEST_F(DlpdTenantsTest, TenantsAreValidatedAndDeletedOnlyWithoutActiveJobs) {
  Start();
  int status = 0;
  for (const char* bad : {"@owner", "", "a b", "-x"}) {
    auto body = PostJson(*owner_, "/v1/admin/tenants", {{"name", bad}}, &status);
    EXPECT_EQ(status, 400) << bad << " " << body.dump();
  }
  const std::string token = TenantWithToken("alice");
  PostJson(*owner_, "/v1/admin/tenants", {{"name", "alice"}}, &status);
  EXPECT_EQ(status, 409);
  PostJson(*owner_, "/v1/admin/tokens", {{"tenant", "nobody"}}, &status);
  EXPECT_EQ(status, 404);

  auto alice = dlpd_->Client(token);
  auto job = SubmitJson(*alice, ShellJob("long", "sleep 600"));
  auto refused = DeleteJson(*owner_, "/v1/admin/tenants/alice", &status);
  EXPECT_EQ(status, 409);
  EXPECT_NE(
      refused["error"].value("message", "").find("1 active job (" + job.value("id", "") + ")"),
      std::string::npos)
      << refused.dump();
  GetJson(*alice, "/v1/jobs", &status);
  EXPECT_EQ(status, 200);  // refused: nothing revoked

  auto cancel = owner_->Post(("/v1/jobs/" + job.value("id", "") + "/cancel").c_str(), "{}",
                             "application/json");
  ASSERT_TRUE(cancel);
  WaitJob(*owner_, job.value("id", ""));
  auto deleted = DeleteJson(*owner_, "/v1/admin/tenants/alice", &status);
  EXPECT_EQ(status, 200) << deleted.dump();
  EXPECT_EQ(deleted.value("revokedTokens", -1), 1);
  GetJson(*alice, "/v1/jobs", &status);
  EXPECT_EQ(status, 401);
  EXPECT_TRUE(GetJson(*owner_, "/v1/admin/tenants")["tenants"].empty());
  EXPECT_EQ(GetJson(*owner_, "/v1/jobs")["jobs"].size(), 1u);  // its history stays
  DeleteJson(*owner_, "/v1/admin/tenants/alice", &status);
  EXPECT_EQ(status, 404);
}

TEST_F(DlpdTenantsTest, ATenantsReplicaWithoutMemoryGetsTheDefault) {
  Start({"--cpus", "1"});
  auto alice = dlpd_->Client(TenantWithToken("alice"));
  auto theirs = SubmitJson(*alice, ShellJob("nomem", "exit 0", 1, "100"));
  auto owners = SubmitJson(*owner_, ShellJob("owners", "exit 0", 1, "100"));
  // The spec stays as asked (queues count what was asked); the cgroup limits it.
  EXPECT_EQ(theirs["spec"]["replicas"][0]["resources"].value("memory", ""), "0") << theirs.dump();
  auto limits = [&](httplib::Client& client, const nlohmann::json& job) {
    EXPECT_EQ(WaitJob(client, job.value("id", "")).value("state", ""), "Succeeded");
    const nlohmann::json events = GetJson(client, "/v1/jobs/" + job.value("id", "") + "/events");
    for (const auto& e : events["events"]) {
      if (e.value("type", "") == "Limits") return e.value("message", "");
      if (e.value("type", "") == "LimitsNotEnforced") return std::string("not enforced");
    }
    return events.dump();
  };
  const std::string tenant_limits = limits(*alice, theirs);
  if (tenant_limits == "not enforced") GTEST_SKIP() << "no writable cgroup here";
  EXPECT_EQ(tenant_limits.rfind("memory 4Gi", 0), 0u) << tenant_limits;
  EXPECT_EQ(limits(*owner_, owners).find("memory 4Gi"), std::string::npos);
}

}  // namespace
}  // namespace dlp::testing
