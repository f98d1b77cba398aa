// Queues on a real dlpd: the owner's /v1/admin/queues, tenants' grants, the
// submit checks (unknown queue 400, a queue the tenant may not use 403, a
// priority outside the range 400), everyone's /v1/queues with real running
// and waiting jobs, deleting a busy queue (409), and `--config FILE`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "tenant_fixture.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

JobSpec InQueue(JobSpec spec, const std::string& queue, int priority = 0) {
  spec.queue = queue;
  spec.priority = priority;
  return spec;
}

nlohmann::json QueueNamed(const nlohmann::json& queues, const std::string& name) {
  for (const auto& q : queues) {
    if (q.value("name", "") == name) return q;
  }
  return nullptr;
}

class DlpdQueuesTest : public TenantDlpdTest {
 protected:
  void CreateQueue(const nlohmann::json& queue) {
    int status = 0;
    auto body = PostJson(*owner_, "/v1/admin/queues", queue, &status);
    ASSERT_EQ(status, 201) << body.dump();
  }

  // A tenant allowed into `queues`, and a client with its token.
  std::unique_ptr<httplib::Client> Tenant(const std::string& name,
                                          const std::vector<std::string>& queues) {
    return dlpd_->Client(AddTenant(name, {{"queues", queues}}).value("token", ""));
  }

  std::string StateOf(const std::string& id) {
    return GetJson(*owner_, "/v1/jobs/" + id).value("state", "");
  }

};

TEST_F(DlpdQueuesTest, TheOwnerCreatesUpdatesListsAndDeletesQueues) {
  Start();
  CreateQueue({{"name", "vision"},
               {"cohort", "lab"},
               {"nominal", {{"cpu", 8}, {"memory", "64Gi"}, {"gpu", 4}, {"gpu.h100", 2}}},
               {"borrowingLimit", {{"gpu", 2}}},
               {"weight", 2},
               {"priorityRange", {-100, 1000}}});
  int status = 0;
  auto again = PostJson(*owner_, "/v1/admin/queues", {{"name", "vision"}}, &status);
  EXPECT_EQ(status, 409);
  EXPECT_EQ(again["error"].value("code", ""), "ALREADY_EXISTS");
  auto bad = PostJson(*owner_, "/v1/admin/queues", {{"name", "x"}, {"nominal", {{"cpu", "lots"}}}},
                      &status);
  EXPECT_EQ(status, 400);
  EXPECT_THAT(bad["error"].value("message", ""), HasSubstr("nominal.cpu: \"lots\""));

  auto listed = GetJson(*owner_, "/v1/admin/queues");
  ASSERT_EQ(listed["queues"].size(), 1u) << listed.dump();
  const auto& vision = listed["queues"][0];
  EXPECT_EQ(vision["nominal"],
            nlohmann::json({{"cpu", "8"}, {"memory", "64Gi"}, {"gpu", 4}, {"gpu.h100", 2}}));
  EXPECT_EQ(vision["borrowingLimit"]["gpu"], 2);
  EXPECT_TRUE(vision["lendingLimit"].is_null());
  EXPECT_EQ(vision["priorityRange"], nlohmann::json({-100, 1000}));

  auto updated = PostJson(*owner_, "/v1/admin/queues/vision",
                          {{"cohort", "lab"}, {"nominal", {{"cpu", 4}}}, {"weight", 3}}, &status);
  EXPECT_EQ(status, 200) << updated.dump();
  EXPECT_EQ(updated["weight"], 3);
  EXPECT_EQ(GetJson(*owner_, "/v1/admin/queues")["queues"][0]["nominal"]["cpu"], "4");
  PostJson(*owner_, "/v1/admin/queues/nlp", {{"weight", 1}}, &status);
  EXPECT_EQ(status, 404);

  DeleteJson(*owner_, "/v1/admin/queues/vision", &status);
  EXPECT_EQ(status, 200);
  DeleteJson(*owner_, "/v1/admin/queues/vision", &status);
  EXPECT_EQ(status, 404);
  EXPECT_TRUE(GetJson(*owner_, "/v1/admin/queues")["queues"].empty());
}

