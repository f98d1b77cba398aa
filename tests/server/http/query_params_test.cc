#include "server/http/query_params.h"

#include <gtest/gtest.h>

namespace dlp::server {
namespace {

httplib::Request With(const std::string& name, const std::string& value) {
  httplib::Request req;
  req.params.emplace(name, value);
  return req;
}

TEST(QueryParamsTest, SecondsAreFiniteNonNegativeAndBounded) {
  EXPECT_EQ(*SecondsParam(httplib::Request(), "timeout", 60, 100), 60);
  EXPECT_EQ(*SecondsParam(With("timeout", "2.5"), "timeout", 60, 100), 2.5);
  EXPECT_EQ(*SecondsParam(With("timeout", "1e1"), "timeout", 60, 100), 10);
  for (const char* bad :
       {"nan", "NaN", "inf", "-inf", "infinity", "-1", "1e999", "101", "", "5s", " 5", "0x10"}) {
    absl::StatusOr<double> got = SecondsParam(With("timeout", bad), "timeout", 60, 100);
    ASSERT_FALSE(got.ok()) << bad;
    EXPECT_TRUE(absl::IsInvalidArgument(got.status()));
    EXPECT_EQ(got.status().message().rfind("timeout: ", 0), 0u) << got.status();
  }
}

TEST(QueryParamsTest, IntegersAreExactAndInRange) {
  EXPECT_EQ(*IntParam(httplib::Request(), "tail", -1, -1, 10), -1);
  EXPECT_EQ(*IntParam(With("tail", "10"), "tail", -1, -1, 10), 10);
  for (const char* bad : {"-2", "11", "1.5", "ten", "", "99999999999999999999"}) {
    absl::StatusOr<int64_t> got = IntParam(With("tail", bad), "tail", -1, -1, 10);
    ASSERT_FALSE(got.ok()) << bad;
    EXPECT_EQ(got.status().message().rfind("tail: ", 0), 0u) << got.status();
  }
}

TEST(QueryParamsTest, BooleansAreOneOfFourWords) {
  EXPECT_TRUE(*BoolParam(With("follow", "1"), "follow", false));
  EXPECT_TRUE(*BoolParam(With("follow", "true"), "follow", false));
  EXPECT_FALSE(*BoolParam(With("follow", "0"), "follow", true));
  EXPECT_FALSE(*BoolParam(With("follow", "false"), "follow", true));
  EXPECT_TRUE(*BoolParam(httplib::Request(), "follow", true));
  EXPECT_FALSE(BoolParam(With("follow", "yes"), "follow", false).ok());
}

TEST(QueryParamsTest, RepeatedParametersAreRefused) {
  httplib::Request req;
  req.params.emplace("timeout", "1");
  req.params.emplace("timeout", "nan");
  absl::StatusOr<double> got = SecondsParam(req, "timeout", 60, 100);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "timeout: given more than once");
}

}  // namespace
}  // namespace dlp::server
