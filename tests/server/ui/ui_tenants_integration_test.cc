// The web UI's sessions for tenants on a shared dlpd (run as root, as CI does):
// a tenant's session sees only the tenant's jobs (404 for another's job and
// its log stream), revoking its token ends the session, and under HTTPS the
// session cookie is Secure.
#include <gtest/gtest.h>

#include "../daemon/tenant_fixture.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class UiTenantsTest : public TenantDlpdTest {
 protected:
  void SetUp() override {
    TenantDlpdTest::SetUp();
    if (!IsSkipped()) Start();
  }

  // Creates the tenant with a token; returns {token id, token}.
  std::pair<std::string, std::string> TenantWithToken(const std::string& name) {
    auto token = AddTenant(name);
    return {token.value("id", ""), token.value("token", "")};
  }

  // Signs in through a code made with `token`; returns the Cookie header.
  std::string SignIn(const std::string& token) {
    int status = 0;
    auto code = PostJson(*dlpd_->Client(token), "/v1/ui/codes", nlohmann::json::object(), &status);
    EXPECT_EQ(status, 201) << code.dump();
    auto res = dlpd_->Client("")->Get(("/login?code=" + code.value("code", "")).c_str());
    if (!res) return "";
    EXPECT_EQ(res->status, 303);
    const std::string set_cookie = res->get_header_value("Set-Cookie");
    return set_cookie.substr(0, set_cookie.find(';'));
  }

  int Status(const std::string& path, const std::string& cookie) {
    auto res = dlpd_->Client("")->Get(path.c_str(), {{"Cookie", cookie}});
    return res ? res->status : -1;
  }

};

TEST_F(UiTenantsTest, ATenantsSessionSeesOnlyItsOwnJobs) {
  const auto [alice_id, alice_token] = TenantWithToken("alice");
  const std::string cookie = SignIn(alice_token);
  auto who = GetJson(*dlpd_->Client(""), "/v1/ui/session");  // no cookie: 401 body
  EXPECT_TRUE(who.contains("error"));
  auto session = dlpd_->Client("")->Get("/v1/ui/session", {{"Cookie", cookie}});
  ASSERT_TRUE(session);
  auto me = nlohmann::json::parse(session->body);
  EXPECT_EQ(me.value("tenant", ""), "alice");
  EXPECT_FALSE(me.value("admin", true));

  auto owners = SubmitJson(*owner_, ShellJob("owners", "echo secret-of-the-owner"));
  auto alices = SubmitJson(*dlpd_->Client(alice_token), ShellJob("alices", "exit 0"));
  const std::string owners_job = "/v1/jobs/" + owners.value("id", "");
  for (const std::string& path :
       {owners_job, owners_job + "/events", owners_job + "/logs", owners_job + "/logs?follow=1"}) {
    EXPECT_EQ(Status(path, cookie), 404) << path;
  }
  EXPECT_EQ(Status("/v1/jobs/" + alices.value("id", ""), cookie), 200);
  auto list = dlpd_->Client("")->Get("/v1/jobs", {{"Cookie", cookie}});
  ASSERT_TRUE(list);
  auto jobs = nlohmann::json::parse(list->body)["jobs"];
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].value("name", ""), "alices");
  EXPECT_THAT(list->body, ::testing::Not(HasSubstr("owners")));
  // Owner-only endpoints stay the owner's.
  EXPECT_EQ(Status("/v1/admin/tenants", cookie), 403);
}

TEST_F(UiTenantsTest, RevokingTheTokenEndsItsSessions) {
  const auto [alice_id, alice_token] = TenantWithToken("alice");
  const std::string cookie = SignIn(alice_token);
  ASSERT_EQ(Status("/v1/jobs", cookie), 200);
  int status = 0;
  DeleteJson(*owner_, absl::StrCat("/v1/admin/tokens/", alice_id), &status);
  ASSERT_EQ(status, 200);
  EXPECT_EQ(Status("/v1/jobs", cookie), 401);
}

TEST(UiHttps, TheSessionCookieIsSecureUnderHttps) {
  TempDir dir;
  const std::string cert = dir.Join("cert.pem"), key = dir.Join("key.pem");
  RunResult made = dlp::testing::Run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                                      "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                                      "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert});
  if (made.exit_code != 0) GTEST_SKIP() << "openssl cannot make a certificate: " << made.err;
  const std::string state = dir.Join("state");
  Background dlpd({BinPath("dlpd"), "--state-dir", state, "--listen", "127.0.0.1:0", "--tls-cert",
                   cert, "--tls-key", key});
  ASSERT_TRUE(Eventually(
      [&] {
        return !ReadFileOrEmpty(state + "/dlpd.addr").empty() &&
               !ReadFileOrEmpty(state + "/dlpd.token").empty();
      },
      absl::Seconds(20)))
      << dlpd.OutputSoFar();
  const std::string address = Trimmed(ReadFileOrEmpty(state + "/dlpd.addr"));
  httplib::SSLClient tls(address.substr(0, address.rfind(':')),
                         std::stoi(address.substr(address.rfind(':') + 1)));
  tls.set_ca_cert_path(cert.c_str());
  tls.enable_server_certificate_verification(true);
  auto res = tls.Post("/login", "token=" + Trimmed(ReadFileOrEmpty(state + "/dlpd.token")),
                      "application/x-www-form-urlencoded");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 303);
  const std::string cookie = res->get_header_value("Set-Cookie");
  EXPECT_THAT(cookie, HasSubstr("; HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("; SameSite=Strict"));
  EXPECT_THAT(cookie, ::testing::EndsWith("; Secure"));
  dlpd.Signal(SIGTERM);
  dlpd.Wait(absl::Seconds(30));
}

}  // namespace
}  // namespace dlp::testing
