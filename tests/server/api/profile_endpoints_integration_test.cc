// A real dlpd serves what `dlp profile` computes from a job's trace files: the
// summary with the straggler (GET /v1/jobs/ID/profile) and the merged Chrome
// trace (GET /v1/jobs/ID/profile/trace), the same document MergeTraces makes
// of the files; a job without trace events, and an unknown job, get 404; a
// job's sparse trace file is refused, not read.
#include <gtest/gtest.h>

#include "../daemon/dlpd_fixture.h"
#include "dlp/profile.h"

namespace dlp::testing {
namespace {

// Each of three ranks writes three steps to its trace file, as the runtime
// does; rank 1 spends 60 µs a step loading data where the others spend 10,
// and waits less in the allreduce for it: 95 µs of work a step against 80.
constexpr char kTracingRanks[] = R"(d=10; c=20; [ "$RANK" = 1 ] && d=60 && c=5
f="$DLP_TRACE_DIR/rank-$RANK.trace.json"
echo '[' > "$f"
echo "{\"name\":\"dlp_meta\",\"ph\":\"M\",\"pid\":$RANK,\"args\":{\"rank\":$RANK,\"world_size\":3,\"restart\":0,\"host\":\"h$RANK\"}}," >> "$f"
for s in 0 1 2; do
  ts=$((1000 + s * 1000))
  echo "{\"name\":\"step\",\"cat\":\"step\",\"ph\":\"X\",\"ts\":$ts,\"dur\":100,\"pid\":$RANK,\"tid\":0}," >> "$f"
  echo "{\"name\":\"data\",\"cat\":\"phase\",\"ph\":\"X\",\"ts\":$ts,\"dur\":$d,\"pid\":$RANK,\"tid\":0}," >> "$f"
  echo "{\"name\":\"allreduce\",\"cat\":\"comm\",\"ph\":\"X\",\"ts\":$((ts + 70)),\"dur\":$c,\"pid\":$RANK,\"tid\":0}," >> "$f"
done
)";

class ProfileEndpointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DLP_RUN();
    dlpd_ = std::make_unique<Dlpd>(dir_.Join("state"));
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    client_ = dlpd_->Client();
  }

  std::string Run(const std::string& name, const std::string& script, int count) {
    const std::string id =
        SubmitJson(*client_, ShellJob(name, script, count, "100")).value("id", "");
    EXPECT_EQ(WaitJob(*client_, id).value("state", ""), "Succeeded");
    return id;
  }

  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ProfileEndpointsTest, SummaryAndMergedTraceOfATracedJob) {
  const std::string id = Run("traced", kTracingRanks, 3);
  ASSERT_FALSE(id.empty());

  int status = 0;
  nlohmann::json profile = GetJson(*client_, "/v1/jobs/" + id + "/profile", &status);
  ASSERT_EQ(status, 200) << profile.dump();
  EXPECT_EQ(profile["ranks"], 3);
  ASSERT_EQ(profile["perRank"].size(), 3u);
  EXPECT_EQ(profile["perRank"][1]["host"], "h1");
  EXPECT_EQ(profile["perRank"][1]["steps"], 3);
  ASSERT_TRUE(profile["straggler"].is_object()) << profile.dump();
  EXPECT_EQ(profile["straggler"]["rank"], 1);
  EXPECT_EQ(profile["straggler"]["phase"], "data");

  auto res = client_->Get(("/v1/jobs/" + id + "/profile/trace").c_str());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Disposition"),
            "attachment; filename=\"job-" + id + ".trace.json\"");
  // What `dlp profile --trace` writes from the same files.
  absl::StatusOr<std::vector<TraceFile>> files =
      ReadTraceDir(dir_.Join("state/jobs/" + id + "/logs"));
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 3u);
  absl::StatusOr<std::string> merged = MergeTraces(*files);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(res->body, *merged);
  nlohmann::json trace = nlohmann::json::parse(res->body, nullptr, false);
  std::vector<std::string> processes;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["name"] == "process_name") processes.push_back(e["args"]["name"]);
  }
  EXPECT_EQ(processes, (std::vector<std::string>{"rank 0 (h0)", "rank 1 (h1)", "rank 2 (h2)"}));

  // The files themselves are still served as they are.
  nlohmann::json raw = GetJson(*client_, "/v1/jobs/" + id + "/traces", &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(raw["files"].size(), 3u);
}

TEST_F(ProfileEndpointsTest, NoTraceEventsOrNoJobIsNotFound) {
  const std::string id = Run("untraced", "echo no tracing here", 1);
  ASSERT_FALSE(id.empty());
  for (const std::string& path :
       {"/v1/jobs/" + id + "/profile", "/v1/jobs/" + id + "/profile/trace"}) {
    int status = 0;
    nlohmann::json body = GetJson(*client_, path, &status);
    EXPECT_EQ(status, 404) << path << ": " << body.dump();
    EXPECT_NE(body.dump().find("no trace events"), std::string::npos) << body.dump();
  }
  int status = 0;
  GetJson(*client_, "/v1/jobs/999999/profile/trace", &status);
  EXPECT_EQ(status, 404);
}

TEST_F(ProfileEndpointsTest, ASparseTraceFileIsRefusedNotRead) {
  // 100 MB that take no disk: what took dlpd to 2.3 GB when it was read whole.
  const std::string id =
      Run("sparse", "truncate -s 100M \"$DLP_TRACE_DIR/rank-$RANK.trace.json\"", 1);
  ASSERT_FALSE(id.empty());
  for (const std::string& path : {"/v1/jobs/" + id + "/traces", "/v1/jobs/" + id + "/profile",
                                  "/v1/jobs/" + id + "/profile/trace"}) {
    int status = 0;
    nlohmann::json body = GetJson(*client_, path, &status);
    EXPECT_EQ(status, 409) << path << ": " << body.dump();
    EXPECT_NE(body.dump().find("rank-0.trace.json: a sparse file"), std::string::npos)
        << body.dump();
  }
  int status = 0;
  GetJson(*client_, "/v1/health", &status);
  EXPECT_EQ(status, 200);
}

}  // namespace
}  // namespace dlp::testing
