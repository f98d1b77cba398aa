// The mapping of a JobSpec to Kubernetes objects (docs/kubernetes.md,
// "Mapping"): names, labels, Kueue suspension, gang sizes, restarts, the pod
// command and the group file. k8s_schema_test.sh checks the same objects
// against the upstream schemas.
#include "backends/kubernetes/manifests.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/kubernetes/render.h"
#include "backends/kubernetes/render_input.h"
#include "contract/env_names.h"
#include "contract/group.h"

namespace dlp::internal::k8s {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;

JobSpec TwoRoles() {
  JobSpec spec;
  spec.name = "train";
  spec.framework = Framework::kPyTorch;
  spec.image = "registry.example.com/ml/train:1.0";
  spec.workdir = "/workspace";
  spec.replicas = {
      {"chief", 1, {"python3", "chief.py"}, {{"A", "b"}}, {2000, int64_t{4} << 30, 0}},
      {"worker", 3, {"python3", "train.py"}, {{"Q", "say \"hi\"\nbye"}}, {500, 0, 2000}},
  };
  return spec;
}

JobSpec OneRole(int count = 4) {
  JobSpec spec = TwoRoles();
  spec.replicas.erase(spec.replicas.begin());
  spec.replicas[0].count = count;
  return spec;
}

std::vector<Json> Render(const JobSpec& spec, const RenderOptions& options) {
  auto objects = RenderManifests(spec, options);
  EXPECT_TRUE(objects.ok()) << objects.status();
  return objects.ok() ? *objects : std::vector<Json>{};
}

RenderOptions Options(const std::string& flavour, const std::string& queue = "") {
  RenderOptions options;
  options.flavour = flavour;
  options.name_space = "ml";
  options.job_id = "k7f3";
  options.queue = queue;
  options.training_runtime = "torch-distributed";
  return options;
}

// The env list of a container as a map (value, or the valueFrom JSON).
std::map<std::string, std::string> Env(const Json& container) {
  std::map<std::string, std::string> env;
  for (const Json& e : container["env"]) {
    env[e["name"]] = e.contains("value") ? e["value"].get<std::string>() : e["valueFrom"].dump();
  }
  return env;
}

TEST(Manifests, ConfigMapServiceThenTheWorkloadAllLabelled) {
  for (const char* flavour : {"jobset", "job", "trainjob", "volcano"}) {
    SCOPED_TRACE(flavour);
    const std::vector<Json> objects = Render(OneRole(), Options(flavour));
    ASSERT_EQ(objects.size(), 3u);
    EXPECT_EQ(objects[0]["kind"], "ConfigMap");
    EXPECT_EQ(objects[1]["kind"], "Service");
    auto resource = WorkloadResourceOf(flavour);
    ASSERT_TRUE(resource.ok());
    EXPECT_EQ(objects[2]["kind"], resource->kind);
    const std::string group = resource->group.empty() ? "" : resource->group + "/";
    EXPECT_EQ(objects[2]["apiVersion"], group + resource->version);
    for (const Json& o : objects) {
      EXPECT_EQ(o["metadata"]["namespace"], "ml");
      EXPECT_EQ(o["metadata"]["labels"]["dlp.dev/job-id"], "k7f3");
      EXPECT_EQ(o["metadata"]["labels"]["app.kubernetes.io/managed-by"], "dlp");
    }
    EXPECT_EQ(objects[1]["metadata"]["name"], "train-k7f3");
    EXPECT_EQ(objects[2]["metadata"]["name"], "train-k7f3");
    EXPECT_EQ(objects[0]["metadata"]["name"], "train-k7f3-group");
    EXPECT_EQ(objects[1]["spec"]["clusterIP"], "None");
    EXPECT_EQ(objects[1]["spec"]["selector"]["dlp.dev/job-id"], "k7f3");
  }
}

TEST(Manifests, TheConfigMapHoldsTheJobsGroupWithoutInPodRestarts) {
  JobSpec spec = TwoRoles();
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 4, 5};
  const Json map = Render(spec, Options("jobset"))[0];
  auto group = contract::ParseGroupJson(map["data"]["group.json"].get<std::string>(), "configmap");
  ASSERT_TRUE(group.ok()) << group.status();
  ASSERT_EQ(group->roles.size(), 2u);
  EXPECT_EQ(group->roles[1].role, "worker");
  EXPECT_EQ(group->roles[1].count, 3);
  EXPECT_EQ(group->roles[1].env.at("Q"), "say \"hi\"\nbye");
  EXPECT_EQ(group->framework, contract::Framework::kPyTorch);
  // The JobSet restarts the gang; dlp-run in each pod does not.
  EXPECT_EQ(group->restart_policy, contract::RestartPolicy::kNever);
  EXPECT_EQ(group->max_restarts, 0);
}

