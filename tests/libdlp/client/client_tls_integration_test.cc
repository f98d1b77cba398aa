// The remote backend over HTTPS against a real dlpd serving TLS with a
// self-signed certificate: trusted through ca-file, refused without it, accepted
// with insecure-skip-tls-verify.
#include "client_test_util.h"
#include "gmock/gmock.h"
#include "support/unix_user.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cert_ = dir_.Join("cert.pem");
    const std::string key = dir_.Join("key.pem");
    RunResult made = dlp::testing::Run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                          "1", "-subj", "/CN=127.0.0.1", "-addext",
                          "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert_});
    if (made.exit_code != 0) GTEST_SKIP() << "openssl cannot make a certificate: " << made.err;
    const std::string state = dir_.Join("state");
    // Tenants' jobs run as their Unix accounts: with root (CI) dlpd serves tenants.
    account_why_ = EnsureTestUser("dlptest-a", {}, &user_);
    if (account_why_.empty()) MakeSearchableUpwards(dir_.path());
    dlpd_ = std::make_unique<Background>(std::vector<std::string>{
        BinPath("dlpd"), "--state-dir", state, "--listen", "127.0.0.1:0", "--tls-cert", cert_,
        "--tls-key", key});
    ASSERT_TRUE(Eventually([&] {
      return !ReadFileOrEmpty(state + "/dlpd.addr").empty() &&
             !ReadFileOrEmpty(state + "/dlpd.token").empty();
    }, absl::Seconds(10)))
        << dlpd_->OutputSoFar();
    url_ = "https://" + ReadFileOrEmpty(state + "/dlpd.addr");
    while (!url_.empty() && url_.back() == '\n') url_.pop_back();
    token_file_ = state + "/dlpd.token";
  }

  absl::Status ListWith(std::map<std::string, std::string> fields) {
    fields["server"] = url_;
    fields["token-file"] = token_file_;
    auto backend = CreateBackend(Context{"team", "remote", fields});
    if (!backend.ok()) return backend.status();
    return (*backend)->List({}).status();
  }

  TempDir dir_;
  std::string cert_, url_, token_file_;
  TestUser user_;
  std::string account_why_;  // why tenants cannot be tested here, or empty
  std::unique_ptr<Background> dlpd_;
};

TEST_F(TlsTest, CaFileDecidesTrust) {
  absl::Status trusted = ListWith({{"ca-file", cert_}});
  EXPECT_TRUE(trusted.ok()) << trusted;

  absl::Status untrusted = ListWith({});
  EXPECT_EQ(untrusted.code(), absl::StatusCode::kUnavailable) << untrusted;
  EXPECT_THAT(untrusted.message(), HasSubstr("cannot reach dlpd at 127.0.0.1:"));

  absl::Status skipped = ListWith({{"insecure-skip-tls-verify", "true"}});
  EXPECT_TRUE(skipped.ok()) << skipped;
}

// Administration goes over TLS too, DELETE included (the TLS module sends it as
// such: a GET of the same path would find no endpoint).
TEST_F(TlsTest, AdminCallsIncludingDeletes) {
  auto backend = CreateBackend(Context{
      "team", "remote", {{"server", url_}, {"token-file", token_file_}, {"ca-file", cert_}}});
  ASSERT_TRUE(backend.ok()) << backend.status();
  Client client(Context{"team", "remote", {}}, std::move(*backend));
  if (!account_why_.empty()) GTEST_SKIP() << account_why_;
  auto tenant = client.CreateTenant("alice", user_.name);
  ASSERT_TRUE(tenant.ok()) << tenant.status();
  auto token = client.CreateToken("alice", absl::Now() + absl::Hours(1));
  ASSERT_TRUE(token.ok()) << token.status();
  auto revoked = client.RevokeToken(token->info.id);
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_TRUE(revoked->revoked);
  auto deleted = client.DeleteTenant("alice");
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 0);
  EXPECT_TRUE(client.ListTenants()->empty());
}

}  // namespace
}  // namespace dlp::testing
