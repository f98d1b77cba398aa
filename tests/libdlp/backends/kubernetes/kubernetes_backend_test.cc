// The Kubernetes backend in-process against the fake API server: the objects
// Submit creates, status through a job's life, logs of pods that start late
// and streams that drop, Wait across a dropped watch, Cancel, Events, List,
// and a pipeline step's submit repeated after it was killed half-way.
// The test plays the cluster's controllers through the fake's script verbs.
#include "backends/kubernetes/kubernetes_backend.h"

#include <mutex>
#include <thread>

#include "dlp/codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libdlp/backends/kubernetes/fake_apiserver.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::internal::k8s {
namespace {

using ::dlp::testing::Eventually;
using ::dlp::testing::FakeApiServer;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::UnorderedElementsAre;

constexpr char kJobSets[] = "jobset.x-k8s.io/v1alpha2/jobsets";

JobSpec TwoWorkers() {
  JobSpec spec;
  spec.name = "Train MNIST";
  spec.labels = {{"team", "vision"}};
  ReplicaSpec worker;
  worker.role = "worker";
  worker.count = 2;
  worker.command = {"python", "train.py"};
  spec.replicas = {worker};
  return spec;
}

class KubernetesBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KubernetesOptions options;
    options.kubeconfig = dir_.WriteFile("kubeconfig", fake_.Kubeconfig("ml"));
    options.render.image = "dlp:test";
    backend_ = std::make_unique<KubernetesBackend>(options);
  }

  std::string Pod(const std::string& id, int index) {
    return FakeApiServer::PodName(id, "worker", index);
  }

  dlp::testing::TempDir dir_;
  FakeApiServer fake_;
  std::unique_ptr<KubernetesBackend> backend_;
};

// A pipeline's step repeated after a killed one: what exists is taken as
// created, what is missing is created, and a job cancelled since stays so.
TEST_F(KubernetesBackendTest, SubmitAsAgainCompletesWhatAStepLeftAndKeepsACancel) {
  const std::map<std::string, std::string> labels = {{"dlp.dev/pipeline-id", "p1"}};
  // Killed before the workload: the record and the Service exist.
  RenderOptions render;
  render.name_space = "ml";
  render.image = "dlp:test";
  render.job_id = "k1";
  absl::StatusOr<std::vector<json>> objects = RenderManifests(TwoWorkers(), render);
  ASSERT_TRUE(objects.ok()) << objects.status();
  (*objects)[0]["metadata"]["annotations"] = {{"dlp.dev/spec", JobSpecToJson(TwoWorkers())}};
  fake_.Put("/v1/configmaps", "ml", (*objects)[0]);
  fake_.Put("/v1/services", "ml", (*objects)[1]);
  absl::StatusOr<Job> again = backend_->SubmitAs(TwoWorkers(), "k1", labels);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->id, "k1");
  EXPECT_EQ(fake_.All("/v1/configmaps").size(), 1u);
  EXPECT_EQ(fake_.All("/v1/services").size(), 1u);
  ASSERT_TRUE(fake_.FindJob(kJobSets, "k1").has_value());
  EXPECT_EQ((*fake_.FindJob(kJobSets, "k1"))["metadata"]["labels"]["dlp.dev/pipeline-id"], "p1");
  // Whole: nothing more is created.
  ASSERT_TRUE(backend_->SubmitAs(TwoWorkers(), "k1", labels).ok());
  EXPECT_EQ(fake_.All(kJobSets).size(), 1u);
  // Cancelled since: the workload is not made again.
  ASSERT_TRUE(backend_->Cancel("k1").ok());
  absl::StatusOr<Job> after_cancel = backend_->SubmitAs(TwoWorkers(), "k1", labels);
  ASSERT_TRUE(after_cancel.ok()) << after_cancel.status();
  EXPECT_EQ(after_cancel->state, JobState::kCancelled);
  EXPECT_FALSE(fake_.FindJob(kJobSets, "k1").has_value());
}

