// Strict reads of JSON members: types, ranges and the path in the message.
#include "base/json/fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dlp::base {
namespace {

using ::testing::HasSubstr;

const nlohmann::json kObject = nlohmann::json::parse(R"({
  "name": "w", "count": 3, "big": 9223372036854775807, "huge": 18446744073709551615,
  "on": true, "gone": null, "env": {"A": "1"}, "args": ["x", "y"], "bad_env": {"A": 1},
  "bad_args": ["x", 2], "obj": {}, "list": []
})");

TEST(JsonFieldsTest, ReadsEachTypeAndLeavesMissingAndNullAlone) {
  std::string name = "unset";
  EXPECT_TRUE(ReadString(kObject, "spec", "name", &name).ok());
  EXPECT_EQ(name, "w");
  int count = 0;
  EXPECT_TRUE(ReadInt(kObject, "spec", "count", &count).ok());
  EXPECT_EQ(count, 3);
  int64_t big = 0;
  EXPECT_TRUE(ReadInt(kObject, "spec", "big", &big).ok());
  EXPECT_EQ(big, INT64_MAX);
  bool on = false;
  EXPECT_TRUE(ReadBool(kObject, "spec", "on", &on).ok());
  EXPECT_TRUE(on);
  std::map<std::string, std::string> env;
  EXPECT_TRUE(ReadStringMap(kObject, "spec", "env", &env).ok());
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"A", "1"}}));
  std::vector<std::string> args;
  EXPECT_TRUE(ReadStringList(kObject, "spec", "args", &args).ok());
  EXPECT_EQ(args, (std::vector<std::string>{"x", "y"}));
  std::string kept = "kept";
  EXPECT_TRUE(ReadString(kObject, "spec", "gone", &kept).ok());
  EXPECT_TRUE(ReadString(kObject, "spec", "absent", &kept).ok());
  EXPECT_EQ(kept, "kept");
  std::optional<int> optional = 5;
  EXPECT_TRUE(ReadOptionalInt(kObject, "spec", "gone", &optional).ok());
  EXPECT_EQ(optional, std::nullopt);
  EXPECT_EQ(*ReadObject(kObject, "", "absent"), nullptr);
  EXPECT_NE(*ReadObject(kObject, "", "obj"), nullptr);
  EXPECT_NE(*ReadArray(kObject, "", "list"), nullptr);
}

TEST(JsonFieldsTest, AMismatchNamesTheFieldPathAndWhatWasExpected) {
  std::string name;
  EXPECT_EQ(ReadString(kObject, "spec", "count", &name).message(),
            "spec.count: expected a string, got number");
  int count = 0;
  EXPECT_EQ(ReadInt(kObject, "", "name", &count).message(),
            "name: expected an integer, got string");
  EXPECT_THAT(std::string(ReadInt(kObject, "spec", "big", &count).message()),
              HasSubstr("spec.big: 9223372036854775807 is out of range"));
  int64_t big = 0;
  EXPECT_THAT(std::string(ReadInt(kObject, "spec", "huge", &big).message()),
              HasSubstr("spec.huge: 18446744073709551615 is out of range"));
  std::map<std::string, std::string> env;
  EXPECT_EQ(ReadStringMap(kObject, "spec", "bad_env", &env).message(),
            "spec.bad_env.A: expected a string, got number");
  std::vector<std::string> args;
  EXPECT_EQ(ReadStringList(kObject, "spec", "bad_args", &args).message(),
            "spec.bad_args[1]: expected a string, got number");
  EXPECT_EQ(ReadObject(kObject, "spec", "list").status().message(),
            "spec.list: expected an object, got array");
  bool on = false;
  EXPECT_TRUE(absl::IsInvalidArgument(ReadBool(kObject, "spec", "name", &on)));
}

}  // namespace
}  // namespace dlp::base
