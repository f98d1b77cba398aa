// A tenant's own disk quota (dlp admin tenant update --disk-quota) through the
// real dlp and a shared dlpd: shown by list and show, enforced in place of
// dlpd's default (refused where the default allows), given back with
// `default`, and the owner's to set only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "remote_dlpd_fixture.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

TEST_F(RemoteDlpdTest, ATenantsOwnQuotaRefusesWhatDlpdsDefaultAllows) {
  ASSERT_EQ(Dlp({"admin", "tenant", "create", "alice", "--user", "dlptest-a"}).exit_code, 0);
  RunResult token = Dlp({"admin", "token", "create", "alice"});
  ASSERT_EQ(token.exit_code, 0) << token.err;
  WriteConfig(std::string(absl::StripAsciiWhitespace(token.out)));
  EXPECT_THAT(Dlp({"admin", "tenant", "list"}).out, HasSubstr("100Gi (default)"));

  RunResult updated = Dlp({"admin", "tenant", "update", "alice", "--disk-quota", "64Ki"});
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_EQ(updated.out, "tenant alice: disk quota 64Ki\n");
  EXPECT_THAT(Dlp({"admin", "tenant", "show", "alice"}).out, HasSubstr("Disk quota:  64Ki\n"));
  nlohmann::json listed =
      nlohmann::json::parse(Dlp({"admin", "tenant", "list", "-o", "json"}).out, nullptr, false);
  ASSERT_TRUE(listed.is_object());
  EXPECT_EQ(listed["tenants"][0]["diskQuota"], "64Ki");
  EXPECT_EQ(listed["tenants"][0]["diskQuotaInForce"], "64Ki");
  // Only the owner sets it; a bad size names the flag.
  EXPECT_EQ(Dlp({"--context", "alice", "admin", "tenant", "update", "alice", "--disk-quota", "1Ti"})
                .exit_code,
            6);
  RunResult bad = Dlp({"admin", "tenant", "update", "alice", "--disk-quota", "lots"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--disk-quota"));
  EXPECT_EQ(Dlp({"admin", "tenant", "update", "alice"}).exit_code, 2);
  EXPECT_EQ(Dlp({"admin", "tenant", "update", "nobody", "--disk-quota", "1Gi"}).exit_code, 3);

  // 128 KiB kept: far below dlpd's 100 GiB, past alice's 64 KiB.
  const std::string writer = env_.WriteJob("writer", "head -c 131072 /dev/zero > \"$DLP_OUTPUT_DIR/data\"");
  RunResult first = Dlp({"--context", "alice", "submit", "-q", writer});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Dlp({"--context", "alice", "wait", std::string(absl::StripAsciiWhitespace(first.out))});
  RunResult refused = Dlp({"--context", "alice", "submit", "-q", writer});
  EXPECT_NE(refused.exit_code, 0) << refused.out;
  EXPECT_THAT(refused.err, HasSubstr("DiskQuotaExceeded: tenant alice holds"));
  EXPECT_THAT(refused.err, HasSubstr("dlp admin tenant update --disk-quota"));

  // dlpd's default again: the same submission goes through.
  RunResult reset = Dlp({"admin", "tenant", "update", "alice", "--disk-quota", "default"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_EQ(reset.out, "tenant alice: disk quota 100Gi (default)\n");
  RunResult again = Dlp({"--context", "alice", "submit", "-q", writer});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  Dlp({"--context", "alice", "wait", std::string(absl::StripAsciiWhitespace(again.out))});
}

}  // namespace
}  // namespace dlp::testing