TEST_F(DlpdQueuesTest, TenantsMayNotAdministerQueuesButSeeThem) {
  Start();
  CreateQueue({{"name", "vision"}, {"nominal", {{"cpu", 2}}}});
  auto alice = Tenant("alice", {"vision"});
  struct Call {
    std::string method, path;
  };
  for (const Call& call : std::vector<Call>{{"GET", "/v1/admin/queues"},
                                            {"POST", "/v1/admin/queues"},
                                            {"POST", "/v1/admin/queues/vision"},
                                            {"DELETE", "/v1/admin/queues/vision"},
                                            {"POST", "/v1/admin/tenants/alice"}}) {
    int status = 0;
    nlohmann::json body;
    if (call.method == "GET") body = GetJson(*alice, call.path, &status);
    if (call.method == "POST") {
      body = PostJson(*alice, call.path, {{"name", "vision"}, {"queues", {"vision"}}}, &status);
    }
    if (call.method == "DELETE") body = DeleteJson(*alice, call.path, &status);
    EXPECT_EQ(status, 403) << call.method << " " << call.path;
    EXPECT_EQ(body["error"].value("code", ""), "PERMISSION_DENIED");
  }
  int status = 0;
  auto queues = GetJson(*alice, "/v1/queues", &status);
  EXPECT_EQ(status, 200);
  ASSERT_TRUE(queues.is_array()) << queues.dump();
  EXPECT_EQ(queues.size(), 1u);
  EXPECT_EQ(GetJson(*alice, "/v1/queues/vision", &status).value("name", ""), "vision");
  GetJson(*alice, "/v1/queues/audio", &status);
  EXPECT_EQ(status, 404);
  EXPECT_EQ(GetJson(*owner_, "/v1/admin/queues")["queues"][0]["nominal"]["cpu"], "2");
}

TEST_F(DlpdQueuesTest, SubmitChecksTheQueueTheTenantAndThePriority) {
  Start();
  CreateQueue({{"name", "vision"}, {"nominal", {{"cpu", 2}}}, {"priorityRange", {-100, 100}}});
  CreateQueue({{"name", "nlp"}, {"nominal", {{"cpu", 2}}}});
  auto alice = Tenant("alice", {"vision"});
  int status = 0;
  auto unknown = SubmitJson(*alice, InQueue(ShellJob("a", "exit 0"), "audio"), &status);
  EXPECT_EQ(status, 400);
  EXPECT_THAT(unknown["error"].value("message", ""),
              HasSubstr("no queue \"audio\"; this dlpd's queues are nlp, vision"));
  // Without spec.queue a job is in "default", which is not configured here.
  SubmitJson(*alice, ShellJob("a", "exit 0"), &status);
  EXPECT_EQ(status, 400);
  auto denied = SubmitJson(*alice, InQueue(ShellJob("a", "exit 0"), "nlp"), &status);
  EXPECT_EQ(status, 403);
  EXPECT_EQ(denied["error"].value("code", ""), "PERMISSION_DENIED");
  EXPECT_THAT(denied["error"].value("message", ""),
              HasSubstr("tenant \"alice\" may not use queue \"nlp\" (it may use only vision)"));
  auto high = SubmitJson(*alice, InQueue(ShellJob("a", "exit 0"), "vision", 1000), &status);
  EXPECT_EQ(status, 400);
  EXPECT_THAT(high["error"].value("message", ""), HasSubstr("outside queue vision's priority"));
  auto ok = SubmitJson(*alice, InQueue(ShellJob("a", "exit 0"), "vision", 100), &status);
  EXPECT_EQ(status, 201) << ok.dump();
  // The owner may use any queue.
  SubmitJson(*owner_, InQueue(ShellJob("o", "exit 0"), "nlp"), &status);
  EXPECT_EQ(status, 201);

  // A grant takes effect at once, without a restart.
  auto granted =
      PostJson(*owner_, "/v1/admin/tenants/alice", {{"queues", {"vision", "nlp"}}}, &status);
  EXPECT_EQ(status, 200) << granted.dump();
  EXPECT_EQ(granted["queues"], nlohmann::json({"nlp", "vision"}));
  auto now_ok = SubmitJson(*alice, InQueue(ShellJob("a", "exit 0"), "nlp"), &status);
  EXPECT_EQ(status, 201) << now_ok.dump();
  EXPECT_EQ(GetJson(*owner_, "/v1/admin/tenants")["tenants"][0]["queues"],
            nlohmann::json({"nlp", "vision"}));
  PostJson(*owner_, "/v1/admin/tenants/alice", {{"queues", {"audio"}}}, &status);
  EXPECT_EQ(status, 404);
  PostJson(*owner_, "/v1/admin/tenants",
           {{"name", "bob"}, {"unixUser", user_.name}, {"queues", {"audio"}}}, &status);
  EXPECT_EQ(status, 404);
  EXPECT_EQ(GetJson(*owner_, "/v1/admin/tenants")["tenants"].size(), 1u) << "bob not created";
  WaitJob(*owner_, now_ok.value("id", ""));
}

