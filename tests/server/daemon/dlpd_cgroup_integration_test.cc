// dlpd enforcing a job's requests with a cgroup: a job over its memory limit
// is OOM-killed and says so, and its cgroup is gone once the job ended.
// Skips where dlpd finds no writable cgroup (not root, no memory controller).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {

// The cgroup folders of a job, from its "Limits" event.
std::vector<std::string> CgroupFolders(const nlohmann::json& events) {
  for (const auto& e : events["events"]) {
    if (e.value("type", "") != "Limits") continue;
    const std::string text = e.value("message", "");  // kept: the view below reads it
    absl::string_view message = text;
    const size_t at = message.find("(cgroup ");
    if (at == absl::string_view::npos) return {};
    message.remove_prefix(at + 8);
    absl::ConsumeSuffix(&message, ")");
    return absl::StrSplit(message, ", ");
  }
  return {};
}

// A dlpd that enforces limits with cgroups; its tests skip where it cannot.
class DlpdCgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dlpd_ = std::make_unique<Dlpd>(dir_.Join("state"));
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    const std::string log = ReadFileOrEmpty(dir_.Join("state/dlpd.log"));
    if (log.find("job limits are not enforced") != std::string::npos) {
      GTEST_SKIP() << "no writable cgroup: " << log;
    }
    client_ = dlpd_->Client();
  }

  // Runs `script` as a one-replica job of 64 MiB and returns it once it ended.
  nlohmann::json RunIn64Mi(const std::string& name, const std::string& script) {
    JobSpec spec = ShellJob(name, script);
    spec.replicas[0].resources.memory_bytes = 64 << 20;
    const std::string id = SubmitJson(*client_, spec).value("id", "");
    EXPECT_FALSE(id.empty());
    return WaitJob(*client_, id);
  }

  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
  std::unique_ptr<httplib::Client> client_;
};

// Perl (essential in Debian) writes every byte of a 256 MiB string.
constexpr char kHog[] = "exec perl -e '$x = \"a\" x (256 << 20); print length $x'";

TEST_F(DlpdCgroupTest, JobOverItsMemoryIsOomKilledAndItsCgroupRemoved) {
  auto job = RunIn64Mi("hog", kHog);
  const std::string id = job.value("id", "");
  EXPECT_EQ(job.value("state", ""), "Failed") << job.dump();
  EXPECT_NE(job.value("reason", "").find("OOMKilled"), std::string::npos) << job.dump();
  ASSERT_EQ(job["replicas"].size(), 1u);
  EXPECT_EQ(job["replicas"][0].value("reason", ""), "OOMKilled") << job.dump();

  const std::vector<std::string> folders =
      CgroupFolders(GetJson(*client_, "/v1/jobs/" + id + "/events"));
  ASSERT_FALSE(folders.empty());
  for (const std::string& folder : folders) {
    EXPECT_NE(folder.find("/job-" + id), std::string::npos) << folder;
    EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(folder); })) << folder;
  }
}

// The OOM killer may pick dlp-run rather than a replica: the replica makes
// dlp-run the first choice, and the job's reason still says OOMKilled.
TEST_F(DlpdCgroupTest, RunnerPickedByTheOomKillerIsReportedAsOomKilled) {
  auto job = RunIn64Mi("hog", std::string("echo 1000 > /proc/$PPID/oom_score_adj && ") + kHog);
  EXPECT_EQ(job.value("state", ""), "Failed") << job.dump();
  EXPECT_EQ(job.value("reason", "").rfind("OOMKilled: ", 0), 0u) << job.dump();
}

TEST_F(DlpdCgroupTest, JobWithinItsLimitsRunsInItsCgroup) {
  auto job = RunIn64Mi("fits", "cat /proc/self/cgroup");
  const std::string id = job.value("id", "");
  ASSERT_EQ(job.value("state", ""), "Succeeded");
  const std::string log = ReadFileOrEmpty(dir_.Join("state/jobs/" + id + "/logs/worker-0.log"));
  EXPECT_NE(log.find("/job-" + id), std::string::npos) << log;
  auto events = GetJson(*client_, "/v1/jobs/" + id + "/events");
  EXPECT_NE(events.dump().find("memory 64Mi"), std::string::npos) << events.dump();
  for (const std::string& folder : CgroupFolders(events)) {
    EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(folder); })) << folder;
  }
}

}  // namespace
}  // namespace dlp::testing