TEST_F(KubernetesBackendTest, SubmitCreatesTheRecordServiceAndWorkloadInOrder) {
  absl::StatusOr<Job> job = backend_->Submit(TwoWorkers());
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_THAT(job->id, MatchesRegex("[a-z][a-z0-9]{7}"));
  EXPECT_EQ(job->state, JobState::kQueued);
  EXPECT_EQ(job->spec, TwoWorkers());
  std::vector<std::string> creates;
  for (const std::string& r : fake_.Requests()) {
    if (r.rfind("POST", 0) == 0) creates.push_back(r);
  }
  EXPECT_THAT(creates, ElementsAre("POST /api/v1/namespaces/ml/configmaps",
                                   "POST /api/v1/namespaces/ml/services",
                                   "POST /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets"));
  std::optional<json> record = fake_.FindJob("/v1/configmaps", job->id);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ((*record)["metadata"]["annotations"]["dlp.dev/flavour"], "jobset");

  absl::StatusOr<Job> again = backend_->Get(job->id);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->name, "Train MNIST");
  EXPECT_EQ(backend_->Get("no-such-job").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(KubernetesBackendTest, ARefusedCreateRemovesWhatWasCreated) {
  fake_.Forbid("create", "jobsets");
  absl::Status refused = backend_->Submit(TwoWorkers()).status();
  EXPECT_THAT(refused.message(), HasSubstr("may not create jobsets.jobset.x-k8s.io"));
  EXPECT_TRUE(fake_.All("/v1/configmaps").empty());
  EXPECT_TRUE(fake_.All("/v1/services").empty());
}

TEST_F(KubernetesBackendTest, StatusThroughAJobsLife) {
  const std::string id = backend_->Submit(TwoWorkers())->id;
  fake_.StartPod("ml", id, "worker", 0);
  fake_.StartPod("ml", id, "worker", 1, "Pending");
  absl::StatusOr<Job> running = backend_->Get(id);
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_EQ(running->state, JobState::kRunning);
  ASSERT_EQ(running->replicas.size(), 2u);
  EXPECT_EQ(running->replicas[1].name, "worker-1");

  fake_.EndPod("ml", Pod(id, 0), 0);
  fake_.EndPod("ml", Pod(id, 1), 3);
  fake_.SetCondition(kJobSets, "ml", id, "Failed", "True", "FailedJobs", "jobset failed");
  absl::StatusOr<Job> failed = backend_->Get(id);
  EXPECT_EQ(failed->state, JobState::kFailed);
  EXPECT_EQ(failed->exit_code, 3);
  EXPECT_EQ(failed->reason, "pod " + Pod(id, 1) + " (worker-1) exited with code 3");
}

TEST_F(KubernetesBackendTest, WaitResumesAfterTheWatchDrops) {
  const std::string id = backend_->Submit(TwoWorkers())->id;
  absl::StatusOr<Job> waited;
  std::thread waiter([&] { waited = backend_->Wait(id, absl::Seconds(60)); });
  ASSERT_TRUE(Eventually([&] { return fake_.CountRequests("jobsets?allowWatchBookmarks") >= 1; }));
  fake_.StartPod("ml", id, "worker", 0);
  fake_.DropStreams();
  ASSERT_TRUE(Eventually([&] { return fake_.CountRequests("jobsets?allowWatchBookmarks") >= 2; }));
  fake_.SetCondition(kJobSets, "ml", id, "Completed", "True", "AllJobsCompleted");
  waiter.join();
  ASSERT_TRUE(waited.ok()) << waited.status();
  EXPECT_EQ(waited->state, JobState::kSucceeded);
}

TEST_F(KubernetesBackendTest, LogsFollowPodsThatStartLaterAcrossDrops) {
  const std::string id = backend_->Submit(TwoWorkers())->id;
  std::mutex mu;
  std::vector<std::string> seen;
  LogOptions follow;
  follow.follow = true;
  absl::Status streamed;
  std::thread reader([&] {
    streamed = backend_->Logs(id, follow, [&](const LogLine& line) {
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back("[" + line.replica + "] " + line.text);
      return true;
    });
  });
  auto count = [&] {
    std::lock_guard<std::mutex> lock(mu);
    return seen.size();
  };
  fake_.StartPod("ml", id, "worker", 0);
  fake_.AppendLog("ml", Pod(id, 0), "zero: epoch 1");
  ASSERT_TRUE(Eventually([&] { return count() == 1; }));
  fake_.StartPod("ml", id, "worker", 1);  // after the follow began
  fake_.AppendLog("ml", Pod(id, 1), "one: epoch 1");
  ASSERT_TRUE(Eventually([&] { return count() == 2; }));
  fake_.DropStreams();
  fake_.AppendLog("ml", Pod(id, 0), "zero: epoch 2");
  fake_.AppendLog("ml", Pod(id, 1), "one: epoch 2");
  ASSERT_TRUE(Eventually([&] { return count() == 4; }));
  fake_.EndPod("ml", Pod(id, 0), 0);
  fake_.EndPod("ml", Pod(id, 1), 0);
  fake_.SetCondition(kJobSets, "ml", id, "Completed", "True");
  reader.join();
  EXPECT_TRUE(streamed.ok()) << streamed;
  std::sort(seen.begin(), seen.end());
  EXPECT_THAT(seen, ElementsAre("[worker-0] zero: epoch 1", "[worker-0] zero: epoch 2",
                                "[worker-1] one: epoch 1", "[worker-1] one: epoch 2"));

  // Read back whole, merged by time, per replica and with a tail.
  std::vector<std::string> all;
  ASSERT_TRUE(backend_
                  ->Logs(id, LogOptions{},
                         [&](const LogLine& line) {
                           all.push_back(line.replica + ":" + line.text);
                           return true;
                         })
                  .ok());
  EXPECT_THAT(all, ElementsAre("worker-0:zero: epoch 1", "worker-1:one: epoch 1",
                               "worker-0:zero: epoch 2", "worker-1:one: epoch 2"));
  LogOptions last_of_one;
  last_of_one.replica = "worker-1";
  last_of_one.tail = 1;
  all.clear();
  ASSERT_TRUE(backend_
                  ->Logs(id, last_of_one,
                         [&](const LogLine& line) {
                           all.push_back(line.text);
                           return true;
                         })
                  .ok());
  EXPECT_THAT(all, ElementsAre("one: epoch 2"));
}

TEST_F(KubernetesBackendTest, CancelDeletesTheWorkloadAndKeepsTheRecord) {
  const std::string id = backend_->Submit(TwoWorkers())->id;
  fake_.StartPod("ml", id, "worker", 0);
  const std::string name = (*fake_.FindJob(kJobSets, id))["metadata"]["name"];
  absl::StatusOr<Job> cancelled = backend_->Cancel(id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(cancelled->state, JobState::kCancelled);
  EXPECT_EQ(fake_.CountRequests("DELETE /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/" +
                                name + "?propagationPolicy=Foreground"),
            1);
  EXPECT_FALSE(fake_.FindJob(kJobSets, id).has_value());
  EXPECT_FALSE(fake_.Find("/v1/pods", "ml", Pod(id, 0)).has_value());
  EXPECT_EQ(backend_->Get(id)->state, JobState::kCancelled);
  EXPECT_EQ(backend_->Wait(id, absl::Seconds(10))->state, JobState::kCancelled);
  EXPECT_EQ(backend_->Cancel(id)->state, JobState::kCancelled);  // again: unchanged
}

TEST_F(KubernetesBackendTest, EventsOfTheWorkloadAndItsPods) {
  const std::string id = backend_->Submit(TwoWorkers())->id;
  fake_.StartPod("ml", id, "worker", 0);
  const std::string name = (*fake_.FindJob(kJobSets, id))["metadata"]["name"];
  fake_.AddEvent("ml", "JobSet", name, "SuspendedJobs", "jobset suspended");
  fake_.AddEvent("ml", "Pod", Pod(id, 0), "Pulled", "image pulled");
  fake_.AddEvent("ml", "Pod", "someone-else", "Pulled", "not ours");
  absl::StatusOr<std::vector<Event>> events = backend_->Events(id);
  ASSERT_TRUE(events.ok()) << events.status();
  std::vector<std::string> seen;
  for (const Event& event : *events) seen.push_back(event.type + " " + event.message);
  // Both in the same second: their order is the server's.
  EXPECT_THAT(seen, UnorderedElementsAre("SuspendedJobs JobSet/" + name + ": jobset suspended",
                                         "Pulled Pod/" + Pod(id, 0) + ": image pulled"));
}

TEST_F(KubernetesBackendTest, ListFiltersByStateAndLabels) {
  const std::string first = backend_->Submit(TwoWorkers())->id;
  JobSpec other = TwoWorkers();
  other.labels = {{"team", "speech"}};
  const std::string second = backend_->Submit(other)->id;
  fake_.StartPod("ml", second, "worker", 0);
  absl::StatusOr<std::vector<Job>> all = backend_->List(ListFilter{});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 2u);
  ListFilter running;
  running.state = JobState::kRunning;
  ASSERT_EQ(backend_->List(running)->size(), 1u);
  EXPECT_EQ(backend_->List(running)->front().id, second);
  ListFilter vision;
  vision.labels = {{"team", "vision"}};
  ASSERT_EQ(backend_->List(vision)->size(), 1u);
  EXPECT_EQ(backend_->List(vision)->front().id, first);
}

}  // namespace
}  // namespace dlp::internal::k8s
