// The API client and the watch loop against the in-process fake API server:
// CRUD, the error answers as statuses and exit codes, streams cut mid-way,
// and 410 Gone.
#include "backends/kubernetes/api_client.h"

#include <atomic>
#include <thread>

#include "backends/kubernetes/watch.h"
#include "dlp/exit_code.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libdlp/backends/kubernetes/fake_apiserver.h"
#include "support/subprocess.h"

namespace dlp::internal::k8s {
namespace {

using ::dlp::testing::Eventually;
using ::dlp::testing::FakeApiServer;
using nlohmann::json;
using ::testing::HasSubstr;

const ResourceType kJobSets{"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet"};
constexpr char kJobSetsName[] = "jobset.x-k8s.io/v1alpha2/jobsets";

json ConfigMap(const std::string& name, const std::string& job_id) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", name},
            {"labels", {{"app.kubernetes.io/managed-by", "dlp"}, {"dlp.dev/job-id", job_id}}}}},
          {"data", {{"k", "v"}}}};
}

class ApiClientTest : public ::testing::Test {
 protected:
  ApiClient Client() const {
    ClusterAccess access;
    access.server = fake_.url();
    access.token = "t0k";
    return ApiClient(access);
  }
  FakeApiServer fake_;
};

TEST_F(ApiClientTest, CreateGetListPatchDelete) {
  ApiClient api = Client();
  absl::StatusOr<json> made = api.Create(kConfigMaps, "ml", ConfigMap("a", "j1"));
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_FALSE((*made)["metadata"].value("resourceVersion", "").empty());
  ASSERT_TRUE(api.Create(kConfigMaps, "ml", ConfigMap("b", "j2")).ok());

  absl::StatusOr<json> list = api.List(kConfigMaps, "ml", JobSelector("j2"));
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ((*list)["items"].size(), 1u);
  EXPECT_EQ((*list)["items"][0]["metadata"]["name"], "b");
  EXPECT_EQ((*api.List(kConfigMaps, "ml", JobSelector()))["items"].size(), 2u);
  EXPECT_EQ((*api.List(kConfigMaps, "other", ""))["items"].size(), 0u);

  absl::StatusOr<json> patched =
      api.MergePatch(kConfigMaps, "ml", "a", {{"metadata", {{"annotations", {{"x", "y"}}}}}});
  ASSERT_TRUE(patched.ok()) << patched.status();
  EXPECT_EQ((*api.Get(kConfigMaps, "ml", "a"))["metadata"]["annotations"]["x"], "y");
  EXPECT_EQ((*api.Get(kConfigMaps, "ml", "a"))["data"]["k"], "v");  // a merge keeps the rest

  ASSERT_TRUE(api.Delete(kConfigMaps, "ml", "a").ok());
  EXPECT_EQ(api.Get(kConfigMaps, "ml", "a").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(
      fake_.CountRequests("DELETE /api/v1/namespaces/ml/configmaps/a?propagationPolicy=Foreground"),
      1);
}

TEST_F(ApiClientTest, ErrorAnswersMapToExitCodes) {
  ApiClient api = Client();
  ASSERT_TRUE(api.Create(kConfigMaps, "ml", ConfigMap("a", "j1")).ok());

  absl::Status exists = api.Create(kConfigMaps, "ml", ConfigMap("a", "j1")).status();
  EXPECT_EQ(exists.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(exists.message(), HasSubstr("ConfigMap a in namespace ml already exists"));

  absl::Status missing = api.Get(kJobSets, "ml", "nope").status();
  EXPECT_EQ(ExitCodeForStatus(missing), ExitCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("JobSet nope in namespace ml not found"));

  fake_.Forbid("create", "jobsets");
  json jobset = {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                 {"kind", "JobSet"},
                 {"metadata", {{"name", "j"}}}};
  absl::Status forbidden = api.Create(kJobSets, "ml", jobset).status();
  EXPECT_EQ(ExitCodeForStatus(forbidden), ExitCode::kBackend);
  EXPECT_THAT(forbidden.message(),
              HasSubstr("may not create jobsets.jobset.x-k8s.io in namespace ml"));
  EXPECT_THAT(forbidden.message(), HasSubstr("cannot create resource \"jobsets\""));

  ClusterAccess nowhere;
  nowhere.server = "http://127.0.0.1:1";
  absl::Status refused = ApiClient(nowhere).Get(kPods, "ml", "p").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refused.message(), HasSubstr("cannot reach the Kubernetes API server"));
}

// The watch resumes from the last version it saw after the stream is cut, and
// lists again when that version has been compacted (410 Gone).
TEST_F(ApiClientTest, WatchResumesAfterADropAndRelistsOnGone) {
  ApiClient api = Client();
  ASSERT_TRUE(api.Create(kConfigMaps, "ml", ConfigMap("watched", "j1")).ok());
  std::atomic<int> seen{0};
  std::atomic<bool> done{false};
  absl::Status result;
  std::thread watcher([&] {
    WatchOptions options;
    options.name_space = "ml";
    options.label_selector = "dlp.dev/job-id=j1";
    options.deadline = absl::Now() + absl::Seconds(60);
    result = WatchUntil(api, kConfigMaps, options, [&] {
      absl::StatusOr<json> now = api.Get(kConfigMaps, "ml", "watched");
      ++seen;
      return now.ok() && (*now)["data"].value("step", "") == "3";
    });
    done = true;
  });
  auto step = [&](const std::string& value) {
    fake_.Update("/v1/configmaps", "ml", "watched", [&](json& o) { o["data"]["step"] = value; });
  };
  ASSERT_TRUE(
      Eventually([&] { return fake_.CountRequests("configmaps?allowWatchBookmarks") >= 1; }));
  step("1");
  ASSERT_TRUE(Eventually([&] { return seen >= 2; }));
  fake_.DropStreams();
  ASSERT_TRUE(
      Eventually([&] { return fake_.CountRequests("configmaps?allowWatchBookmarks") >= 2; }));
  // Compacted while no watch was open would be the same: the next watch from
  // an old version is answered 410 and the loop lists again.
  fake_.Compact();
  fake_.DropStreams();
  step("2");
  step("3");
  watcher.join();
  EXPECT_TRUE(done);
  EXPECT_TRUE(result.ok()) << result;
  EXPECT_GE(fake_.CountRequests("GET /api/v1/namespaces/ml/configmaps?labelSelector="), 2);
}

TEST_F(ApiClientTest, WatchEndsAtItsDeadlineAndReturnsErrorsThatAreNotDrops) {
  ApiClient api = Client();
  WatchOptions options;
  options.name_space = "ml";
  options.deadline = absl::Now() + absl::Seconds(1);
  EXPECT_EQ(WatchUntil(api, kConfigMaps, options, [] { return false; }).code(),
            absl::StatusCode::kDeadlineExceeded);
  fake_.Forbid("list", "pods");
  options.deadline = absl::Now() + absl::Seconds(30);
  absl::Status denied = WatchUntil(api, kPods, options, [] { return false; });
  EXPECT_THAT(denied.message(), HasSubstr("may not list pods"));
}

}  // namespace
}  // namespace dlp::internal::k8s
