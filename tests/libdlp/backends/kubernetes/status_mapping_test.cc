// The status mapping table (docs/kubernetes.md) row by row: each workload
// kind's conditions, pod phases, the failing pod's code or reason, and why a
// job waits.
#include "backends/kubernetes/status_mapping.h"

#include "dlp/codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dlp::internal::k8s {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json Conditions(std::initializer_list<std::pair<const char*, const char*>> types,
                const char* message = "") {
  json list = json::array();
  for (const auto& [type, status] : types) {
    list.push_back({{"type", type},
                    {"status", status},
                    {"reason", "Why"},
                    {"message", message},
                    {"lastTransitionTime", "2026-12-01T16:00:00Z"}});
  }
  return list;
}

json Workload(const std::string& api_version, const std::string& kind, json status) {
  return {{"apiVersion", api_version},
          {"kind", kind},
          {"metadata", {{"name", "j"}, {"uid", "u1"}}},
          {"status", std::move(status)}};
}

json Pod(const std::string& name, const std::string& role, int index, const std::string& phase,
         json container_state = json::object(), json extra_status = json::object()) {
  json status = {{"phase", phase}, {"startTime", "2026-12-01T15:00:00Z"}};
  if (!container_state.empty()) {
    status["containerStatuses"] = {{{"name", "dlp"}, {"state", container_state}}};
  }
  status.update(extra_status);
  return {{"metadata",
           {{"name", name},
            {"labels",
             {{"jobset.sigs.k8s.io/replicatedjob-name", role},
              {"batch.kubernetes.io/job-completion-index", std::to_string(index)}}}}},
          {"spec", {{"nodeName", "node-" + std::to_string(index)}}},
          {"status", status}};
}

json Terminated(int code, const std::string& reason) {
  return {{"terminated", {{"exitCode", code}, {"reason", reason}}}};
}

JobObjects Objects(json workload, std::vector<json> pods = {}) {
  JobSpec spec;
  spec.name = "train";
  spec.queue = "team-a";
  JobObjects objects;
  objects.id = "train-abcde";
  objects.record = {{"metadata",
                     {{"name", "train-abcde-group"},
                      {"creationTimestamp", "2026-12-01T14:00:00Z"},
                      {"annotations", {{kSpecAnnotation, JobSpecToJson(spec)}}}}}};
  objects.workload = std::move(workload);
  objects.pods = std::move(pods);
  return objects;
}

TEST(WorkloadStatusTest, EachKindsTerminalConditions) {
  const json none = json::object();
  EXPECT_EQ(WorkloadStatusOf(Workload("jobset.x-k8s.io/v1alpha2", "JobSet",
                                      {{"conditions", Conditions({{"Completed", "True"}})}}))
                .phase,
            WorkloadPhase::kSucceeded);
  EXPECT_EQ(WorkloadStatusOf(Workload("jobset.x-k8s.io/v1alpha2", "JobSet",
                                      {{"conditions", Conditions({{"Failed", "True"}})}}))
                .phase,
            WorkloadPhase::kFailed);
  EXPECT_EQ(WorkloadStatusOf(
                Workload("batch/v1", "Job", {{"conditions", Conditions({{"Complete", "True"}})}}))
                .phase,
            WorkloadPhase::kSucceeded);
  EXPECT_EQ(WorkloadStatusOf(
                Workload("batch/v1", "Job", {{"conditions", Conditions({{"Suspended", "True"}})}}))
                .phase,
            WorkloadPhase::kSuspended);
  EXPECT_EQ(WorkloadStatusOf(Workload("trainer.kubeflow.org/v1alpha1", "TrainJob",
                                      {{"conditions", Conditions({{"Failed", "True"}})}}))
                .phase,
            WorkloadPhase::kFailed);
  EXPECT_EQ(WorkloadStatusOf(
                Workload("batch.volcano.sh/v1alpha1", "Job", {{"state", {{"phase", "Inqueue"}}}}))
                .phase,
            WorkloadPhase::kPending);
  EXPECT_EQ(WorkloadStatusOf(
                Workload("batch.volcano.sh/v1alpha1", "Job", {{"state", {{"phase", "Completed"}}}}))
                .phase,
            WorkloadPhase::kSucceeded);
  EXPECT_EQ(WorkloadStatusOf(
                Workload("batch.volcano.sh/v1alpha1", "Job", {{"state", {{"phase", "Aborted"}}}}))
                .phase,
            WorkloadPhase::kFailed);
  EXPECT_EQ(WorkloadStatusOf(Workload("jobset.x-k8s.io/v1alpha2", "JobSet", none)).phase,
            WorkloadPhase::kPending);
}

