// dlp artifacts and dlp model through the remote backend (a real dlpd over
// HTTP, as root so that a tenant's jobs run as dlptest-a): a job's output
// folder listed and fetched with its checksum verified, path escapes refused,
// model versions, aliases and `model get` writing the same bytes, and another
// tenant's jobs and models answering 404 (exit 3) while the owner sees all.
// Also `dlp metrics --compare` of two runs.
#include "contract/sha256.h"
#include "gmock/gmock.h"
#include "remote_dlpd_fixture.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kWriter[] =
    "printf weights-$DLP_JOB_ID > \"$DLP_OUTPUT_DIR/model.ckpt\"\n"
    "mkdir -p \"$DLP_OUTPUT_DIR/epochs\" && echo one > \"$DLP_OUTPUT_DIR/epochs/1.json\"\n"
    "ln -s /etc/passwd \"$DLP_OUTPUT_DIR/passwd\"\n"
    "echo 'DLP_METRIC accuracy=0.75 step=1'";

nlohmann::json Json(const RunResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

class CliArtifacts : public RemoteDlpdTest {
 protected:
  std::string RunWriter(const std::string& context = "owner") {
    RunResult r = Dlp({"--context", context, "submit", "-q", env_.WriteJob("writer", kWriter)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string id(absl::StripAsciiWhitespace(r.out));
    EXPECT_EQ(Dlp({"--context", context, "wait", "-q", id}).exit_code, 0);
    return id;
  }
};

TEST_F(CliArtifacts, ListGetAndModelsThroughTheRemoteBackend) {
  const std::string id = RunWriter();
  const std::string content = "weights-" + id;

  nlohmann::json list = Json(Dlp({"artifacts", "list", id, "-o", "json"}));
  ASSERT_EQ(list["artifacts"].size(), 2u) << list.dump();
  EXPECT_EQ(list["artifacts"][1]["path"], "model.ckpt");
  EXPECT_EQ(list["artifacts"][1]["sha256"], contract::Sha256Hex(content));
  RunResult table = Dlp({"artifacts", "list", id});
  EXPECT_THAT(table.out, HasSubstr("epochs/1.json"));
  EXPECT_THAT(table.out, Not(HasSubstr("passwd")));

  const std::string out = env_.dir().Join("out");
  RunResult got = Dlp({"artifacts", "get", id, "model.ckpt", "-o", out});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_THAT(got.out, HasSubstr(contract::Sha256Hex(content)));
  EXPECT_EQ(ReadFileOrEmpty(out + "/model.ckpt"), content);
  ASSERT_EQ(Dlp({"artifacts", "get", id, "-o", out + "-all"}).exit_code, 0);
  EXPECT_EQ(ReadFileOrEmpty(out + "-all/epochs/1.json"), "one\n");

  for (const char* bad : {"../logs/worker-0.log", "/etc/passwd"}) {
    RunResult r = Dlp({"artifacts", "get", id, bad, "-o", out});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
  }
  EXPECT_EQ(Dlp({"artifacts", "get", id, "passwd", "-o", out}).exit_code, 3);
  EXPECT_FALSE(FileExists(out + "/passwd"));
  EXPECT_EQ(Dlp({"artifacts", "list", "999"}).exit_code, 3);

  // Two versions of the same content; an alias that moves.
  RunResult v1 = Dlp(
      {"model", "register", "fmnist", "--job", id, "--path", "model.ckpt", "--alias", "staging"});
  ASSERT_EQ(v1.exit_code, 0) << v1.err;
  EXPECT_EQ(v1.out, "fmnist:1\n");
  EXPECT_EQ(Dlp({"model", "register", "fmnist", "--job", id, "--path", "model.ckpt"}).out,
            "fmnist:2\n");
  const std::string models = env_.dir().Join("models");
  RunResult fetched = Dlp({"model", "get", "fmnist@staging", "-o", models});
  ASSERT_EQ(fetched.exit_code, 0) << fetched.err;
  EXPECT_THAT(fetched.out, HasSubstr("fmnist:1"));
  EXPECT_EQ(ReadFileOrEmpty(models + "/model.ckpt"), content);
  ASSERT_EQ(Dlp({"model", "alias", "set", "fmnist@staging", "2"}).exit_code, 0);
  nlohmann::json shown = Json(Dlp({"model", "show", "fmnist@staging", "-o", "json"}));
  EXPECT_EQ(shown["version"], 2);
  EXPECT_EQ(shown["metrics"]["accuracy"], 0.75);
  EXPECT_THAT(Dlp({"model", "show", "fmnist:1"}).out,
              HasSubstr(absl::StrCat("model.ckpt (", content.size(), " bytes)")));
  EXPECT_EQ(Json(Dlp({"model", "list", "-o", "json"}))["models"].size(), 2u);
  EXPECT_EQ(Dlp({"model", "show", "nothing"}).exit_code, 3);
  EXPECT_EQ(Dlp({"model", "register", "bad/name", "--job", id, "--path", "x"}).exit_code, 2);

  // Another tenant: the owner's job and models are not there (404, exit 3).
  ASSERT_EQ(Dlp({"admin", "tenant", "create", "alice", "--user", "dlptest-a"}).exit_code, 0);
  RunResult token = Dlp({"admin", "token", "create", "alice"});
  ASSERT_EQ(token.exit_code, 0) << token.err;
  WriteConfig(std::string(absl::StripAsciiWhitespace(token.out)));
  EXPECT_EQ(Dlp({"--context", "alice", "artifacts", "list", id}).exit_code, 3);
  EXPECT_EQ(Dlp({"--context", "alice", "artifacts", "get", id, "-o", out}).exit_code, 3);
  EXPECT_EQ(Dlp({"--context", "alice", "model", "show", "fmnist"}).exit_code, 3);
  EXPECT_EQ(Dlp({"--context", "alice", "model", "get", "fmnist:1", "-o", out}).exit_code, 3);
  EXPECT_EQ(
      Dlp({"--context", "alice", "model", "register", "m", "--job", id, "--path", "model.ckpt"})
          .exit_code,
      3);
  EXPECT_EQ(Json(Dlp({"--context", "alice", "model", "list", "-o", "json"}))["models"].size(), 0u);
  // Her own job and model: numbered on their own; the owner sees them as alice/NAME.
  const std::string hers = RunWriter("alice");
  RunResult mine = Dlp(
      {"--context", "alice", "model", "register", "fmnist", "--job", hers, "--path", "model.ckpt"});
  ASSERT_EQ(mine.exit_code, 0) << mine.err;
  EXPECT_EQ(mine.out, "fmnist:1\n");
  nlohmann::json all = Json(Dlp({"model", "list", "-o", "json"}));
  ASSERT_EQ(all["models"].size(), 3u);
  EXPECT_EQ(all["models"][2]["name"], "alice/fmnist");
  EXPECT_EQ(all["models"][2]["registeredBy"], "alice");
  ASSERT_EQ(Dlp({"model", "get", "alice/fmnist:1", "-o", out + "-alice"}).exit_code, 0);
  EXPECT_EQ(ReadFileOrEmpty(out + "-alice/model.ckpt"), "weights-" + hers);
  // Files a tenant's job writes belong to its account.
  struct stat st;
  ASSERT_EQ(stat((state_ + "/jobs/" + hers + "/output").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, user_.uid);
}

TEST(CliMetricsCompare, RunsSideBySide) {
  CliEnv env;
  const std::string a = env.Submit(
      env.WriteJob("a",
                   "echo 'DLP_METRIC loss=0.9 step=1'; echo 'DLP_METRIC loss=0.4 step=2'; "
                   "echo 'DLP_METRIC loss=0.5 step=3'"));
  const std::string b = env.Submit(
      env.WriteJob("b", "echo 'DLP_METRIC loss=0.8 step=1'; echo 'DLP_METRIC loss=0.3 step=2'"));
  ASSERT_EQ(env.Dlp({"wait", "-q", a, b}).exit_code, 0);
  RunResult json = env.Dlp({"metrics", "--compare", a, b, "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << json.out;
  EXPECT_EQ(j["metrics"][0]["name"], "loss");
  EXPECT_EQ(j["metrics"][0]["goal"], "min");
  EXPECT_EQ(j["metrics"][0]["runs"][a]["final"], 0.5);
  EXPECT_EQ(j["metrics"][0]["runs"][a]["best"], 0.4);
  EXPECT_EQ(j["metrics"][0]["runs"][b]["best"], 0.3);
  RunResult table = env.Dlp({"metrics", "--compare", a, b});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("JOB " + b));
  EXPECT_THAT(table.out, HasSubstr("0.5 (best 0.4)"));
  RunResult plot = env.Dlp({"metrics", "--compare", a, b, "--plot", "--no-color"});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_THAT(plot.out, HasSubstr("job " + a));
  EXPECT_THAT(plot.out, HasSubstr("job " + b));
  EXPECT_EQ(env.Dlp({"metrics", "--compare", a, b, "-o", "csv"}).exit_code, 2);
}

}  // namespace
}  // namespace dlp::testing
