// dlp admin tenant|token against a real dlpd over HTTP: the owner's context
// administers, a tenant's context gets exit 6 (403), revoked tokens stop
// working, -o json parses, and errors exit with their documented codes.
#include "remote_dlpd_fixture.h"
#include "gmock/gmock.h"
#include "support/unix_user.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CliAdmin : public RemoteDlpdTest {};

TEST_F(CliAdmin, TenantsAndTokensEndToEnd) {
  RunResult created = Dlp({"admin", "tenant", "create", "alice", "--user", "dlptest-a"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_THAT(created.out, HasSubstr("tenant alice created"));
  EXPECT_THAT(created.out, HasSubstr("dlptest-a"));
  RunResult again = Dlp({"admin", "tenant", "create", "alice"});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_THAT(again.err, HasSubstr("already exists"));
  RunResult bad = Dlp({"admin", "tenant", "create", "@owner"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("dlp: error: tenant name \"@owner\""));

  RunResult tenants = Dlp({"admin", "tenant", "list", "-o", "json"});
  ASSERT_EQ(tenants.exit_code, 0) << tenants.err;
  nlohmann::json t = nlohmann::json::parse(tenants.out, nullptr, false);
  ASSERT_TRUE(t.is_object()) << tenants.out;
  ASSERT_EQ(t["tenants"].size(), 1u);
  EXPECT_EQ(t["tenants"][0]["unixUser"], "dlptest-a");
  EXPECT_THAT(Dlp({"admin", "tenant", "list"}).out, HasSubstr("dlptest-a"));

  RunResult json_token =
      Dlp({"admin", "token", "create", "alice", "--expires", "30d", "-o", "json"});
  ASSERT_EQ(json_token.exit_code, 0) << json_token.err;
  nlohmann::json j = nlohmann::json::parse(json_token.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << json_token.out;
  EXPECT_EQ(j["tenant"], "alice");
  EXPECT_TRUE(j["expires"].is_string());
  EXPECT_EQ(j["token"].get<std::string>().size(), 64u);

  RunResult plain = Dlp({"admin", "token", "create", "alice"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string token(absl::StripAsciiWhitespace(plain.out));
  EXPECT_EQ(token.size(), 64u) << plain.out;
  EXPECT_THAT(plain.err, HasSubstr("shown only this once"));
  EXPECT_EQ(Dlp({"admin", "token", "create", "alice", "--expires", "soon"}).exit_code, 2);
  EXPECT_EQ(Dlp({"admin", "token", "create", "nobody"}).exit_code, 3);

  RunResult listed = Dlp({"admin", "token", "list", "alice"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("EXPIRES"));
  EXPECT_THAT(listed.out, Not(HasSubstr(token)));
  RunResult listed_json = Dlp({"admin", "token", "list", "-o", "json"});
  nlohmann::json l = nlohmann::json::parse(listed_json.out, nullptr, false);
  ASSERT_TRUE(l.is_object()) << listed_json.out;
  ASSERT_EQ(l["tokens"].size(), 2u);
  EXPECT_FALSE(l["tokens"][1].contains("token"));
  const std::string id = l["tokens"][1]["id"];

  // The tenant's own context: its jobs yes, administration no (exit 6).
  WriteConfig(token);
  RunResult submitted = Dlp({"--context", "alice", "submit", "-q", env_.WriteJob("a", "exit 0")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  RunResult denied = Dlp({"--context", "alice", "admin", "tenant", "list"});
  EXPECT_EQ(denied.exit_code, 6) << denied.err;
  EXPECT_THAT(denied.err, HasSubstr("only dlpd's owner"));
  EXPECT_EQ(Dlp({"--context", "alice", "admin", "token", "create", "alice"}).exit_code, 6);

  EXPECT_EQ(Dlp({"admin", "token", "revoke", "abc"}).exit_code, 2);
  EXPECT_EQ(Dlp({"admin", "token", "revoke", "999"}).exit_code, 3);
  RunResult revoked = Dlp({"admin", "token", "revoke", id});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_THAT(revoked.out, HasSubstr("revoked"));
  RunResult refused = Dlp({"--context", "alice", "list"});
  EXPECT_EQ(refused.exit_code, 4) << refused.err;  // 401, as for any wrong token
  EXPECT_THAT(Dlp({"admin", "token", "list"}).out, HasSubstr("revoked"));

  // Its job has to end before the tenant can go.
  const std::string job(absl::StripAsciiWhitespace(submitted.out));
  ASSERT_EQ(Dlp({"wait", "-q", job}).exit_code, 0);
  RunResult deleted = Dlp({"admin", "tenant", "delete", "alice"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_THAT(deleted.out, HasSubstr("1 token revoked"));
  EXPECT_EQ(Dlp({"admin", "tenant", "delete", "alice"}).exit_code, 3);
}

TEST(CliAdminHelp, EveryVerbHasHelpAndUsageErrorsExitTwo) {
  CliEnv env;
  const std::vector<std::vector<std::string>> verbs = {
      {"tenant", "create", "--user"}, {"tenant", "list", "--output"},
      {"tenant", "delete", "NAME"},   {"tenant", "update", "--disk-quota"},
      {"tenant", "show", "NAME"},     {"token", "create", "--expires"},
      {"token", "list", "TENANT"},    {"token", "revoke", "TOKEN_ID"}};
  for (const auto& verb : verbs) {
    RunResult r = env.Dlp({"admin", verb[0], verb[1], "--help"});
    EXPECT_EQ(r.exit_code, 0) << verb[0] << " " << verb[1] << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(verb[2])) << verb[0] << " " << verb[1];
  }
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"admin"},
                                             {"admin", "tenant"},
                                             {"admin", "tenant", "create"},
                                             {"admin", "token", "revoke"},
                                             {"admin", "token", "list", "-o", "yaml"}}) {
    RunResult r = env.Dlp(args);
    EXPECT_EQ(r.exit_code, 2) << absl::StrJoin(args, " ") << "\n" << r.err;
  }
}

}  // namespace
}  // namespace dlp::testing