TEST(MapJobTest, SucceededWithReplicasInOrder) {
  Job job = MapJob(Objects(Workload("jobset.x-k8s.io/v1alpha2", "JobSet",
                                    {{"conditions", Conditions({{"Completed", "True"}})}}),
                           {Pod("p1", "worker", 1, "Succeeded", Terminated(0, "Completed")),
                            Pod("p0", "worker", 0, "Succeeded", Terminated(0, "Completed"))}));
  EXPECT_EQ(job.state, JobState::kSucceeded);
  EXPECT_EQ(job.exit_code, 0);
  EXPECT_EQ(job.name, "train");
  EXPECT_EQ(job.queue, "team-a");
  ASSERT_EQ(job.replicas.size(), 2u);
  EXPECT_EQ(job.replicas[0].name, "worker-0");
  EXPECT_EQ(job.replicas[0].host, "node-0");
  EXPECT_EQ(job.replicas[1].exit_code, 0);
  EXPECT_TRUE(job.started.has_value());
  EXPECT_TRUE(job.finished.has_value());
}

TEST(MapJobTest, FailedNamesTheFailingPodAndItsCode) {
  Job job = MapJob(Objects(
      Workload("jobset.x-k8s.io/v1alpha2", "JobSet",
               {{"conditions", Conditions({{"Failed", "True"}}, "jobset failed")}}),
      {Pod("p0", "worker", 0, "Running", {{"running", json::object()}}),
       Pod("train-abcde-worker-0-3", "worker", 3, "Failed", Terminated(137, "OOMKilled"))}));
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.exit_code, 137);
  EXPECT_EQ(job.reason, "pod train-abcde-worker-0-3 (worker-3) exited with code 137 (OOMKilled)");
  EXPECT_EQ(job.replicas[1].reason, "OOMKilled");
}

TEST(MapJobTest, AFailedJobWithoutPodsKeepsTheWorkloadsReason) {
  Job job = MapJob(Objects(Workload(
      "batch/v1", "Job",
      {{"conditions",
        Conditions({{"Failed", "True"}}, "Job has reached the specified backoff limit")}})));
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.reason, "Why: Job has reached the specified backoff limit");
}

