// Bounded inputs through a real dlpd (docs/limits.md): specs whose totals
// would overflow, NUL and invalid UTF-8 are refused with 400 and never
// stored, as are unknown fields; dlpd stays healthy and restarts; a row whose stored spec cannot be
// read back is quarantined, and dlpd still starts and lists for everyone.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "dlpd_fixture.h"
#include "server/store/job_store.h"
#include "server/store/sqlite.h"

namespace dlp::testing {
namespace {

// The two requests that broke dlpd for good: JSON as a client would send it.
std::string OverflowingMemory() {
  return R"({"name":"mem","replicas":[{"role":"worker","count":2,"command":["true"],)"
         R"("resources":{"cpu":"1","memory":4611686018427387905}}],"workdir":"/tmp"})";
}
std::string OverflowingCpu() {
  return R"({"name":"cpu","replicas":[{"role":"worker","count":3,"command":["true"],)"
         R"("resources":{"cpu":"4611686018427387904m"}}],"workdir":"/tmp"})";
}

struct Reply {
  int status = 0;
  nlohmann::json body;
};

Reply Post(httplib::Client& client, const std::string& body) {
  auto res = client.Post("/v1/jobs", body, "application/json");
  if (!res) return {};
  return {res->status, nlohmann::json::parse(res->body, nullptr, false)};
}

std::string Message(const Reply& r) {
  return r.body.is_object() ? r.body["error"].value("message", "") : "";
}

void ExpectHealthyAndListing(const Dlpd& dlpd, size_t jobs) {
  int status = 0;
  GetJson(*dlpd.Client(), "/v1/health", &status);
  EXPECT_EQ(status, 200);
  auto list = GetJson(*dlpd.Client(), "/v1/jobs", &status);
  EXPECT_EQ(status, 200) << list.dump();
  EXPECT_EQ(list["jobs"].size(), jobs) << list.dump();
}

TEST(DlpdBoundsTest, OverflowingSpecsAreRefusedAndDlpdStaysHealthy) {
  TempDir dir;
  const std::string state = dir.Join("state");
  {
    Dlpd dlpd(state, {"--cpus", "1"});
    ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
    auto client = dlpd.Client();
    Reply memory = Post(*client, OverflowingMemory());
    EXPECT_EQ(memory.status, 400) << memory.body.dump();
    // The one quantity grammar of YAML files and JSON bodies refuses it by size.
    EXPECT_NE(Message(memory).find("replicas[0].resources.memory: \"4611686018427387905\" is "
                                   "not a memory quantity"),
              std::string::npos)
        << memory.body.dump();
    EXPECT_NE(Message(memory).find("it is too large"), std::string::npos)
        << memory.body.dump();
    Reply cpu = Post(*client, OverflowingCpu());
    EXPECT_EQ(cpu.status, 400) << cpu.body.dump();
    EXPECT_NE(Message(cpu).find("resources.cpu: must be at most 4096 CPUs per replica"),
              std::string::npos)
        << cpu.body.dump();

    // NUL and invalid UTF-8 in the body: refused with their position, not changed.
    Reply nul = Post(*client, R"({"name":"nul","replicas":[{"role":"worker","command":)"
                              R"(["sh","a\u0000b"]}],"workdir":"/tmp"})");
    EXPECT_EQ(nul.status, 400);
    EXPECT_NE(Message(nul).find("line 1, column 62: a NUL (\\u0000) in a string"),
              std::string::npos)
        << nul.body.dump();
    Reply utf8 = Post(*client, "{\"name\":\"caf\xc3\xa9\xff\"}");
    EXPECT_EQ(utf8.status, 400);
    EXPECT_NE(Message(utf8).find("ill-formed UTF-8"), std::string::npos) << utf8.body.dump();

    // A misspelt field is refused with its path, as in YAML, not dropped: the
    // replica would otherwise run without the memory limit it meant to ask for.
    Reply misspelt = Post(*client, R"({"name":"typo","replicas":[{"role":"worker",)"
                                   R"("command":["true"],"resources":{"memroy":"1Gi"}}]})");
    EXPECT_EQ(misspelt.status, 400) << misspelt.body.dump();
    EXPECT_NE(Message(misspelt).find(
                  "replicas[0].resources.memroy: unknown field; did you mean 'memory'?"),
              std::string::npos)
        << misspelt.body.dump();

    ExpectHealthyAndListing(dlpd, 0);
    // A sane job still goes in.
    int status = 0;
    SubmitJson(*client, ShellJob("fine", "exit 0", 1, "100"), &status);
    EXPECT_EQ(status, 201);
    dlpd.process().Signal(SIGTERM);
    EXPECT_EQ(dlpd.process().Wait(absl::Seconds(30)).exit_code, 0);
  }
  Dlpd again(state, {"--cpus", "1"});
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  ExpectHealthyAndListing(again, 1);
}

TEST(DlpdBoundsTest, RowThatCannotBeReadBackIsQuarantined) {
  TempDir dir;
  const std::string state = dir.Join("state");
  {  // a first start creates the state folder and the store
    Dlpd dlpd(state);
    ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
    dlpd.process().Signal(SIGTERM);
    ASSERT_EQ(dlpd.process().Wait(absl::Seconds(30)).exit_code, 0);
  }
  {  // a Queued row as a dlpd without bounds stored it
    auto store = server::JobStore::Open(state + "/dlpd.db");
    ASSERT_TRUE(store.ok()) << store.status();
    server::JobRecord record;
    record.job.name = "broken";
    record.job.tenant = "default";
    record.job.queue = "default";
    record.job.spec = ShellJob("broken", "exit 0");
    record.job.reason = "waiting to be scheduled";
    ASSERT_TRUE(store->Insert(record).ok());
    auto db = server::Database::Open(state + "/dlpd.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("UPDATE jobs SET spec = '{\"name\":\"broken\",\"replicas\":[{\"role\":"
                         "\"worker\",\"count\":2,\"command\":[\"true\"],\"resources\":"
                         "{\"memory\":\"4611686018427387905\"}}]}' WHERE id = 1")
                    .ok());
  }
  Dlpd dlpd(state);
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  ExpectHealthyAndListing(dlpd, 1);
  auto job = GetJson(*dlpd.Client(), "/v1/jobs/1");
  EXPECT_EQ(job.value("state", ""), "Failed") << job.dump();
  const std::string reason = job.value("reason", "");
  EXPECT_EQ(reason.rfind("quarantined: the stored spec cannot be read back: ", 0), 0u) << reason;
  EXPECT_NE(reason.find("4611686018427387905"), std::string::npos) << reason;
  auto events = GetJson(*dlpd.Client(), "/v1/jobs/1/events");
  bool quarantined = false;
  for (const auto& e : events["events"]) quarantined |= e.value("type", "") == "Quarantined";
  EXPECT_TRUE(quarantined) << events.dump();
  EXPECT_NE(ReadFileOrEmpty(state + "/dlpd.log").find("job 1: quarantined"), std::string::npos)
      << ReadFileOrEmpty(state + "/dlpd.log");
  // It stays quarantined (and dlpd starts) on the next start too.
  dlpd.process().Signal(SIGTERM);
  ASSERT_EQ(dlpd.process().Wait(absl::Seconds(30)).exit_code, 0);
  Dlpd again(state);
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  EXPECT_EQ(GetJson(*again.Client(), "/v1/jobs/1").value("state", ""), "Failed");
}

// A Running job whose row breaks while dlpd is down is stopped at the next
// start, never adopted: its spec can no longer be trusted.
TEST(DlpdBoundsTest, RunningJobWithABrokenRowIsStoppedAndFails) {
  if (access(BinPath("dlp-run").c_str(), X_OK) != 0) GTEST_SKIP() << "dlp-run is not built";
  TempDir dir;
  const std::string state = dir.Join("state");
  std::string id;
  {
    Dlpd dlpd(state);
    ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
    id = SubmitJson(*dlpd.Client(), ShellJob("long", "echo up; exec sleep 300", 1, "100"))
             .value("id", "");
    ASSERT_TRUE(Eventually([&] {
      return ReadFileOrEmpty(state + "/jobs/" + id + "/logs/worker-0.log").find("up") !=
             std::string::npos;
    }));
    dlpd.process().Signal(SIGKILL);
    dlpd.process().Wait(absl::Seconds(10));
  }
  {
    auto db = server::Database::Open(state + "/dlpd.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("UPDATE jobs SET spec = 'not json' WHERE id = " + id).ok());
  }
  Dlpd again(state, {"--grace-period", "1"});
  ASSERT_TRUE(again.WaitReady()) << again.process().OutputSoFar();
  auto done = WaitJob(*again.Client(), id);
  EXPECT_EQ(done.value("state", ""), "Failed") << done.dump();
  EXPECT_EQ(done.value("reason", "")
                .rfind("quarantined: the stored spec cannot be read back: "
                       "invalid JSON for a job spec",
                       0),
            0u)
      << done.dump();
  ExpectHealthyAndListing(again, 1);
}

}  // namespace
}  // namespace dlp::testing
