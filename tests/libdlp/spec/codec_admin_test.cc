// Tenants and tokens in JSON (dlp/admin.h), and `--expires` lifetimes.
#include <gtest/gtest.h>

#include "dlp/admin.h"

namespace dlp {
namespace {

TEST(TokenLifetime, UnitsAndErrors) {
  EXPECT_EQ(*ParseTokenLifetime("30d"), absl::Hours(24 * 30));
  EXPECT_EQ(*ParseTokenLifetime("12h"), absl::Hours(12));
  EXPECT_EQ(*ParseTokenLifetime("90m"), absl::Minutes(90));
  EXPECT_EQ(*ParseTokenLifetime("2w"), absl::Hours(24 * 14));
  for (const char* bad :
       {"", "d", "30", "0d", "-1d", "+1d", " 1d", "1.5d", "1y", "1dd", "30s", "99999999999w"}) {
    auto lifetime = ParseTokenLifetime(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(lifetime.status())) << bad;
  }
  EXPECT_NE(ParseTokenLifetime("soon").status().message().find("30d"), std::string::npos);
}

TEST(AdminCodec, RoundTrips) {
  const absl::Time t = absl::FromUnixMillis(1790000000123);
  Tenant tenant{"alice", "svc_alice", t, {"nlp", "vision"}};
  auto tenants = TenantsFromJson(TenantsToJson({tenant}));
  ASSERT_TRUE(tenants.ok()) << tenants.status();
  ASSERT_EQ(tenants->size(), 1u);
  EXPECT_EQ((*tenants)[0].name, "alice");
  EXPECT_EQ((*tenants)[0].unix_user, "svc_alice");
  EXPECT_EQ((*tenants)[0].created, t);
  EXPECT_EQ((*tenants)[0].queues, std::vector<std::string>({"nlp", "vision"}));

  NewToken token{{7, "alice", t, t + absl::Hours(1), std::nullopt}, "secret"};
  const std::string json = NewTokenToJson(token);
  EXPECT_EQ(json.find("\"id\":\"7\""), 1u) << json;
  auto back = NewTokenFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->token, "secret");
  EXPECT_EQ(back->info.id, 7);
  EXPECT_EQ(back->info.expires, t + absl::Hours(1));
  EXPECT_FALSE(back->info.revoked);
  // A listed token never carries the secret.
  EXPECT_EQ(TokensToJson({token.info}).find("secret"), std::string::npos);
  EXPECT_TRUE(absl::IsInvalidArgument(TokenFromJson(R"({"id":"x"})").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(NewTokenFromJson(R"({"id":"1"})").status()));
}

}  // namespace
}  // namespace dlp