TEST(Manifests, JobSetHasOneIndexedReplicatedJobPerRole) {
  JobSpec spec = TwoRoles();
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 4, 5};
  spec.active_deadline_seconds = 600;
  const Json js = Render(spec, Options("jobset"))[2];
  const Json& jobs = js["spec"]["replicatedJobs"];
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0]["name"], "chief");
  EXPECT_EQ(jobs[1]["name"], "worker");
  const Json& worker = jobs[1]["template"]["spec"];
  EXPECT_EQ(jobs[1]["replicas"], 1);
  EXPECT_EQ(worker["completionMode"], "Indexed");
  EXPECT_EQ(worker["completions"], 3);
  EXPECT_EQ(worker["parallelism"], 3);
  EXPECT_EQ(worker["backoffLimit"], 0);
  EXPECT_EQ(worker["activeDeadlineSeconds"], 600);
  EXPECT_EQ(js["spec"]["failurePolicy"]["maxRestarts"], 4);
  EXPECT_FALSE(js["spec"]["failurePolicy"].contains("rules"));
  EXPECT_EQ(js["spec"]["network"]["subdomain"], "train-k7f3");
  EXPECT_FALSE(js["spec"].contains("suspend"));

  const Json& pod = worker["template"];
  EXPECT_EQ(pod["metadata"]["labels"]["dlp.dev/role"], "worker");
  EXPECT_EQ(pod["metadata"]["labels"]["dlp.dev/job-id"], "k7f3");
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  const Json& c = pod["spec"]["containers"][0];
  EXPECT_EQ(c["image"], "registry.example.com/ml/train:1.0");
  EXPECT_THAT(
      c["command"].get<std::vector<std::string>>(),
      ElementsAre("dlp-run", "--group", "/etc/dlp/group.json", "--rank-source", "kubernetes",
                  "--relay-traces"));
  EXPECT_EQ(c["workingDir"], "/workspace");
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"], "/etc/dlp");
  EXPECT_EQ(pod["spec"]["volumes"][0]["configMap"]["name"], "train-k7f3-group");
  const auto env = Env(c);
  EXPECT_EQ(env.at("Q"), "say \"hi\"\nbye");
  EXPECT_EQ(env.at(contract::env::kPodRole), "worker");
  EXPECT_EQ(env.at(contract::env::kPodHostPattern), "train-k7f3-{role}-0-{index}.train-k7f3");
  EXPECT_EQ(env.at(contract::env::kJobId), "k7f3");
  EXPECT_THAT(env.at(contract::env::kRestartCount),
              HasSubstr("metadata.labels['jobset.sigs.k8s.io/restart-attempt']"));
  // No rendezvous secret unless Submit drew one (RenderOptions::rdzv_secret).
  EXPECT_EQ(env.count(contract::env::kRdzvSecret), 0u);
  // GPUs whole, in requests and limits; memory only where set.
  EXPECT_EQ(c["resources"]["requests"]["cpu"], "500m");
  EXPECT_EQ(c["resources"]["requests"]["nvidia.com/gpu"], "2");
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"], "2");
  EXPECT_FALSE(c["resources"]["requests"].contains("memory"));
  const Json& chief = jobs[0]["template"]["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(chief["resources"]["requests"]["memory"], "4Gi");
  EXPECT_EQ(chief["resources"]["limits"]["memory"], "4Gi");
  EXPECT_FALSE(chief["resources"]["requests"].contains("nvidia.com/gpu"));
}

