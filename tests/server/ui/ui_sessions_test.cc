// The web UI's codes and sessions with a clock the test moves: a code is good
// once and for a minute, sessions end at their expiry or when ended, and each
// tenant's codes and sessions are bounded.
#include "server/ui/ui_sessions.h"

#include <gtest/gtest.h>

#include "server/auth/auth.h"
#include "server/ui/ui_cookies.h"

namespace dlp::server {
namespace {

class UiSessionsTest : public ::testing::Test {
 protected:
  UiSessionOptions Options() {
    UiSessionOptions options;
    options.clock = [this] { return now_; };
    options.max_codes_per_tenant = 2;
    options.max_sessions_per_tenant = 2;
    return options;
  }

  absl::Time now_ = absl::FromUnixSeconds(1'800'000'000);
  const UiIdentity alice_{"alice", HashToken("alice-token-0123456789")};
};

TEST_F(UiSessionsTest, ACodeIsGoodOnceAndFor60Seconds) {
  UiSessions sessions(Options());
  absl::StatusOr<std::string> code = sessions.CreateCode(alice_);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_GE(code->size(), 32u);  // 128 bits or more, in hex
  std::optional<UiIdentity> who = sessions.RedeemCode(*code);
  ASSERT_TRUE(who.has_value());
  EXPECT_EQ(who->tenant, "alice");
  EXPECT_EQ(who->token_hash, alice_.token_hash);
  EXPECT_FALSE(sessions.RedeemCode(*code).has_value()) << "used twice";

  absl::StatusOr<std::string> late = sessions.CreateCode(alice_);
  ASSERT_TRUE(late.ok());
  now_ += absl::Seconds(59);
  absl::StatusOr<std::string> in_time = sessions.CreateCode(alice_);
  ASSERT_TRUE(in_time.ok());
  now_ += absl::Seconds(1);
  EXPECT_FALSE(sessions.RedeemCode(*late).has_value()) << "expired at 60 s";
  EXPECT_TRUE(sessions.RedeemCode(*in_time).has_value());
  EXPECT_FALSE(sessions.RedeemCode("").has_value());
  EXPECT_FALSE(sessions.RedeemCode("not-a-code").has_value());
}

TEST_F(UiSessionsTest, SessionsExpireAndEnd) {
  UiSessions sessions(Options());
  absl::StatusOr<NewUiSession> made = sessions.CreateSession(alice_);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_NE(made->id, made->session.csrf);
  std::optional<UiSession> found = sessions.Find(made->id);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->identity.tenant, "alice");
  EXPECT_EQ(found->csrf, made->session.csrf);
  EXPECT_EQ(found->expires, now_ + absl::Hours(12));

  now_ += absl::Hours(12) - absl::Seconds(1);
  EXPECT_TRUE(sessions.Find(made->id).has_value());
  now_ += absl::Seconds(1);
  EXPECT_FALSE(sessions.Find(made->id).has_value());

  absl::StatusOr<NewUiSession> other = sessions.CreateSession(alice_);
  ASSERT_TRUE(other.ok());
  sessions.End(other->id);
  EXPECT_FALSE(sessions.Find(other->id).has_value());
  EXPECT_FALSE(sessions.Find("").has_value());
}

TEST_F(UiSessionsTest, EachTenantKeepsABoundedNumber) {
  UiSessions sessions(Options());
  const UiIdentity bob{"bob", HashToken("bob-token-0123456789")};
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(sessions.CreateSession(alice_)->id);
    now_ += absl::Seconds(1);
  }
  const std::string bobs = sessions.CreateSession(bob)->id;
  EXPECT_FALSE(sessions.Find(ids[0]).has_value()) << "the oldest of three ends (bound 2)";
  EXPECT_TRUE(sessions.Find(ids[1]).has_value());
  EXPECT_TRUE(sessions.Find(ids[2]).has_value());
  EXPECT_TRUE(sessions.Find(bobs).has_value()) << "another tenant's are not counted";

  std::vector<std::string> codes;
  for (int i = 0; i < 3; ++i) {
    codes.push_back(*sessions.CreateCode(alice_));
    now_ += absl::Seconds(1);
  }
  EXPECT_FALSE(sessions.RedeemCode(codes[0]).has_value());
  EXPECT_TRUE(sessions.RedeemCode(codes[2]).has_value());
}

TEST(UiCookies, TheSessionCookieIsHttpOnlyStrictAndSecureUnderHttps) {
  EXPECT_EQ(SessionCookie("abc", absl::Hours(12), false),
            "dlp_session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200");
  EXPECT_EQ(SessionCookie("abc", absl::Hours(12), true),
            "dlp_session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200; Secure");
  EXPECT_EQ(CookieValue("theme=dark; dlp_session=xyz; other=1", "dlp_session"), "xyz");
  EXPECT_EQ(CookieValue("not_dlp_session=xyz", "dlp_session"), "");
  EXPECT_EQ(CookieValue("", "dlp_session"), "");
}

TEST(UiCookies, ASessionEndsWithTheTokenItCameFrom) {
  Authenticator auth("owner-token-0123456789",
                     std::vector<TenantToken>{{"alice", "alice-token-0123456789"}});
  UiSessions sessions;
  const NewUiSession alice =
      *sessions.CreateSession({"alice", HashToken("alice-token-0123456789")});
  EXPECT_TRUE(SessionFromCookies(sessions, auth, "dlp_session=" + alice.id).has_value());
  // A token that no longer authenticates (here: one never known) ends its sessions.
  const NewUiSession gone = *sessions.CreateSession({"bob", HashToken("revoked-token-0123456")});
  EXPECT_FALSE(SessionFromCookies(sessions, auth, "dlp_session=" + gone.id).has_value());
  EXPECT_FALSE(sessions.Find(gone.id).has_value());
  // A token that now names another tenant does not carry the session over.
  const NewUiSession moved = *sessions.CreateSession({"bob", HashToken("alice-token-0123456789")});
  EXPECT_FALSE(SessionFromCookies(sessions, auth, "dlp_session=" + moved.id).has_value());
}

}  // namespace
}  // namespace dlp::server
