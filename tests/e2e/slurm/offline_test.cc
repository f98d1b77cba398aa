// What the Slurm backend does without a running Slurm: render batch scripts
// and their group files,
// and fail cleanly (exit 4, Slurm's own words) when Slurm cannot be reached.
#include <unistd.h>

#include "slurm_harness.h"

namespace dlp::testing {
namespace {

class SlurmOfflineTest : public ::testing::Test {
 protected:
  SlurmOfflineTest() {
    dir_.WriteFile("config.yaml", absl::StrCat(
        "current-context: offline\ncontexts:\n",
        "  - name: offline\n    backend: slurm\n    partition: gpu\n    workdir: ",
        dir_.Join("jobs"), "\n",
        "  - name: dead-rest\n    backend: slurm\n    rest-url: http://127.0.0.1:9\n",
        "    token-file: ", dir_.WriteFile("token", "SLURM_JWT=x\n"), "\n    workdir: ",
        dir_.Join("jobs"), "\n",
        "  - name: no-conf\n    backend: slurm\n    workdir: ", dir_.Join("jobs"), "\n",
        "  - name: local\n    backend: local\n"));
  }
  RunResult Dlp(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinPath("dlp")};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.env = {{"DLP_CONFIG", dir_.Join("config.yaml")},
                   {"SLURM_CONF", dir_.Join("no-such-slurm.conf")}};
    options.unset_env = {"DLP_CONTEXT"};
    options.timeout = absl::Seconds(60);
    return ::dlp::testing::Run(argv, options);
  }
  TempDir dir_;
};

TEST_F(SlurmOfflineTest, RenderPrintsTheBatchScriptWithoutSlurm) {
  nlohmann::json job = {
      {"apiVersion", "dlp/v1"}, {"kind", "Job"},
      {"metadata", {{"name", "train"}, {"labels", {{"team", "vision"}}}}},
      {"spec",
       {{"priority", -5},
        {"replicas",
         {{"chief", {{"command", {"python", "chief.py"}}, {"resources", {{"cpu", "2"}}}}},
          {"worker",
           {{"count", 3},
            {"command", {"python", "train.py", "--msg", "a'b $(x)"}},
            {"env", {{"MODE", "fast; rm -rf /"}}},
            {"resources", {{"cpu", "1500m"}, {"memory", "4Gi"}}}}}}},
        {"activeDeadlineSeconds", 90},
        {"restartPolicy", {{"policy", "OnFailure"}, {"maxRestarts", 2}}}}}};
  std::string file = dir_.WriteFile("job.yaml", job.dump());
  RunResult r = Dlp({"--context", "local", "render", "--backend", "slurm", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& s = r.out;
  EXPECT_TRUE(absl::StartsWith(s, "#!/bin/bash\n")) << s;
  for (const char* line :
       {"#SBATCH --job-name=train\n", "#SBATCH --ntasks=4\n", "#SBATCH --cpus-per-task=2\n",
        "#SBATCH --mem-per-cpu=2048\n", "#SBATCH --time=2\n",
        "#SBATCH --comment=dlp:train-KEY,team=vision\n", "#SBATCH --nice=5\n",
        "#SBATCH --nodes=1-4\n", "#SBATCH --requeue\n", "#SBATCH --open-mode=append\n",
        "DLP_JOB_NAME=train DLP_OUTPUT_DIR=", "/train-KEY/output srun --kill-on-bad-exit=0 ",
        "--group ", "/train-KEY/group.json --log-dir ", "/train-KEY/logs --status-file ",
        "/train-KEY/status.json --trace-dir ", "/train-KEY/traces\n",
        // The group file dlp-run reads, as the backend writes it.
        "/train-KEY/group.json\n{", "\"maxRestarts\": 2", "\"restartPolicy\": \"OnFailure\"",
        "\"count\": 3"}) {
    EXPECT_TRUE(absl::StrContains(s, line)) << line << " missing in\n" << s;
  }
  EXPECT_TRUE(absl::StrContains(s, "team=vision")) << s;
  // The user's text only ever appears in the group file's JSON, never in shell.
  EXPECT_TRUE(absl::StrContains(s, "\"MODE\": \"fast; rm -rf /\"")) << s;
  EXPECT_TRUE(absl::StrContains(s, "\"a'b $(x)\"")) << s;
  const std::string script = s.substr(0, s.find("/train-KEY/group.json\n{"));
  EXPECT_FALSE(absl::StrContains(script, "rm -rf")) << s;

  RunResult offline = Dlp({"render", file});
  EXPECT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_TRUE(absl::StrContains(offline.out, "#SBATCH --partition=gpu")) << offline.out;

  // Without restarts, Slurm may not requeue the job either.
  RunResult never = Dlp({"render", file, "--set", "spec.restartPolicy.policy=Never", "--set",
                          "spec.restartPolicy.maxRestarts=0"});
  EXPECT_EQ(never.exit_code, 0) << never.err;
  EXPECT_TRUE(absl::StrContains(never.out, "#SBATCH --no-requeue\n")) << never.out;
  EXPECT_FALSE(absl::StrContains(never.out, "--open-mode")) << never.out;
  EXPECT_TRUE(absl::StrContains(never.out, "\"restartPolicy\": \"Never\"")) << never.out;
}

TEST_F(SlurmOfflineTest, UnreachableSlurmRestIsExitCodeFour) {
  std::string file = dir_.WriteFile(
      "job.yaml", "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: x}\n"
                  "spec:\n  replicas:\n    worker:\n      command: [\"true\"]\n");
  RunResult r = Dlp({"--context", "dead-rest", "submit", file});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "slurmrestd")) << r.err;
  RunResult status = Dlp({"--context", "dead-rest", "status", "1"});
  EXPECT_EQ(status.exit_code, 4) << status.err;
}

}  // namespace
}  // namespace dlp::testing
