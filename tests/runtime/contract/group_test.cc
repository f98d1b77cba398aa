// The group file's one codec: what GroupToJson writes, ParseGroupJson reads
// back unchanged; a bad file is refused naming the file and the field.
#include "contract/group.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace dlp::contract {
namespace {

using ::testing::HasSubstr;

Group Sample() {
  Group g;
  g.framework = Framework::kTensorFlow;
  g.workdir = "/home/u/project";
  g.roles = {{"chief", 1, {"python", "chief.py"}, {}, 0},
             {"worker", 3, {"python", "train.py", "--msg", "a'b $(x)"}, {{"MODE", "fast; x"}}, 2}};
  g.restart_policy = RestartPolicy::kExitCode;
  g.max_restarts = 2;
  g.backoff = absl::Seconds(5);
  g.log_max_bytes = 1 << 20;
  return g;
}

void ExpectSame(const Group& a, const Group& b) {
  EXPECT_EQ(a.framework, b.framework);
  EXPECT_EQ(a.workdir, b.workdir);
  ASSERT_EQ(a.roles.size(), b.roles.size());
  for (size_t i = 0; i < a.roles.size(); ++i) {
    EXPECT_EQ(a.roles[i].role, b.roles[i].role);
    EXPECT_EQ(a.roles[i].count, b.roles[i].count);
    EXPECT_EQ(a.roles[i].command, b.roles[i].command);
    EXPECT_EQ(a.roles[i].env, b.roles[i].env);
    EXPECT_EQ(a.roles[i].gpus, b.roles[i].gpus);
  }
  EXPECT_EQ(a.restart_policy, b.restart_policy);
  EXPECT_EQ(a.max_restarts, b.max_restarts);
  EXPECT_EQ(a.backoff, b.backoff);
  EXPECT_EQ(a.log_max_bytes, b.log_max_bytes);
  EXPECT_EQ(a.restart_count, b.restart_count);
  EXPECT_EQ(a.job_max_restarts, b.job_max_restarts);
}

TEST(GroupCodec, RoundTrips) {
  const Group g = Sample();
  const std::string text = GroupToJson(g);
  EXPECT_THAT(text, HasSubstr("\"restartPolicy\": \"ExitCode\""));
  EXPECT_THAT(text, HasSubstr("\"framework\": \"tensorflow\""));
  EXPECT_THAT(text, HasSubstr("\"backoffSeconds\": 5"));
  EXPECT_THAT(text, HasSubstr("\"logs\": {\n    \"maxBytes\": 1048576\n  }"));
  auto back = ParseGroupJson(text, "g.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(g, *back);
}

TEST(GroupCodec, LogLimitIsWrittenOnlyWhenSet) {
  Group g = Sample();
  g.log_max_bytes = 0;
  EXPECT_THAT(GroupToJson(g), ::testing::Not(HasSubstr("logs")));
  auto back = ParseGroupJson(R"({"roles": [{"command": ["x"]}]})", "g.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->log_max_bytes, 0);
}

// dlpd starts a preempted job again with the restarts it had: written only
// then, so every other group file reads as before.
TEST(GroupCodec, RestartCountIsWrittenOnlyAfterEarlierRestarts) {
  Group g = Sample();
  EXPECT_THAT(GroupToJson(g), ::testing::Not(HasSubstr("restartCount")));
  g.restart_count = 2;
  const std::string text = GroupToJson(g);
  EXPECT_THAT(text, HasSubstr("\"restartCount\": 2"));
  auto back = ParseGroupJson(text, "g.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(g, *back);
  auto negative =
      ParseGroupJson(R"({"roles": [{"command": ["x"]}], "restartCount": -1})", "g.json");
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(std::string(negative.status().message()), HasSubstr("restartCount"));
}

// After failures used some of a job's maxRestarts, dlpd starts it again with
// what is left and the job's own: torchrun's TORCHELASTIC_MAX_RESTARTS.
TEST(GroupCodec, TheJobsMaxRestartsIsWrittenOnlyWhenAnotherThanThisLaunchs) {
  Group g = Sample();
  EXPECT_THAT(GroupToJson(g), ::testing::Not(HasSubstr("jobMaxRestarts")));
  EXPECT_EQ(TorchMaxRestarts(g), g.max_restarts);
  g.max_restarts = 1;
  g.job_max_restarts = 3;
  const std::string text = GroupToJson(g);
  EXPECT_THAT(text, HasSubstr("\"jobMaxRestarts\": 3"));
  auto back = ParseGroupJson(text, "g.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(g, *back);
  EXPECT_EQ(TorchMaxRestarts(*back), 3);
  auto negative =
      ParseGroupJson(R"({"roles": [{"command": ["x"]}], "jobMaxRestarts": -1})", "g.json");
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(std::string(negative.status().message()), HasSubstr("jobMaxRestarts"));
}

TEST(GroupCodec, FileRoundTripIsPrivate) {
  testing::TempDir dir;
  const std::string path = dir.Join("group.json");
  ASSERT_TRUE(WriteGroupFile(path, Sample()).ok());
  auto back = ReadGroupFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(Sample(), *back);
  EXPECT_EQ(ReadGroupFile(dir.Join("missing.json")).status().code(), absl::StatusCode::kNotFound);
}

TEST(GroupCodec, ErrorsNameTheFileAndTheField) {
  struct Case {
    std::string text, field;
  } cases[] = {
      {R"({"roles": []})", "g.json: roles:"},
      {R"({"roles": [{"role": "w", "command": []}]})", "g.json: roles[0].command:"},
      {R"({"roles": [{"command": ["x"], "count": 0}]})", "g.json: roles[0].count:"},
      {R"({"roles": [{"command": ["x"], "env": {"A": [1]}}]})", "g.json: roles[0].env.A:"},
      {R"({"roles": [{"command": ["x"]}, {"command": ["y"]}]})", "g.json: roles[1].role:"},
      {R"({"framework": "caffe", "roles": [{"command": ["x"]}]})", "g.json: framework:"},
      {R"({"restartPolicy": "Always", "roles": [{"command": ["x"]}]})",
       "g.json: restartPolicy: must be one of Never, OnFailure, ExitCode"},
      {R"({"maxRestarts": -1, "roles": [{"command": ["x"]}]})", "g.json: maxRestarts:"},
      {R"({"backoffSeconds": "5", "roles": [{"command": ["x"]}]})", "g.json: backoffSeconds:"},
      {R"({"backoffSeconds": 1e300, "roles": [{"command": ["x"]}]})", "g.json: backoffSeconds:"},
      {R"({"logs": 5, "roles": [{"command": ["x"]}]})", "g.json: logs: must be an object"},
      {R"({"logs": {"maxBytes": -1}, "roles": [{"command": ["x"]}]})", "g.json: logs.maxBytes:"},
      {R"({"logs": {"maxBytes": "1Mi"}, "roles": [{"command": ["x"]}]})", "g.json: logs.maxBytes:"},
      {R"({"successPolicy": {"roles": ["chief"]}, "roles": [{"command": ["x"]}]})",
       "g.json: successPolicy.roles: must name each of the group's roles at most once"},
      {R"({"successPolicy": {"roles": ["worker", "worker"]}, "roles": [{"command": ["x"]}]})",
       "g.json: successPolicy.roles:"},
      {R"({"successPolicy": {"roles": []}, "roles": [{"command": ["x"]}]})",
       "g.json: successPolicy: must be an object"},
      {R"({"successPolicy": ["worker"], "roles": [{"command": ["x"]}]})", "g.json: successPolicy:"},
      {R"([1, 2])", "g.json: (top):"},
      {R"({"roles": )", "g.json: invalid JSON"},
      {R"({"roles": [{"command": ["x"]}], "maxRestarts": 1e999})", "g.json: invalid JSON"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseGroupJson(c.text, "g.json");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(c.field)) << c.text;
  }
}

TEST(GroupCodec, PlacedDevicesRoundTripOnePerReplica) {
  Group g = Sample();
  g.roles[1].devices = {
      {"0", {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "50"}}}, {"MIG-6d1c", {}}, {"", {}}};
  const std::string text = GroupToJson(g);
  EXPECT_THAT(text, HasSubstr("\"visible\": \"MIG-6d1c\""));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("\"devices\": []")));  // chief: none placed
  auto back = ParseGroupJson(text, "g.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->roles[1].devices, g.roles[1].devices);
  EXPECT_TRUE(back->roles[0].devices.empty());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"("devices": [{"visible": "0"}])", "roles[0].devices: must be an array of 2 entries"},
      {R"("devices": [{"visible": "0"}, {}])", "roles[0].devices[1]: must be an object"},
      {R"("devices": [{"visible": "0 1"}, {"visible": ""}])",
       "roles[0].devices[0].visible: must be a device list without spaces"},
      {R"("devices": [{"visible": "0", "env": {"A": 1}}, {"visible": ""}])",
       "roles[0].devices[0].env.A: must be a variable name with a string value"},
  };
  for (const auto& [devices, expected] : bad) {
    const std::string json =
        R"({"roles": [{"role": "worker", "count": 2, "command": ["x"], )" + devices + "}]}";
    auto parsed = ParseGroupJson(json, "g.json");
    ASSERT_FALSE(parsed.ok()) << json;
    EXPECT_THAT(parsed.status().message(), HasSubstr(expected));
  }
}

TEST(Names, AreMappedOnce) {
  for (std::string_view name : kFrameworkNames) {
    auto f = ParseFramework(name);
    ASSERT_TRUE(f) << name;
    EXPECT_EQ(FrameworkName(*f), name);
  }
  for (std::string_view name : kRestartPolicyNames) {
    auto p = ParseRestartPolicy(name);
    ASSERT_TRUE(p) << name;
    EXPECT_EQ(RestartPolicyName(*p), name);
  }
  EXPECT_FALSE(ParseRestartPolicy("Always"));
  EXPECT_FALSE(ParseFramework("caffe"));
  EXPECT_EQ(RestartPolicyNameList(), "Never, OnFailure, ExitCode");
}

TEST(Names, ExitCodePolicyRestartsOnlySignalsAndHighCodes) {
  EXPECT_FALSE(ShouldRestart(RestartPolicy::kNever, 1, 0));
  EXPECT_TRUE(ShouldRestart(RestartPolicy::kOnFailure, 1, 0));
  EXPECT_FALSE(ShouldRestart(RestartPolicy::kExitCode, 1, 0));
  EXPECT_TRUE(ShouldRestart(RestartPolicy::kExitCode, 137, 0));
  EXPECT_TRUE(ShouldRestart(RestartPolicy::kExitCode, 0, 9));
}

}  // namespace
}  // namespace dlp::contract