TEST(Manifests, NeverMeansNoRestartsAndExitCodeFailsOnApplicationErrors) {
  JobSpec spec = TwoRoles();
  Json js = Render(spec, Options("jobset"))[2];
  EXPECT_FALSE(js["spec"].contains("failurePolicy"));
  spec.restart_policy = {RestartPolicyKind::kExitCode, 2, 0};
  js = Render(spec, Options("jobset"))[2];
  EXPECT_EQ(js["spec"]["failurePolicy"]["maxRestarts"], 2);
  EXPECT_EQ(js["spec"]["failurePolicy"]["rules"][0]["action"], "FailJobSet");
  const Json& policy = js["spec"]["replicatedJobs"][1]["template"]["spec"]["podFailurePolicy"];
  const Json& codes = policy["rules"][0]["onExitCodes"]["values"];
  EXPECT_EQ(codes.size(), 127u);
  EXPECT_EQ(codes.front(), 1);
  EXPECT_EQ(codes.back(), 127);
}

TEST(Manifests, AQueueSuspendsTheWorkloadWithKueueLabels) {
  JobSpec spec = OneRole();
  spec.priority = 100;
  for (const char* flavour : {"jobset", "job", "trainjob"}) {
    SCOPED_TRACE(flavour);
    const Json w = Render(spec, Options(flavour, "team-a"))[2];
    EXPECT_EQ(w["spec"]["suspend"], true);
    EXPECT_EQ(w["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], "team-a");
    EXPECT_EQ(w["metadata"]["labels"]["kueue.x-k8s.io/priority-class"], "dlp-high");
  }
  // Without a queue: no suspension; the priority goes to the pods.
  const Json job = Render(spec, Options("job"))[2];
  EXPECT_FALSE(job["spec"].contains("suspend"));
  EXPECT_FALSE(job["metadata"]["labels"].contains("kueue.x-k8s.io/queue-name"));
  EXPECT_EQ(job["spec"]["template"]["spec"]["priorityClassName"], "dlp-high");
  // The default priority asks for no class at all.
  spec.priority = 0;
  const Json plain = Render(spec, Options("jobset", "team-a"))[2];
  EXPECT_FALSE(plain["metadata"]["labels"].contains("kueue.x-k8s.io/priority-class"));
}

TEST(Manifests, PriorityClassNames) {
  EXPECT_EQ(PriorityClassName(-100), "dlp-low");
  EXPECT_EQ(PriorityClassName(1000), "dlp-critical");
  EXPECT_EQ(PriorityClassName(250), "dlp-priority-250");
  EXPECT_EQ(PriorityClassName(-5), "dlp-priority-minus-5");
}

TEST(Manifests, JobIsOneIndexedJobOfASingleRole) {
  JobSpec spec = OneRole(4);
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 3, 0};
  spec.active_deadline_seconds = 60;
  const Json job = Render(spec, Options("job"))[2];
  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["spec"]["completions"], 4);
  EXPECT_EQ(job["spec"]["parallelism"], 4);
  EXPECT_EQ(job["spec"]["backoffLimit"], 3);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 60);
  EXPECT_EQ(job["spec"]["template"]["spec"]["subdomain"], "train-k7f3");
  const auto env = Env(job["spec"]["template"]["spec"]["containers"][0]);
  EXPECT_EQ(env.at(contract::env::kPodHostPattern), "train-k7f3-{index}.train-k7f3");
  EXPECT_EQ(env.count(contract::env::kRestartCount), 0u);

  auto several = RenderManifests(TwoRoles(), Options("job"));
  ASSERT_FALSE(several.ok());
  EXPECT_EQ(several.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(several.status().message(), HasSubstr("spec.replicas: the job flavour runs a single "
                                                    "role, this spec has chief, worker"));
}