TEST_F(DlpdQueuesTest, StandingCountsRealRunningAndWaitingJobsAndABusyQueueStays) {
  REQUIRE_DLP_RUN();
  Start({"--cpus", "2"});
  CreateQueue({{"name", "vision"}, {"cohort", "lab"}, {"nominal", {{"cpu", 2}}}});
  const std::string go = dir_.Join("go");
  auto running = SubmitJson(
      *owner_,
      InQueue(ShellJob("holds", "while [ ! -e " + go + " ]; do sleep 0.05; done", 1, "2000"),
              "vision"));
  const std::string first = running.value("id", "");
  ASSERT_TRUE(Eventually([&] { return StateOf(first) == "Running"; })) << StateOf(first);
  auto waiting = SubmitJson(*owner_, InQueue(ShellJob("waits", "exit 0", 1, "2000"), "vision"));
  const std::string second = waiting.value("id", "");
  ASSERT_EQ(StateOf(second), "Queued");

  auto queues = GetJson(*owner_, "/v1/queues");
  ASSERT_TRUE(queues.is_array()) << queues.dump();
  auto vision = QueueNamed(queues, "vision");
  ASSERT_TRUE(vision.is_object()) << queues.dump();
  for (const char* key :
       {"name", "cohort", "nominal", "used", "borrowed", "lent", "pending", "share"}) {
    EXPECT_TRUE(vision.contains(key)) << key;
  }
  EXPECT_EQ(vision["cohort"], "lab");
  EXPECT_EQ(vision["nominal"]["cpu"], "2");
  EXPECT_EQ(vision["used"]["cpu"], "2");
  EXPECT_EQ(vision["borrowed"]["cpu"], "0");
  EXPECT_EQ(vision["pending"], 1);
  EXPECT_EQ(vision["running"], 1);
  EXPECT_TRUE(vision["share"].is_number());

  int status = 0;
  auto refused = DeleteJson(*owner_, "/v1/admin/queues/vision", &status);
  EXPECT_EQ(status, 409);
  EXPECT_THAT(refused["error"].value("message", ""), HasSubstr("has 2 active jobs"));

  std::ofstream(go) << "go";
  EXPECT_EQ(WaitJob(*owner_, first).value("state", ""), "Succeeded");
  EXPECT_EQ(WaitJob(*owner_, second).value("state", ""), "Succeeded");
  vision = QueueNamed(GetJson(*owner_, "/v1/queues"), "vision");
  EXPECT_EQ(vision["pending"], 0);
  EXPECT_EQ(vision["used"]["cpu"], "0");
  DeleteJson(*owner_, "/v1/admin/queues/vision", &status);
  EXPECT_EQ(status, 200);
}

TEST_F(DlpdQueuesTest, TheConfigFileIsAppliedAtEveryStartAndWinsForItsQueues) {
  const std::string config = dir_.WriteFile("dlpd.yaml", R"(queues:
- name: vision
  cohort: lab
  nominal: {cpu: 8, memory: 64Gi, gpu: 4}
  borrowingLimit: {gpu: 2}
  weight: 2
  priorityRange: [-100, 1000]
- name: nlp
  cohort: lab
  nominal: {cpu: 8, memory: 64Gi, gpu: 4}
)");
  Start({"--config", config});
  auto queues = GetJson(*owner_, "/v1/admin/queues")["queues"];
  ASSERT_EQ(queues.size(), 2u) << queues.dump();
  EXPECT_EQ(queues[1]["name"], "vision");
  EXPECT_EQ(queues[1]["weight"], 2);
  EXPECT_EQ(queues[1]["borrowingLimit"]["gpu"], 2);
  // Changed over the API: the file wins again at the next start; a queue it
  // does not name stays.
  int status = 0;
  PostJson(*owner_, "/v1/admin/queues/vision", {{"weight", 7}}, &status);
  ASSERT_EQ(status, 200);
  CreateQueue({{"name", "audio"}, {"nominal", {{"cpu", 1}}}});
  Stop();
  Start({"--config", config});
  queues = GetJson(*owner_, "/v1/admin/queues")["queues"];
  ASSERT_EQ(queues.size(), 3u) << queues.dump();
  EXPECT_EQ(QueueNamed(queues, "vision")["weight"], 2);
  EXPECT_EQ(QueueNamed(queues, "audio")["nominal"]["cpu"], "1");
  EXPECT_THAT(ReadFileOrEmpty(dir_.Join("state/dlpd.log")),
              HasSubstr("2 queues (0 created, 1 updated, 1 unchanged)"));
}

TEST_F(DlpdQueuesTest, ABadConfigFileStopsTheStartNamingLineAndField) {
  const std::string config =
      dir_.WriteFile("dlpd.yaml", "queues:\n- name: vision\n  nominal: {cpu: lots}\n");
  Background dlpd({BinPath("dlpd"), "--state-dir", dir_.Join("state"), "--config", config});
  RunResult r = dlpd.Wait(absl::Seconds(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(config + ":3:18: queues[0].nominal: cpu: \"lots\" is not a CPU "
                                        "quantity"));
}

}  // namespace
}  // namespace dlp::testing
