// Shared setup for the Slurm end-to-end tests: the real build/bin/dlp with a
// DLP_CONFIG whose contexts use the slurm backend, against the single-node
// cluster that `scripts/services.sh start slurm` runs. Its env file
// ($DLP_SLURM_ENV, default /tmp/dlp-slurm/env) says where; without it (or
// when Slurm does not answer) the tests skip, saying why.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/env_file.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {

// The cluster's env file as a map; empty when there is none.
inline std::map<std::string, std::string> SlurmEnvFile() {
  return ReadEnvFile("DLP_SLURM_ENV", "/tmp/dlp-slurm/env");
}

// Why Slurm cannot be used here ("" when it can).
inline std::string SlurmUnavailableReason(const std::map<std::string, std::string>& env) {
  if (env.empty() || env.count("SLURM_CONF") == 0) {
    return "no Slurm test cluster (run `scripts/services.sh start slurm`; no /tmp/dlp-slurm/env)";
  }
  RunOptions options;
  options.env = {{"SLURM_CONF", env.at("SLURM_CONF")}};
  options.timeout = absl::Seconds(20);
  RunResult r = Run({"sinfo", "-h", "-o", "%a"}, options);
  if (r.exit_code != 0) return "the Slurm test cluster does not answer: " + r.err;
  return "";
}

// One test's view: a temp folder with the config, the job folders and a token.
// `transport` is "cli" (sbatch, squeue, scancel) or "rest" (slurmrestd).
class SlurmEnv {
 public:
  explicit SlurmEnv(const std::string& transport) : slurm_(SlurmEnvFile()) {
    skip_reason_ = SlurmUnavailableReason(slurm_);
    if (!skip_reason_.empty()) return;
    if (transport == "rest" && slurm_["DLP_SLURM_REST_URL"].empty()) {
      skip_reason_ = "the Slurm test cluster runs no slurmrestd";
      return;
    }
    std::string context = absl::StrCat("  - name: slurm\n    backend: slurm\n",
                                       "    partition: ", slurm_["DLP_SLURM_PARTITION"], "\n",
                                       "    workdir: ", dir_.Join("jobs"), "\n");
    if (transport == "rest") {
      RunOptions options = Options();
      RunResult token = Run({"scontrol", "token", "username=" + User(), "lifespan=3600"}, options);
      if (token.exit_code != 0) {
        skip_reason_ = "scontrol token failed: " + token.err;
        return;
      }
      dir_.WriteFile("token", token.out);
      absl::StrAppend(&context, "    rest-url: ", slurm_["DLP_SLURM_REST_URL"], "\n",
                      "    token-file: ", dir_.Join("token"), "\n");
    }
    dir_.WriteFile("config.yaml", "current-context: slurm\ncontexts:\n" + context);
  }

  // Call first in each test: GTEST_SKIP() needs the test body.
  const std::string& skip_reason() const { return skip_reason_; }
  const TempDir& dir() const { return dir_; }

  static std::string User() {
    const char* user = getenv("USER");
    if (user != nullptr && *user) return user;
    RunResult r = Run({"id", "-un"});
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  RunOptions Options() const {
    RunOptions options;
    options.env = {{"DLP_CONFIG", dir_.Join("config.yaml")}, {"NO_COLOR", "1"}};
    if (slurm_.count("SLURM_CONF")) options.env["SLURM_CONF"] = slurm_.at("SLURM_CONF");
    options.unset_env = {"DLP_CONTEXT"};
    options.cwd = dir_.path();
    options.timeout = absl::Seconds(120);
    return options;
  }

  RunResult Dlp(const std::vector<std::string>& args,
                absl::Duration timeout = absl::Seconds(120)) const {
    std::vector<std::string> argv = {BinPath("dlp")};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options = Options();
    options.timeout = timeout;
    return Run(argv, options);
  }

  // A one-role job; `command` is the argv, `env` the replicas' environment.
  // Written as JSON (which is YAML) so that any text survives as it is.
  std::string WriteJob(const std::string& name, const std::vector<std::string>& command,
                       int count = 1, const std::map<std::string, std::string>& env = {},
                       const nlohmann::json& extra = nlohmann::json::object()) const {
    nlohmann::json spec = {
        {"replicas",
         {{"worker",
           {{"count", count}, {"command", command}, {"env", env},
            {"resources", {{"cpu", "1"}}}}}}},
        {"workdir", dir_.path()}};
    spec.update(extra);
    nlohmann::json job = {{"apiVersion", "dlp/v1"},
                          {"kind", "Job"},
                          {"metadata", {{"name", name}}},
                          {"spec", spec}};
    return dir_.WriteFile(name + ".yaml", job.dump(2));
  }

  // `dlp status ID -o json`, parsed; null when it fails.
  nlohmann::json Status(const std::string& id) const {
    RunResult r = Dlp({"status", id, "-o", "json"});
    if (r.exit_code != 0) return nullptr;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  // The job id `dlp submit -q` printed.
  static std::string IdFrom(const RunResult& r) {
    std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
    return lines.empty() ? "" : std::string(absl::StripAsciiWhitespace(lines.front()));
  }

 private:
  std::map<std::string, std::string> slurm_;
  std::string skip_reason_;
  TempDir dir_;
};

#define DLP_SKIP_WITHOUT_SLURM(env)                          \
  do {                                                       \
    if (!(env).skip_reason().empty()) GTEST_SKIP() << (env).skip_reason(); \
  } while (0)

}  // namespace dlp::testing