TEST(MapJobTest, EvictedAndImagePullBackOffAreReasons) {
  Job evicted = MapJob(Objects(
      Workload("batch/v1", "Job", {{"conditions", Conditions({{"Failed", "True"}})}}),
      {Pod("p0", "worker", 0, "Failed", json::object(),
           {{"reason", "Evicted"}, {"message", "The node was low on resource: memory."}})}));
  EXPECT_EQ(evicted.reason, "pod p0 (worker-0): Evicted: The node was low on resource: memory.");

  Job pulling = MapJob(
      Objects(Workload("batch/v1", "Job", json::object()),
              {Pod("p0", "worker", 0, "Pending",
                   {{"waiting",
                     {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image"}}}})}));
  EXPECT_EQ(pulling.state, JobState::kQueued);
  EXPECT_EQ(pulling.reason, "pod p0 (worker-0): ImagePullBackOff: Back-off pulling image");
}

TEST(MapJobTest, RunningWhenAPodRuns) {
  Job job = MapJob(Objects(Workload("jobset.x-k8s.io/v1alpha2", "JobSet", json::object()),
                           {Pod("p0", "worker", 0, "Running", {{"running", json::object()}}),
                            Pod("p1", "worker", 1, "Pending")}));
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.replicas[1].state, JobState::kQueued);
}

TEST(MapJobTest, QueuedReasonsFromKueueAndTheScheduler) {
  JobObjects kueue = Objects(Workload("jobset.x-k8s.io/v1alpha2", "JobSet",
                                      {{"conditions", Conditions({{"Suspended", "True"}})}}));
  (*kueue.workload)["metadata"]["labels"] = {{"kueue.x-k8s.io/queue-name", "team-a"}};
  EXPECT_EQ(MapJob(kueue).reason, "waiting for Kueue to admit it to queue team-a");
  kueue.kueue_workload = json{{"status",
                               {{"conditions",
                                 {{{"type", "QuotaReserved"},
                                   {"status", "False"},
                                   {"message",
                                    "couldn't assign flavors to pod set worker: "
                                    "insufficient quota for nvidia.com/gpu"}}}}}}};
  Job waiting = MapJob(kueue);
  EXPECT_EQ(waiting.state, JobState::kQueued);
  EXPECT_EQ(waiting.reason,
            "QuotaReserved=False: couldn't assign flavors to pod set worker: insufficient quota "
            "for nvidia.com/gpu");

  Job unschedulable = MapJob(Objects(
      Workload("batch/v1", "Job", json::object()),
      {Pod("p0", "worker", 0, "Pending", json::object(),
           {{"conditions",
             {{{"type", "PodScheduled"},
               {"status", "False"},
               {"reason", "Unschedulable"},
               {"message", "0/8 nodes are available: 8 Insufficient nvidia.com/gpu."}}}}})}));
  EXPECT_EQ(unschedulable.reason,
            "Pending: 0/8 nodes are available: 8 Insufficient nvidia.com/gpu.");
}

// The conditions and stats of a Workload that Kueue v0.17 preempted, as the
// test cluster's Kueue wrote them (kueue_kubernetes_test.cc's preemption).
TEST(MapJobTest, APreemptionByKueueIsTheReasonAndCounts) {
  const std::string why =
      "Preempted to accommodate a workload (UID: w2, JobUID: j2) due to prioritization in the "
      "ClusterQueue";
  JobObjects objects = Objects(Workload("batch/v1", "Job",
                                        {{"conditions", Conditions({{"Suspended", "True"}})}}));
  (*objects.workload)["metadata"]["labels"] = {{"kueue.x-k8s.io/queue-name", "lq"}};
  objects.kueue_workload = json{
      {"status",
       {{"conditions",
         {{{"type", "QuotaReserved"},
           {"status", "False"},
           {"reason", "Pending"},
           {"message", "couldn't assign flavors to pod set main: insufficient unused quota"}},
          {{"type", "Evicted"}, {"status", "True"}, {"reason", "Preempted"}, {"message", why}},
          {{"type", "Preempted"},
           {"status", "True"},
           {"reason", "InClusterQueue"},
           {"message", why}}}},
        {"schedulingStats",
         {{"evictions", {{{"reason", "Preempted"}, {"underlyingCause", ""}, {"count", 1}}}}}}}}};
  Job preempted = MapJob(objects);
  EXPECT_EQ(preempted.state, JobState::kQueued);
  EXPECT_EQ(preempted.reason,
            "preempted by Kueue (InClusterQueue): " + why +
                "; QuotaReserved=False: couldn't assign flavors to pod set main: insufficient "
                "unused quota");
  EXPECT_EQ(preempted.preemptions, 1);

  // Admitted again: the conditions turn False, the count stays.
  json& conditions = (*objects.kueue_workload)["status"]["conditions"];
  conditions = json::array({{{"type", "Admitted"}, {"status", "True"}},
                            {{"type", "Preempted"}, {"status", "False"}, {"message", why}}});
  (*objects.workload)["status"] = json::object();
  objects.pods = {Pod("p0", "worker", 0, "Running", {{"running", json::object()}})};
  Job running = MapJob(objects);
  EXPECT_EQ(running.state, JobState::kRunning);
  EXPECT_EQ(running.reason, "");
  EXPECT_EQ(running.preemptions, 1);
}

TEST(MapJobTest, TheQueueIsKueuesLocalQueueWhenTheWorkloadHasOne) {
  // The spec's queue (dlp's) stays "team-a"; Kueue admits from the
  // context's LocalQueue, named by the workload's label.
  JobObjects objects = Objects(Workload("batch/v1", "Job", json::object()));
  EXPECT_EQ(MapJob(objects).queue, "team-a");
  (*objects.workload)["metadata"]["labels"] = {{"kueue.x-k8s.io/queue-name", "lq"}};
  EXPECT_EQ(MapJob(objects).queue, "lq");
}

TEST(MapJobTest, CancelledAndDeletedOutsideDlp) {
  JobObjects cancelled = Objects(Workload("batch/v1", "Job", json::object()));
  cancelled.record["metadata"]["annotations"][kCancelledAnnotation] = "2026-12-01T16:30:00Z";
  cancelled.workload.reset();
  Job job = MapJob(cancelled);
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.finished, absl::FromUnixSeconds(1796142600));

  JobObjects deleted = Objects(Workload("batch/v1", "Job", json::object()));
  deleted.workload.reset();
  EXPECT_EQ(MapJob(deleted).state, JobState::kFailed);
  EXPECT_THAT(MapJob(deleted).reason, HasSubstr("deleted outside dlp"));
}

}  // namespace
}  // namespace dlp::internal::k8s