TEST(Manifests, VolcanoGangsEveryReplicaInItsQueue) {
  JobSpec spec = TwoRoles();
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 2, 0};
  spec.priority = -100;
  const Json vj = Render(spec, Options("volcano", "research"))[2];
  EXPECT_EQ(vj["spec"]["minAvailable"], 4);
  EXPECT_EQ(vj["spec"]["queue"], "research");
  EXPECT_EQ(vj["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(vj["spec"]["maxRetry"], 2);
  EXPECT_EQ(vj["spec"]["policies"][0]["action"], "RestartJob");
  EXPECT_TRUE(vj["spec"]["plugins"].contains("svc"));
  EXPECT_TRUE(vj["spec"]["plugins"].contains("env"));
  EXPECT_EQ(vj["spec"]["priorityClassName"], "dlp-low");
  EXPECT_FALSE(vj["metadata"]["labels"].contains("kueue.x-k8s.io/queue-name"));
  ASSERT_EQ(vj["spec"]["tasks"].size(), 2u);
  EXPECT_EQ(vj["spec"]["tasks"][1]["name"], "worker");
  EXPECT_EQ(vj["spec"]["tasks"][1]["replicas"], 3);
  const auto env = Env(vj["spec"]["tasks"][1]["template"]["spec"]["containers"][0]);
  EXPECT_EQ(env.at(contract::env::kPodHostPattern), "train-k7f3-{role}-{index}.train-k7f3");

  spec.restart_policy = {RestartPolicyKind::kExitCode, 2, 0};
  auto refused = RenderManifests(spec, Options("volcano"));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("spec.restartPolicy.policy"));
}

TEST(Manifests, TrainJobRunsTheTrainerAgainstTheRuntime) {
  JobSpec spec = OneRole(2);
  const Json tj = Render(spec, Options("trainjob"))[2];
  EXPECT_EQ(tj["spec"]["runtimeRef"]["name"], "torch-distributed");
  EXPECT_EQ(tj["spec"]["runtimeRef"]["kind"], "ClusterTrainingRuntime");
  EXPECT_EQ(tj["spec"]["trainer"]["numNodes"], 2);
  EXPECT_EQ(tj["spec"]["trainer"]["image"], "registry.example.com/ml/train:1.0");
  EXPECT_EQ(tj["spec"]["trainer"]["resourcesPerNode"]["limits"]["nvidia.com/gpu"], "2");
  const Json& patch = tj["spec"]["runtimePatches"][0];
  EXPECT_EQ(patch["manager"], "dlp.dev/dlp");
  const Json& pod_template = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]
                                  ["template"]["spec"]["template"];
  // The Service selects the runtime's pods by the job's label.
  EXPECT_EQ(pod_template["metadata"]["labels"]["dlp.dev/job-id"], "k7f3");
  const Json& pod = pod_template["spec"];
  EXPECT_EQ(pod["volumes"][0]["configMap"]["name"], "train-k7f3-group");
  EXPECT_EQ(pod["containers"][0]["name"], "node");

  RenderOptions namespaced = Options("trainjob");
  namespaced.training_runtime = "TrainingRuntime/my-torch";
  const Json own = Render(spec, namespaced)[2];
  EXPECT_EQ(own["spec"]["runtimeRef"]["kind"], "TrainingRuntime");
  EXPECT_EQ(own["spec"]["runtimeRef"]["name"], "my-torch");

  RenderOptions no_runtime = Options("trainjob");
  no_runtime.training_runtime.clear();
  EXPECT_THAT(RenderManifests(spec, no_runtime).status().message(), HasSubstr("training-runtime"));
  EXPECT_THAT(RenderManifests(TwoRoles(), Options("trainjob")).status().message(),
              HasSubstr("spec.replicas"));
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 1, 0};
  EXPECT_THAT(RenderManifests(spec, Options("trainjob")).status().message(),
              HasSubstr("spec.restartPolicy.policy"));
}

