// /v1/pipelines on a real dlpd: a pipeline is stored whole or not at all, its
// jobs' dependsOn name each other by id, ${jobs.NAME.outputDir} becomes the
// upstream job's output folder, and another tenant's pipeline is 404.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "dlp/pipeline.h"
#include "tenant_fixture.h"

namespace dlp::testing {
namespace {

PipelineSpec TwoJobs(const std::string& second_cpu_millis = "1000") {
  PipelineSpec spec;
  spec.name = "two";
  spec.jobs.push_back({"prep", ShellJob("two-prep", "exit 0")});
  JobSpec train = ShellJob("two-train", "echo ${jobs.prep.outputDir}", 1, second_cpu_millis);
  train.replicas[0].command = {"/bin/echo", "${jobs.prep.outputDir}/data"};
  train.depends_on.push_back({"prep", DependencyCondition::kSucceeded});
  spec.jobs.push_back({"train", train});
  return spec;
}

nlohmann::json Post(httplib::Client& client, const PipelineSpec& spec, int* status) {
  auto res = client.Post("/v1/pipelines", PipelineSpecToJson(spec), "application/json");
  if (!res) return nullptr;
  *status = res->status;
  return nlohmann::json::parse(res->body, nullptr, false);
}

class DlpdPipelinesTest : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_DLP_RUN(); }
  TempDir dir_;
};

TEST_F(DlpdPipelinesTest, JobsNameEachOtherByIdAndReadTheirOutputFolders) {
  const std::string state = dir_.Join("state");
  Dlpd dlpd(state, {"--cpus", "4"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  int status = 0;
  auto pipeline = Post(*client, TwoJobs(), &status);
  ASSERT_EQ(status, 201) << pipeline.dump();
  const std::string prep = pipeline["jobs"][0].value("job", "");
  const std::string train = pipeline["jobs"][1].value("job", "");
  EXPECT_EQ(pipeline["jobs"][1]["dependsOn"], nlohmann::json::array({"prep"}));
  auto job = GetJson(*client, "/v1/jobs/" + train);
  EXPECT_EQ(job["spec"]["dependsOn"][0].value("job", ""), prep) << job.dump();
  EXPECT_EQ(job["spec"]["replicas"][0]["command"][1],
            absl::StrCat(state, "/jobs/", prep, "/output/data"));
  EXPECT_EQ(WaitJob(*client, train).value("state", ""), "Succeeded");
  auto done = GetJson(*client, "/v1/pipelines/" + pipeline.value("id", ""));
  EXPECT_EQ(done.value("state", ""), "Succeeded") << done.dump();
  EXPECT_EQ(GetJson(*client, "/v1/pipelines")["pipelines"].size(), 1u);
}

TEST_F(DlpdPipelinesTest, APipelineIsStoredWholeOrNotAtAll) {
  Dlpd dlpd(dir_.Join("state"), {"--cpus", "4"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  int status = 0;
  // The second job can never fit: the first is not stored either.
  auto refused = Post(*client, TwoJobs("64000"), &status);
  EXPECT_EQ(status, 400) << refused.dump();
  EXPECT_NE(refused["error"].value("message", "").find("spec.jobs.train"), std::string::npos)
      << refused.dump();
  EXPECT_TRUE(GetJson(*client, "/v1/jobs")["jobs"].empty());
  EXPECT_TRUE(GetJson(*client, "/v1/pipelines")["pipelines"].empty());

  PipelineSpec cycle = TwoJobs();
  cycle.jobs[0].spec.depends_on.push_back({"train", DependencyCondition::kFinished});
  auto cyclic = Post(*client, cycle, &status);
  EXPECT_EQ(status, 400);
  EXPECT_NE(cyclic["error"].value("message", "").find("a cycle: prep -> train -> prep"),
            std::string::npos)
      << cyclic.dump();
}

TEST_F(DlpdPipelinesTest, AnotherTenantsPipelineIsNotFound) {
  TestUser user;
  const std::string why = EnsureTestUser("dlptest-a", {}, &user);
  if (!why.empty()) GTEST_SKIP() << why;
  MakeSearchableUpwards(dir_.path());
  Dlpd dlpd(dir_.Join("state"), {"--cpus", "4"});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto owner = dlpd.Client();
  auto alice = dlpd.Client(AddTenantWithToken(*owner, "alice", user.name).value("token", ""));
  int status = 0;

  auto mine = Post(*owner, TwoJobs(), &status);
  ASSERT_EQ(status, 201) << mine.dump();
  const std::string path = "/v1/pipelines/" + mine.value("id", "");
  GetJson(*alice, path, &status);
  EXPECT_EQ(status, 404);
  PostJson(*alice, path + "/cancel", nlohmann::json::object(), &status);
  EXPECT_EQ(status, 404);
  EXPECT_TRUE(GetJson(*alice, "/v1/pipelines")["pipelines"].empty());
  // Nor may alice's jobs wait for the owner's: as if the job did not exist.
  JobSpec waits = ShellJob("waits", "exit 0");
  waits.depends_on.push_back({mine["jobs"][0].value("job", ""), DependencyCondition::kFinished});
  auto refused = SubmitJson(*alice, waits, &status);
  EXPECT_EQ(status, 400) << refused.dump();
  EXPECT_NE(refused["error"].value("message", "").find("not found"), std::string::npos);
  GetJson(*owner, path, &status);
  EXPECT_EQ(status, 200);
}

}  // namespace
}  // namespace dlp::testing
