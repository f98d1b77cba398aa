// dlpd --retain-days: an ended job's files go after the age, its record and
// events stay and say so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>

#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {

TEST(DlpdRetention, PrunesTheFilesOfJobsThatEndedLongEnoughAgo) {
  TempDir dir;
  // 0.00001 days: under a second.
  Dlpd dlpd(dir.Join("state"),
            std::vector<std::string>{"--retain-days", "0.00001", "--disk-check-interval", "0.2"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  const nlohmann::json job =
      WaitJob(*client, SubmitJson(*client, ShellJob("old", "echo logged")).value("id", ""));
  ASSERT_EQ(job.value("state", ""), "Succeeded") << job.dump();
  const std::string id = job.value("id", "");
  const std::string folder = dir.Join("state/jobs/" + id);
  // The event follows the removal.
  EXPECT_TRUE(Eventually([&] {
    const nlohmann::json events = GetJson(*client, "/v1/jobs/" + id + "/events");
    for (const auto& e : events["events"]) {
      if (e.value("type", "") == "FilesPruned") return true;
    }
    return false;
  })) << "no FilesPruned event: " << ReadFileOrEmpty(dir.Join("state/dlpd.log"));
  EXPECT_NE(access(folder.c_str(), F_OK), 0) << folder << " is still there";
  EXPECT_EQ(GetJson(*client, "/v1/jobs/" + id).value("state", ""), "Succeeded");
}

}  // namespace
}  // namespace dlp::testing
