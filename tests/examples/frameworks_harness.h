// Shared by the `frameworks` tests (examples/{tensorflow,jax,pytorch}/ under
// dlp-run and a real dlpd): the frameworks' virtual environment that
// scripts/deps/install-frameworks.sh made, and the RESULT lines the examples
// print (examples/python/fashion_mnist.py's report()).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "e2e/cli_harness.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/subprocess.h"

namespace dlp::testing {

// The environment's folder (scripts/deps/dir.sh says where dependencies live),
// or empty when it is not installed.
inline std::string FrameworksVenv() {
  RunResult r = Run({"bash", "-c", ". scripts/deps/dir.sh && echo \"$dlp_deps_dir/frameworks\""},
                    {.cwd = DLP_SOURCE_DIR, .timeout = absl::Seconds(10)});
  const std::string venv(absl::StripAsciiWhitespace(r.out));
  if (r.exit_code != 0 || !FileExists(venv + "/.pins")) return "";
  return venv;
}

// Skips the test without the environment (scripts/test.sh installs it).
#define DLP_REQUIRE_FRAMEWORKS(venv)                                                       \
  const std::string venv = ::dlp::testing::FrameworksVenv();                               \
  if (venv.empty()) {                                                                      \
    GTEST_SKIP() << "no frameworks environment: run scripts/deps/install-frameworks.sh"; \
  }

inline std::string ExampleDir(const std::string& name) {
  return absl::StrCat(DLP_SOURCE_DIR, "/examples/", name);
}

// The replicas find the environment's python3 first on their PATH.
inline std::string VenvPath(const std::string& venv) {
  return absl::StrCat(venv, "/bin:/usr/local/bin:/usr/bin:/bin");
}

// Runs `script` and its arguments with the environment's python3 in
// examples/`example`, under dlp-run with `flags` (-np 2 --framework jax).
inline RunResult DlpRunExample(const std::string& venv, const std::string& example,
                               const std::vector<std::string>& flags,
                               const std::vector<std::string>& script) {
  std::vector<std::string> argv = {BinPath("dlp-run")};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"--", venv + "/bin/python3"});
  argv.insert(argv.end(), script.begin(), script.end());
  return Run(argv, {.cwd = ExampleDir(example), .timeout = absl::Seconds(240)});
}

// RESULT lines by who printed them: "[worker-1] RESULT {..}" from `dlp logs`
// or "[1] RESULT {..}" from dlp-run's prefixed output.
inline std::map<std::string, nlohmann::json> Results(const std::string& output) {
  std::map<std::string, nlohmann::json> results;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipEmpty())) {
    constexpr absl::string_view kTag = "] RESULT ";
    if (!absl::ConsumePrefix(&line, "[")) continue;
    const size_t at = line.find(kTag);
    if (at == absl::string_view::npos) continue;
    const std::string who(line.substr(0, at));
    nlohmann::json j = nlohmann::json::parse(line.substr(at + kTag.size()), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << line;
    if (!j.is_discarded()) results[who] = std::move(j);
  }
  return results;
}

// A real dlpd (started by the first command, as a user's is) that runs the
// examples' job specs with the environment's python.
class FrameworksDlpd {
 public:
  explicit FrameworksDlpd(std::string venv) : venv_(std::move(venv)) {}

  RunResult Dlp(const std::vector<std::string>& args,
                absl::Duration timeout = absl::Seconds(60)) const {
    std::vector<std::string> argv = {BinPath("dlp")};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options = cli_.Options();
    options.timeout = timeout;
    return Run(argv, options);
  }

  // Submits examples/`spec` with `sets` and waits for it; returns the job id.
  std::string SubmitAndWait(const std::string& spec, std::vector<std::string> sets,
                            RunResult* outcome, absl::Duration timeout = absl::Seconds(400)) {
    std::vector<std::string> args = {"submit", "-q", ExampleDir(spec), "--set",
                                     "spec.env.PATH=" + VenvPath(venv_)};
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    RunResult submitted = Dlp(args);
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    const std::string id(absl::StripAsciiWhitespace(submitted.out));
    *outcome = Dlp({"wait", id, "--timeout", absl::StrCat(absl::ToInt64Seconds(timeout), "s")},
                   timeout + absl::Seconds(30));
    return id;
  }

  // Every replica's RESULT line, from the job's logs.
  std::map<std::string, nlohmann::json> JobResults(const std::string& id) const {
    RunResult logs = Dlp({"logs", id});
    EXPECT_EQ(logs.exit_code, 0) << logs.err;
    return Results(logs.out);
  }

  std::string Logs(const std::string& id) const { return Dlp({"logs", id}).out; }
  const CliEnv& cli() const { return cli_; }

 private:
  std::string venv_;
  CliEnv cli_;
};

}  // namespace dlp::testing
