// dlp ui: prints a one-time sign-in link to the local dlpd's web UI (which
// signs a browser in once), opens it with xdg-open where a display is there,
// and says why not on a backend without a dlpd.
#include <sys/stat.h>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "cli_harness.h"
#include "gmock/gmock.h"
#include "httplib.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// GETs `url` (http://HOST:PORT/path?query) without following redirects.
int StatusOf(const std::string& url) {
  absl::string_view rest = url;
  if (!absl::ConsumePrefix(&rest, "http://")) return -1;
  const size_t slash = rest.find('/');
  httplib::Client client("http://" + std::string(rest.substr(0, slash)));
  auto res = client.Get(std::string(rest.substr(slash)).c_str());
  return res ? res->status : -1;
}

TEST(CliUi, PrintUrlPrintsASingleUseSignInLink) {
  CliEnv env;
  RunResult ui = env.Dlp({"ui", "--print-url"});
  ASSERT_EQ(ui.exit_code, 0) << ui.err;
  const std::string url(absl::StripAsciiWhitespace(ui.out));
  EXPECT_THAT(url, MatchesRegex("http://127\\.0\\.0\\.1:[0-9]+/login\\?code=[0-9a-f]{64}"));
  const std::string token = ReadFileOrEmpty(env.StateDir() + "/dlpd.token");
  EXPECT_THAT(url, ::testing::Not(HasSubstr(std::string(absl::StripAsciiWhitespace(token)))));
  EXPECT_EQ(StatusOf(url), 303) << "signs in";
  EXPECT_EQ(StatusOf(url), 401) << "once";
}

TEST(CliUi, OpensTheLinkWithXdgOpenWhenADisplayIsThere) {
  CliEnv env;
  // A stand-in for xdg-open that records what it was asked to open.
  const std::string bin = env.dir().Join("bin");
  const std::string opened = env.dir().Join("opened.txt");
  const std::string script =
      env.dir().WriteFile("bin/xdg-open", "#!/bin/sh\nprintf '%s' \"$1\" > " + opened + "\n");
  chmod(script.c_str(), 0755);
  RunOptions options = env.Options();
  options.env["PATH"] = bin + ":" + std::string(getenv("PATH"));
  options.env["DISPLAY"] = ":0";
  RunResult ui = dlp::testing::Run({BinPath("dlp"), "ui"}, options);
  ASSERT_EQ(ui.exit_code, 0) << ui.err;
  EXPECT_THAT(ui.err, HasSubstr("Opened the web UI"));
  EXPECT_EQ(ui.out, "");
  EXPECT_THAT(ReadFileOrEmpty(opened), MatchesRegex("http://.*/login\\?code=[0-9a-f]{64}"));

  // No display: the link is printed, whatever is on PATH.
  options.unset_env = {"DLP_CONTEXT", "DISPLAY", "WAYLAND_DISPLAY"};
  options.env.erase("DISPLAY");
  RunResult printed = dlp::testing::Run({BinPath("dlp"), "ui"}, options);
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_THAT(printed.out, HasSubstr("/login?code="));
  EXPECT_THAT(printed.err, HasSubstr("works once"));
}

TEST(CliUi, TheSlurmBackendHasNoUi) {
  CliEnv env;
  const std::string config = env.dir().WriteFile(
      "slurm.yaml",
      "current-context: hpc\ncontexts:\n  - {name: hpc, backend: slurm, partition: debug}\n");
  RunResult ui = env.Dlp({"--config", config, "ui", "--print-url"});
  EXPECT_EQ(ui.exit_code, 4) << ui.out << ui.err;
  EXPECT_THAT(ui.err, HasSubstr("dlp: error: the slurm backend does not offer usage samples and a "
                                "web UI (`dlp ui` needs the monitor capability); use the local or "
                                "remote backend\n"));
  EXPECT_EQ(ui.out, "");
}

}  // namespace
}  // namespace dlp::testing
