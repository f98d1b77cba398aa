// Submitting and waiting through the real dlp and dlpd: exit codes for every
// outcome, -q, -o json, unknown jobs and unreachable backends.
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

TEST(CliSubmit, SucceededJobExitsZero) {
  CliEnv env;
  const std::string spec = env.WriteJob("ok", "echo \"hi from $DLP_REPLICA\"", 2);
  RunResult r = env.Dlp({"submit", spec, "--wait"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("job [^ ]+ submitted \\(ok\\)"));
}

TEST(CliSubmit, FailingReplicaExitsOneAndIsNamed) {
  CliEnv env;
  const std::string spec = env.WriteJob(
      "fails", "if [ \"$DLP_REPLICA_INDEX\" = 1 ]; then exit 3; fi\nsleep 60", 2);
  RunResult r = env.Dlp({"submit", spec, "--wait"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("worker-1"));
  EXPECT_THAT(r.err, HasSubstr("exited with code 3"));
  // `dlp wait` on the finished job gives the same outcome.
  const std::string id = r.out.substr(4, r.out.find(' ', 4) - 4);
  RunResult again = env.Dlp({"wait", id});
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_THAT(again.err, HasSubstr("worker-1"));
}

TEST(CliSubmit, CancelledJobExitsFive) {
  CliEnv env;
  const std::string spec = env.WriteJob("sleeper", "echo started\nsleep 120");
  auto waiter = env.DlpInBackground({"submit", "-q", "--wait", spec});
  std::string id;
  ASSERT_TRUE(Eventually([&] {
    id = std::string(absl::StripAsciiWhitespace(waiter->OutputSoFar()));
    return !id.empty();
  }));
  ASSERT_TRUE(Eventually([&] { return env.State(id) == "Running"; })) << env.State(id);
  RunResult cancel = env.Dlp({"cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  RunResult waited = waiter->Wait(absl::Seconds(60));
  EXPECT_EQ(waited.exit_code, 5) << waited.err;
  EXPECT_EQ(env.State(id), "Cancelled");
  EXPECT_EQ(env.Dlp({"wait", id}).exit_code, 5);
}

TEST(CliSubmit, QuietPrintsOnlyTheIdAndStdinWorks) {
  CliEnv env;
  const std::string yaml = ReadFileOrEmpty(env.WriteJob("quiet", "true"));
  RunResult r = env.Dlp({"submit", "-q", "-f", "-", "--name", "from-stdin", "--wait"}, yaml);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string id(absl::StripAsciiWhitespace(r.out));
  EXPECT_THAT(id, ::testing::MatchesRegex("[A-Za-z0-9_-]+"));
  EXPECT_EQ(env.Status(id)["name"], "from-stdin");
}

TEST(CliSubmit, JsonOutputHasTheDocumentedFields) {
  CliEnv env;
  const std::string id = env.Submit(env.WriteJob("json", "echo out", 2));
  ASSERT_EQ(env.Dlp({"wait", id}).exit_code, 0);

  nlohmann::json job = env.Status(id);
  for (const char* field : {"id", "name", "state", "created", "started", "finished", "exitCode",
                            "reason", "replicas"}) {
    EXPECT_TRUE(job.contains(field)) << field << " missing in " << job.dump();
  }
  EXPECT_EQ(job["id"], id);
  EXPECT_EQ(job["state"], "Succeeded");
  ASSERT_EQ(job["replicas"].size(), 2u);
  for (const auto& replica : job["replicas"]) {
    for (const char* field : {"name", "state", "exitCode"}) EXPECT_TRUE(replica.contains(field));
    EXPECT_EQ(replica["exitCode"], 0);
  }

  RunResult list = env.Dlp({"list", "-o", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  nlohmann::json jobs = nlohmann::json::parse(list.out, nullptr, false);
  ASSERT_TRUE(jobs.is_object()) << list.out;
  ASSERT_EQ(jobs["jobs"].size(), 1u);
  EXPECT_EQ(jobs["jobs"][0]["id"], id);

  RunResult describe = env.Dlp({"describe", id, "-o", "json"});
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  nlohmann::json described = nlohmann::json::parse(describe.out, nullptr, false);
  EXPECT_TRUE(described.contains("events")) << describe.out;

  RunResult yaml = env.Dlp({"list", "-o", "yaml"});
  EXPECT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_THAT(yaml.out, HasSubstr(id));

  // Tables on a pipe are plain: no escape codes.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"list"}, {"list", "-o", "wide"}, {"status", id}, {"describe", id}}) {
    RunResult t = env.Dlp(args);
    EXPECT_EQ(t.exit_code, 0) << t.err;
    EXPECT_THAT(t.out, HasSubstr(id));
    EXPECT_EQ(t.out.find('\033'), std::string::npos) << t.out;
  }
  RunResult filtered = env.Dlp({"list", "--state", "failed", "-o", "json"});
  EXPECT_EQ(nlohmann::json::parse(filtered.out, nullptr, false)["jobs"].size(), 0u) << filtered.out;
}

TEST(CliSubmit, UnknownJobExitsThree) {
  CliEnv env;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"status", "999999"}, {"describe", "999999"}, {"logs", "999999"},
        {"cancel", "999999"}, {"wait", "999999"}}) {
    RunResult r = env.Dlp(args);
    EXPECT_EQ(r.exit_code, 3) << absl::StrJoin(args, " ") << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("dlp: error: "));
  }
}

TEST(CliSubmit, UnreachableRemoteContextExitsFour) {
  CliEnv env;
  const std::string token = env.dir().WriteFile("team.token", "0123456789abcdef\n");
  const std::string config = env.dir().WriteFile(
      "config.yaml", "current-context: team\ncontexts:\n"
                     "  - {name: local, backend: local}\n"
                     "  - {name: team, backend: remote, server: \"http://127.0.0.1:1\", token-file: " +
                         token + "}\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"list"}, {"status", "1"}, {"cancel", "1"}}) {
    std::vector<std::string> full = {"--config", config};
    full.insert(full.end(), args.begin(), args.end());
    RunResult r = env.Dlp(full);
    EXPECT_EQ(r.exit_code, 4) << absl::StrJoin(args, " ") << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("dlp: error: "));
  }
  // An unknown context is "not found".
  RunResult missing = env.Dlp({"--config", config, "--context", "nowhere", "list"});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
}

}  // namespace
}  // namespace dlp::testing
