// A job's metadata.labels reach every object and every pod (users select
// pods by them; the test cluster's KWOK reads its exit-code hook from them),
// and never take over the labels dlp itself relies on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/kubernetes/manifests.h"
#include "backends/kubernetes/render.h"

namespace dlp::internal::k8s {
namespace {

using Json = nlohmann::json;

JobSpec Labelled() {
  JobSpec spec;
  spec.name = "train";
  spec.image = "train:1";
  spec.workdir = "/workspace";
  spec.labels = {{"team", "vision"}, {"dlp.dev/job-id", "someone-else"}};
  spec.replicas = {{"worker", 2, {"python3", "train.py"}, {}, {1000, 0, 0}}};
  return spec;
}

// The pod template of the workload, by flavour.
Json PodTemplate(const std::string& flavour, const Json& workload) {
  if (flavour == "jobset") return workload["spec"]["replicatedJobs"][0]["template"]["spec"]["template"];
  if (flavour == "job") return workload["spec"]["template"];
  if (flavour == "volcano") return workload["spec"]["tasks"][0]["template"];
  return workload["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]
                 ["replicatedJobs"][0]["template"]["spec"]["template"];
}

TEST(ManifestLabels, TheJobsLabelsReachEveryObjectAndPod) {
  for (const char* flavour : {"jobset", "job", "trainjob", "volcano"}) {
    SCOPED_TRACE(flavour);
    RenderOptions options;
    options.flavour = flavour;
    options.name_space = "ml";
    options.job_id = "k7f3";
    options.training_runtime = "torch-distributed";
    absl::StatusOr<std::vector<Json>> objects = RenderManifests(Labelled(), options);
    ASSERT_TRUE(objects.ok()) << objects.status();
    ASSERT_EQ(objects->size(), 3u);
    for (const Json& object : *objects) {
      EXPECT_EQ(object["metadata"]["labels"]["team"], "vision") << object["kind"];
      EXPECT_EQ(object["metadata"]["labels"]["dlp.dev/job-id"], "k7f3") << object["kind"];
    }
    const Json pod = PodTemplate(flavour, (*objects)[2]);
    EXPECT_EQ(pod["metadata"]["labels"]["team"], "vision") << pod.dump();
    EXPECT_EQ(pod["metadata"]["labels"]["dlp.dev/job-id"], "k7f3");
    EXPECT_EQ(pod["metadata"]["labels"]["dlp.dev/role"], "worker");
    // The Service selects the pods by dlp's label, not the job's.
    EXPECT_EQ((*objects)[1]["spec"]["selector"], Json({{"dlp.dev/job-id", "k7f3"}}));
  }
}

}  // namespace
}  // namespace dlp::internal::k8s
