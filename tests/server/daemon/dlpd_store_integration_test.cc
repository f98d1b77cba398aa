// A store that refuses writes (here: another connection holds SQLite's write
// lock, so dlpd's writes end in SQLITE_BUSY) fails the requests that need a
// write with 503 and changes nothing; reads keep working; what the loop saw
// meanwhile (a job that ended) is committed once the store takes writes again.
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "dlpd_fixture.h"
#include "server/store/sqlite.h"

namespace dlp::testing {
namespace {

std::string WaitFor(const std::string& file) {
  return "while [ ! -e " + file + " ]; do sleep 0.05; done";
}

TEST(DlpdStoreTest, RefusedWritesFailRequestsAndLeaveNoTrace) {
  if (!DlpRunBuilt()) GTEST_SKIP() << "dlp-run is not built";
  TempDir dir;
  const std::string state = dir.Join("state");
  Dlpd dlpd(state, {"--cpus", "2"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  const std::string ends =
      SubmitJson(*client, ShellJob("ends", WaitFor(dir.Join("go")), 1, "100")).value("id", "");
  const std::string stays =
      SubmitJson(*client, ShellJob("stays", WaitFor(dir.Join("go2")), 1, "100")).value("id", "");
  ASSERT_TRUE(Eventually([&] {
    return GetJson(*client, "/v1/jobs/" + stays).value("state", "") == "Running" &&
           GetJson(*client, "/v1/jobs/" + ends).value("state", "") == "Running";
  }));

  auto lock = server::Database::Open(state + "/dlpd.db");
  ASSERT_TRUE(lock.ok()) << lock.status();
  ASSERT_TRUE(lock->Exec("BEGIN IMMEDIATE").ok());

  // A job ends while nothing can be written.
  std::ofstream(dir.Join("go")) << "go";
  ASSERT_TRUE(Eventually([&] {
    return ReadFileOrEmpty(state + "/jobs/" + ends + "/status.json").find("\"Succeeded\"") !=
           std::string::npos;
  }));
  int status = 0;
  auto refused = SubmitJson(*client, ShellJob("refused", "true"), &status);
  EXPECT_EQ(status, 503) << refused.dump();
  EXPECT_NE(refused["error"].value("message", "").find("job store"), std::string::npos)
      << refused.dump();
  auto cancel = client->Post(("/v1/jobs/" + stays + "/cancel").c_str(), "", "application/json");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 503) << cancel->body;
  // Reads do not wait for the writer.
  auto listed = GetJson(*client, "/v1/jobs", &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(listed["jobs"].size(), 2u) << listed.dump();

  ASSERT_TRUE(lock->Exec("ROLLBACK").ok());
  EXPECT_EQ(WaitJob(*client, ends).value("state", ""), "Succeeded");
  listed = GetJson(*client, "/v1/jobs");
  ASSERT_EQ(listed["jobs"].size(), 2u) << listed.dump();  // the refused job is nowhere
  auto kept = GetJson(*client, "/v1/jobs/" + stays);
  EXPECT_EQ(kept.value("state", ""), "Running") << kept.dump();
  const nlohmann::json events = GetJson(*client, "/v1/jobs/" + stays + "/events");
  ASSERT_FALSE(events["events"].empty()) << events.dump();
  for (const auto& e : events["events"]) {
    EXPECT_NE(e.value("type", ""), "CancelRequested") << e.dump();
  }
  // The job the refused cancel named was never signalled, and can be cancelled now.
  cancel = client->Post(("/v1/jobs/" + stays + "/cancel").c_str(), "", "application/json");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 200) << cancel->body;
  EXPECT_EQ(WaitJob(*client, stays).value("state", ""), "Cancelled");
}

}  // namespace
}  // namespace dlp::testing
