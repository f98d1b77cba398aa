// dlp profile, dlp metrics, dlp top and dlpd's /metrics end to end: a real
// 4-rank fmnist-train (through dlp-run and through a real dlpd), one rank
// slowed on purpose in its data phase.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <regex>
#include <set>

#include "cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;  // gmock's, not dlp::testing
using ::testing::Not;

#ifdef DLP_TEST_SANITIZED
// The sanitizers slow every rank's step about tenfold; the delay keeps its share.
const char* kSlowMs = "250";
#else
const char* kSlowMs = "25";
#endif

// The gradient through a collective (not one model in shared memory), so
// that the profile has the gradient's bandwidth to report.
std::vector<std::string> TrainArgs() {
  return {BinPath("fmnist-train"),
          "--limit-train",
          "1024",
          "--limit-test",
          "256",
          "--epochs",
          "1",
          "--batch",
          "64",
          "--device",
          "cpu",
          "--shared-model",
          "off"};
}

void CheckMergedTrace(const std::string& path) {
  nlohmann::json doc = nlohmann::json::parse(ReadFileOrEmpty(path), nullptr, false);
  ASSERT_TRUE(doc.is_object() && doc["traceEvents"].is_array()) << path;
  std::set<int> pids, allreduce_pids;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    pids.insert(e["pid"].get<int>());
    if (e["name"] == "allreduce") {
      EXPECT_GT(e["args"]["bytes"].get<int64_t>(), 0);
      allreduce_pids.insert(e["pid"].get<int>());
    }
  }
  EXPECT_EQ(pids, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(allreduce_pids, (std::set<int>{0, 1, 2, 3}));
}

void CheckStraggler(const std::string& json_text) {
  nlohmann::json p = nlohmann::json::parse(json_text, nullptr, false);
  ASSERT_TRUE(p.is_object()) << json_text;
  EXPECT_EQ(p["ranks"], 4);
  ASSERT_TRUE(p["straggler"].is_object()) << json_text;
  EXPECT_EQ(p["straggler"]["rank"], 3);
  EXPECT_EQ(p["straggler"]["phase"], "data");
  EXPECT_GT(p["straggler"]["ratio"].get<double>(), 1.1);
  // The gradient's collective (an allreduce, or a sharded optimizer's
  // reduce-scatter): the largest one, with its bandwidth.
  std::string largest;
  int64_t largest_bytes = 0;
  for (const auto& [op, stats] : p["collectives"].items()) {
    if (op != "allreduce" && op != "reduce_scatter") continue;  // not the gradient's
    if (stats["bytes"].get<int64_t>() > largest_bytes) {
      largest = op;
      largest_bytes = stats["bytes"].get<int64_t>();
    }
  }
  ASSERT_FALSE(largest.empty()) << json_text;
  EXPECT_GT(p["collectives"][largest]["busbwGBps"].get<double>(), 0) << json_text;
  for (const nlohmann::json& r : p["perRank"]) EXPECT_EQ(r["steps"], 16) << r.dump();
}

TEST(ProfileE2E, DlpRunTracesNameTheSlowRank) {
  CliEnv env;
  std::vector<std::string> argv = {BinPath("dlp-run"), "-np", "4", "--log-dir",
                                   env.Work("logs"), "--"};
  for (const std::string& a : TrainArgs()) argv.push_back(a);
  RunOptions options = env.Options();
  options.env["DLP_TEST_SLOW_RANK"] = "3";
  options.env["DLP_TEST_SLOW_MS"] = kSlowMs;
  RunResult run = dlp::testing::Run(argv, options);
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  RunResult table = env.Dlp({"profile", "--dir", env.Work("logs"), "--trace",
                             env.Work("merged.json")});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("Straggler:     rank 3 is "));
  EXPECT_THAT(table.out, HasSubstr("data loading"));
  CheckMergedTrace(env.Work("merged.json"));
  RunResult json = env.Dlp({"profile", "--dir", env.Work("logs"), "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  CheckStraggler(json.out);
}

// A raw HTTP GET against dlpd (address and token from its state folder).
std::string HttpGet(const CliEnv& env, const std::string& path, bool with_token) {
  std::string addr(absl::StripAsciiWhitespace(ReadFileOrEmpty(env.StateDir() + "/dlpd.addr")));
  std::string token(absl::StripAsciiWhitespace(ReadFileOrEmpty(env.StateDir() + "/dlpd.token")));
  const size_t colon = addr.rfind(':');
  if (colon == std::string::npos) return "";
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(std::stoi(addr.substr(colon + 1))));
  inet_pton(AF_INET, addr.substr(0, colon).c_str(), &sa.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    close(fd);
    return "";
  }
  std::string req = absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n",
                                 with_token ? "Authorization: Bearer " + token + "\r\n" : "",
                                 "\r\n");
  send(fd, req.data(), req.size(), 0);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, n);
  close(fd);
  return out;
}