// The pod template of each flavour's first pod of `role_index` (trainjob: its
// runtime patch's).
Json PodSpecOf(const Json& workload, const std::string& flavour, size_t role_index = 0) {
  if (flavour == "jobset") {
    return workload["spec"]["replicatedJobs"][role_index]["template"]["spec"]["template"]["spec"];
  }
  if (flavour == "job") return workload["spec"]["template"]["spec"];
  if (flavour == "volcano") return workload["spec"]["tasks"][role_index]["template"]["spec"];
  return workload["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]
                 ["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
}

TEST(Manifests, AGpuTypeSelectsNodesByTheProductLabel) {
  JobSpec spec = OneRole(2);
  spec.replicas[0].resources.gpu_type = "NVIDIA H200";
  for (const std::string flavour : {"jobset", "job", "volcano", "trainjob"}) {
    const Json pod = PodSpecOf(Render(spec, Options(flavour))[2], flavour);
    EXPECT_EQ(pod["nodeSelector"]["nvidia.com/gpu.product"], "NVIDIA-H200") << flavour;
  }
  RenderOptions own_label = Options("jobset");
  own_label.gpu_type_label = "example.com/gpu-flavour";
  spec.replicas[0].resources.gpu_type = "h200";
  EXPECT_EQ(PodSpecOf(Render(spec, own_label)[2], "jobset")["nodeSelector"],
            Json({{"example.com/gpu-flavour", "h200"}}));
  // A role without a type selects no node.
  EXPECT_FALSE(PodSpecOf(Render(TwoRoles(), Options("jobset"))[2], "jobset").contains("nodeSelector"));
  spec.replicas[0].resources.gpu_type = "H200 (141GB)";
  EXPECT_THAT(RenderManifests(spec, Options("jobset")).status().message(),
              HasSubstr("spec.replicas.worker.resources.gpuType \"H200 (141GB)\""));
}

// The output claim: every job's folder on one volume, its own as
// DLP_OUTPUT_DIR (a subPath the kubelet creates), the others' under
// /dlp/outputs for ${jobs.NAME.outputDir}.
TEST(Manifests, AnOutputClaimMountsTheJobsOutputFolder) {
  for (const std::string flavour : {"jobset", "job", "volcano", "trainjob"}) {
    RenderOptions options = Options(flavour);
    options.output_claim = "dlp-outputs";
    const Json pod = PodSpecOf(Render(OneRole(2), options)[2], flavour);
    EXPECT_EQ(pod["volumes"][1], Json({{"name", "dlp-outputs"},
                                       {"persistentVolumeClaim", {{"claimName", "dlp-outputs"}}}}))
        << flavour;
    EXPECT_EQ(pod["containers"][0]["volumeMounts"][1],
              Json({{"name", "dlp-outputs"}, {"mountPath", "/dlp/outputs"}}))
        << flavour;
    EXPECT_EQ(pod["containers"][0]["volumeMounts"][2],
              Json({{"name", "dlp-outputs"}, {"mountPath", "/dlp/output"}, {"subPath", "k7f3"}}))
        << flavour;
  }
  RenderOptions options = Options("jobset");
  options.output_claim = "dlp-outputs";
  const Json pod = PodSpecOf(Render(OneRole(2), options)[2], "jobset");
  EXPECT_EQ(Env(pod["containers"][0])["DLP_OUTPUT_DIR"], "/dlp/output");
  EXPECT_EQ(OutputDirOf("k7f3"), "/dlp/outputs/k7f3");
  // Without a claim, no volume and no DLP_OUTPUT_DIR.
  const Json plain = PodSpecOf(Render(OneRole(2), Options("jobset"))[2], "jobset");
  EXPECT_EQ(plain["volumes"].size(), 1u);
  EXPECT_EQ(Env(plain["containers"][0]).count("DLP_OUTPUT_DIR"), 0u);
  options.output_claim = "Not A Claim";
  EXPECT_THAT(RenderManifests(OneRole(2), options).status().message(),
              HasSubstr("output-claim \"Not A Claim\""));
}

TEST(Manifests, ImageFromTheSpecElseTheOptionsElseAClearError) {
  JobSpec spec = OneRole();
  RenderOptions options = Options("job");
  options.image = "fallback:1";
  EXPECT_EQ(Render(spec, options)[2]["spec"]["template"]["spec"]["containers"][0]["image"],
            "registry.example.com/ml/train:1.0");
  spec.image.clear();
  EXPECT_EQ(Render(spec, options)[2]["spec"]["template"]["spec"]["containers"][0]["image"],
            "fallback:1");
  options.image.clear();
  auto none = RenderManifests(spec, options);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.status().message(), HasSubstr("spec.image: no container image"));
}

TEST(Manifests, NamesAreBoundedDns1035Labels) {
  EXPECT_EQ(BaseName("train", "k7f3"), "train-k7f3");
  EXPECT_EQ(BaseName("train", ""), "train");
  EXPECT_EQ(BaseName("7up", "ID_9"), "j7up-id-9");
  const std::string long_name(63, 'a');
  const std::string base = BaseName(long_name, "12345678");
  EXPECT_EQ(base.size(), 40u);
  EXPECT_EQ(base, std::string(31, 'a') + "-12345678");
  EXPECT_EQ(BaseName("a-" + std::string(40, 'b'), "x").back(), 'x');
  EXPECT_LE(BaseName("n", std::string(80, '9')).size(), 40u);
  for (const std::string& name :
       std::vector<std::string>{BaseName("x--", "-y-"), BaseName("A.B", "C"), base}) {
    EXPECT_TRUE(name[0] >= 'a' && name[0] <= 'z') << name;
    EXPECT_NE(name.back(), '-') << name;
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"), std::string::npos)
        << name;
  }
}

TEST(Manifests, BadOptionsAreRefusedByName) {
  RenderOptions options = Options("kubeflow");
  EXPECT_THAT(RenderManifests(OneRole(), options).status().message(),
              HasSubstr("flavour \"kubeflow\": unknown; expected one of: jobset, job"));
  options = Options("job");
  options.name_space = "ML Team";
  EXPECT_THAT(RenderManifests(OneRole(), options).status().message(), HasSubstr("namespace"));
  EXPECT_FALSE(WorkloadResourceOf("pytorchjob").ok());
}

TEST(Manifests, EveryPodCarriesTheJobsRendezvousSecret) {
  RenderOptions options = Options("jobset");
  options.rdzv_secret = std::string(64, 'a');
  const Json js = Render(TwoRoles(), options)[2];
  for (const Json& replicated : js["spec"]["replicatedJobs"]) {
    const Json& c = replicated["template"]["spec"]["template"]["spec"]["containers"][0];
    EXPECT_EQ(Env(c).at(contract::env::kRdzvSecret), options.rdzv_secret) << replicated["name"];
  }
}

TEST(Manifests, RenderIsPure) {
  EXPECT_EQ(Render(TwoRoles(), Options("jobset")), Render(TwoRoles(), Options("jobset")));
}

TEST(ManifestsText, YamlDocumentsAndAJsonList) {
  const std::vector<Json> objects = Render(TwoRoles(), Options("jobset"));
  const std::string yaml = ManifestsToYaml(objects);
  EXPECT_EQ(yaml.rfind("---\napiVersion: v1\nkind: ConfigMap\n", 0), 0u) << yaml;
  EXPECT_THAT(yaml, HasSubstr("---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"));
  EXPECT_EQ(Json::parse(ManifestsToJson(objects)), Json(objects));
}

TEST(ManifestsText, OptionsComeFromTheContextsFields) {
  Context context;
  context.name = "prod";
  context.backend = "kubernetes";
  context.fields = {{"flavour", "volcano"},
                    {"namespace", "ml"},
                    {"queue", "team-a"},
                    {"image", "img:1"},
                    {"gpu-resource", "nvidia.com/mig-1g.10gb"},
                    {"dlp-run", "/opt/dlp/bin/dlp-run"},
                    {"output-claim", "dlp-outputs"}};
  auto options = RenderOptionsFromContext(context);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->flavour, "volcano");
  EXPECT_EQ(options->name_space, "ml");
  EXPECT_EQ(options->queue, "team-a");
  EXPECT_EQ(options->image, "img:1");
  EXPECT_EQ(options->gpu_resource, "nvidia.com/mig-1g.10gb");
  EXPECT_EQ(options->dlp_run, "/opt/dlp/bin/dlp-run");
  EXPECT_EQ(options->output_claim, "dlp-outputs");
  context.fields["flavour"] = "argo";
  EXPECT_THAT(RenderOptionsFromContext(context).status().message(),
              HasSubstr("context 'prod': flavour \"argo\""));
}

}  // namespace
}  // namespace dlp::internal::k8s
