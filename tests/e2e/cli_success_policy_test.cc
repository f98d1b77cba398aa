// spec.successPolicy through the dlp command: `dlp validate` names a wrong
// role with its position, `dlp render` shows the policy on every backend.
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kJob[] = R"(apiVersion: dlp/v1
kind: Job
metadata: {name: ps}
spec:
  framework: tensorflow
  image: registry.example.com/ml/tf:1.0
  workdir: /workspace
  replicas:
    chief: {count: 1, command: [python3, chief.py]}
    ps: {count: 1, command: [python3, ps.py]}
    worker: {count: 2, command: [python3, worker.py]}
  restartPolicy: {policy: OnFailure, maxRestarts: 2}
  successPolicy: {roles: [chief]}
)";

TEST(CliSuccessPolicy, ValidateNamesAWrongRoleWithItsPosition) {
  CliEnv env;
  RunResult ok = env.Dlp({"validate", env.dir().WriteFile("job.yaml", kJob)});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  std::string typo = kJob;
  typo.replace(typo.find("[chief]"), 7, "[chef]");
  const std::string path = env.dir().WriteFile("typo.yaml", typo);
  RunResult bad = env.Dlp({"validate", path});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr(path + ":13:27: spec.successPolicy.roles[0]: unknown role "
                                        "\"chef\"; did you mean 'chief'?"));
}

TEST(CliSuccessPolicy, RenderShowsItOnEveryBackend) {
  CliEnv env;
  const std::string path = env.dir().WriteFile("job.yaml", kJob);
  for (const char* backend : {"local", "slurm"}) {
    RunResult r = env.Dlp({"render", "--backend", backend, path});
    ASSERT_EQ(r.exit_code, 0) << backend << ": " << r.err;
    // The group file dlp-run decides with.
    EXPECT_THAT(r.out, HasSubstr("\"successPolicy\": {\n    \"roles\": [\n      \"chief\"\n"))
        << backend << ":\n" << r.out;
  }
  RunResult k8s = env.Dlp({"render", "--backend", "kubernetes", path, "-o", "json", "--field",
                           "namespace=ml"});
  ASSERT_EQ(k8s.exit_code, 0) << k8s.err;
  const nlohmann::json objects = nlohmann::json::parse(k8s.out);
  ASSERT_EQ(objects.size(), 3u);
  EXPECT_THAT(objects[0]["data"]["group.json"].get<std::string>(), HasSubstr("successPolicy"));
  EXPECT_EQ(objects[2]["spec"]["successPolicy"],
            nlohmann::json::parse(R"({"operator": "All", "targetReplicatedJobs": ["chief"]})"));
}

}  // namespace
}  // namespace dlp::testing
