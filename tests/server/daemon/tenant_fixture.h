// A dlpd shared by tenants: run as root (CI does), each tenant's jobs run as
// the test Unix account dlptest-a. The owner's client, and tenants made with
// a token each, for the daemon's and the web UI's tenant tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "dlpd_fixture.h"
#include "support/unix_user.h"

namespace dlp::testing {

// Creates tenant `name` running as `unix_user` (with the fields of `tenant`
// added, each checked in the answer) and a token for it; returns the
// token's JSON (`id`, `token`).
inline nlohmann::json AddTenantWithToken(httplib::Client& owner, const std::string& name,
                                         const std::string& unix_user,
                                         nlohmann::json tenant = nlohmann::json::object(),
                                         nlohmann::json token = nlohmann::json::object()) {
  int status = 0;
  tenant["name"] = name;
  tenant["unixUser"] = unix_user;
  auto made = PostJson(owner, "/v1/admin/tenants", tenant, &status);
  EXPECT_EQ(status, 201) << made.dump();
  for (const auto& [field, value] : tenant.items()) EXPECT_EQ(made[field], value) << field;
  token["tenant"] = name;
  auto issued = PostJson(owner, "/v1/admin/tokens", token, &status);
  EXPECT_EQ(status, 201) << issued.dump();
  return issued;
}

class TenantDlpdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = EnsureTestUser("dlptest-a", {}, &user_);
    if (!why.empty()) GTEST_SKIP() << why;
    MakeSearchableUpwards(dir_.path());
  }

  void Start(std::vector<std::string> flags = {}) {
    dlpd_ = std::make_unique<Dlpd>(dir_.Join("state"), flags);
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    owner_ = dlpd_->Client();
  }

  void Stop() {
    dlpd_->process().Signal(SIGTERM);
    ASSERT_EQ(dlpd_->process().Wait(absl::Seconds(20)).exit_code, 0);
  }

  nlohmann::json AddTenant(const std::string& name,
                           nlohmann::json tenant = nlohmann::json::object(),
                           nlohmann::json token = nlohmann::json::object()) {
    return AddTenantWithToken(*owner_, name, user_.name, std::move(tenant), std::move(token));
  }

  TestUser user_;
  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
  std::unique_ptr<httplib::Client> owner_;
};

}  // namespace dlp::testing