std::string Body(const std::string& response) {
  size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

// Each line against the Prometheus text exposition grammar (version 0.0.4).
void CheckPrometheus(const std::string& text) {
  static const std::regex kHelp(R"(# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*)");
  static const std::regex kType(
      R"(# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped))");
  static const std::regex kSample(
      R"([a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*")*\})? (NaN|[+-]Inf|[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?)( -?[0-9]+)?)");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const std::string l(line);
    EXPECT_TRUE(std::regex_match(l, kHelp) || std::regex_match(l, kType) ||
                std::regex_match(l, kSample))
        << "not Prometheus text: " << l;
  }
}

TEST(ProfileE2E, SubmittedJobProfileMetricsTopAndPrometheus) {
  CliEnv env;
  const std::string script = absl::StrCat(
      "echo \"DLP_METRIC printed=1.5 step=3\"\n", "DLP_TEST_SLOW_RANK=3 DLP_TEST_SLOW_MS=",
      kSlowMs, " exec ", absl::StrJoin(TrainArgs(), " "));
  const std::string id = env.Submit(env.WriteJob("train", script, 4, "100m"));
  ASSERT_FALSE(id.empty());
  RunResult wait = env.Dlp({"wait", id});
  ASSERT_EQ(wait.exit_code, 0) << wait.err << env.Dlp({"logs", id}).out;

  RunResult profile = env.Dlp({"profile", id, "-o", "json", "--trace", env.Work("m.json")});
  ASSERT_EQ(profile.exit_code, 0) << profile.err;
  CheckStraggler(profile.out);
  CheckMergedTrace(env.Work("m.json"));

  // Metrics both ways: the trainer's dlp_metric() and a printed line.
  RunResult metrics = env.Dlp({"metrics", id, "-o", "json"});
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  nlohmann::json m = nlohmann::json::parse(metrics.out, nullptr, false);
  ASSERT_TRUE(m.is_object()) << metrics.out;
  std::set<std::string> loss_replicas, printed_replicas;
  for (const nlohmann::json& p : m["metrics"]) {
    if (p["name"] == "loss") loss_replicas.insert(p["replica"].get<std::string>());
    if (p["name"] == "printed") {
      printed_replicas.insert(p["replica"].get<std::string>());
      EXPECT_EQ(p["value"], 1.5);
      EXPECT_EQ(p["step"], 3);
    }
  }
  EXPECT_EQ(loss_replicas.size(), 4u) << metrics.out;
  EXPECT_EQ(printed_replicas.size(), 4u);
  RunResult plot = env.Dlp({"metrics", id, "--name", "loss", "--plot", "--replicas", "each",
                            "--png", env.Work("loss.png")});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_THAT(plot.out, HasSubstr("worker-3"));
  // By default one panel per metric, each with rank 0's series only.
  RunResult panels = env.Dlp({"metrics", id, "--plot", "--no-color", "--svg", env.Work("all.svg")});
  ASSERT_EQ(panels.exit_code, 0) << panels.err;
  EXPECT_THAT(panels.out, HasSubstr("loss by step"));
  EXPECT_THAT(panels.out, HasSubstr("printed by step"));
  EXPECT_THAT(panels.out, HasSubstr("worker-0"));
  EXPECT_THAT(panels.out, Not(HasSubstr("worker-3")));
  EXPECT_THAT(ReadFileOrEmpty(env.Work("all.svg")), HasSubstr(">printed</text>"));
  EXPECT_THAT(plot.out, HasSubstr("\xe2\xa0"));  // braille
  EXPECT_EQ(ReadFileOrEmpty(env.Work("loss.png")).substr(1, 3), "PNG");
  RunResult csv = env.Dlp({"metrics", id, "--name", "accuracy", "-o", "csv"});
  EXPECT_THAT(csv.out, HasSubstr("replica,name,step,value,time\nworker-0,accuracy,16,"));

  // A running job: dlp top on a pipe prints one snapshot; /metrics has its replicas.
  const std::string go = env.Work("go");
  const std::string hold =
      env.Submit(env.WriteJob("hold", absl::StrCat("while [ ! -e ", go, " ]; do sleep 0.05; done"),
                              2, "100m"));
  ASSERT_TRUE(Eventually([&] { return env.State(hold) == "Running"; }));
  RunResult top = env.Dlp({"top"});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_THAT(top.out, HasSubstr("running job(s)"));
  EXPECT_THAT(top.out, HasSubstr("worker-1"));
  EXPECT_EQ(top.out.find("\033["), std::string::npos);  // no screen control on a pipe
  std::string text;
  EXPECT_TRUE(Eventually(
      [&] {
        text = Body(HttpGet(env, "/metrics", true));
        return text.find(absl::StrCat("dlp_replica_rss_bytes{job=\"", hold,
                                      "\",replica=\"worker-1\"}")) != std::string::npos;
      },
      absl::Seconds(20)))
      << text;
  CheckPrometheus(text);
  EXPECT_THAT(text, HasSubstr("dlp_jobs{state=\"Succeeded\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("dlp_jobs{state=\"Running\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("dlp_submit_latency_seconds_count 2\n"));
  EXPECT_THAT(HttpGet(env, "/metrics", false), HasSubstr(" 401 "));
  Touch(go);
  EXPECT_EQ(env.Dlp({"wait", hold}).exit_code, 0);
}

}  // namespace
}  // namespace dlp::testing
