// `dlp render --backend kubernetes`: the manifests, as multi-document YAML or
// a JSON list, from the context's fields and --field alone (no cluster, no
// kubeconfig); a spec the flavour cannot express is a usage error naming the
// field. k8s_schema_test.py validates the objects against the upstream schemas.
#include "absl/strings/str_replace.h"
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kTwoRoles[] = R"(apiVersion: dlp/v1
kind: Job
metadata: {name: train}
spec:
  image: registry.example.com/ml/train:1.0
  replicas:
    chief: {count: 1, command: [python3, chief.py]}
    worker: {count: 2, command: [python3, train.py], resources: {gpu: 1}}
  restartPolicy: {policy: OnFailure, maxRestarts: 2}
)";

TEST(CliRenderKubernetes, PrintsTheManifestsWithoutACluster) {
  CliEnv env;
  const std::string path = env.dir().WriteFile("job.yaml", kTwoRoles);
  RunResult yaml = env.Dlp({"render", "--backend", "kubernetes", path});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_THAT(yaml.out, ::testing::StartsWith("---\napiVersion: v1\nkind: ConfigMap\n"));
  EXPECT_THAT(yaml.out, HasSubstr("---\napiVersion: v1\nkind: Service\n"));
  EXPECT_THAT(yaml.out, HasSubstr("---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"));
  EXPECT_THAT(yaml.out, HasSubstr("maxRestarts: 2"));

  RunResult json =
      env.Dlp({"render", "--backend", "kubernetes", path, "-o", "json", "--field",
               "flavour=volcano", "--field", "queue=research", "--field", "namespace=ml"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json objects = nlohmann::json::parse(json.out);
  ASSERT_EQ(objects.size(), 3u);
  EXPECT_EQ(objects[2]["apiVersion"], "batch.volcano.sh/v1alpha1");
  EXPECT_EQ(objects[2]["spec"]["queue"], "research");
  EXPECT_EQ(objects[2]["spec"]["minAvailable"], 3);
  EXPECT_EQ(objects[2]["metadata"]["namespace"], "ml");
}

TEST(CliRenderKubernetes, WhatCannotBeRenderedIsAUsageError) {
  CliEnv env;
  const std::string path = env.dir().WriteFile("job.yaml", kTwoRoles);
  RunResult job = env.Dlp({"render", "--backend", "kubernetes", path, "--field", "flavour=job"});
  EXPECT_EQ(job.exit_code, 2) << job.out;
  EXPECT_THAT(job.err, HasSubstr("spec.replicas: the job flavour runs a single role"));

  const std::string no_image = env.dir().WriteFile(
      "noimage.yaml",
      absl::StrReplaceAll(kTwoRoles, {{"  image: registry.example.com/ml/train:1.0\n", ""}}));
  RunResult image = env.Dlp({"render", "--backend", "kubernetes", no_image});
  EXPECT_EQ(image.exit_code, 2);
  EXPECT_THAT(image.err, HasSubstr("spec.image: no container image"));
  RunResult fallback =
      env.Dlp({"render", "--backend", "kubernetes", no_image, "--field", "image=img:2"});
  EXPECT_EQ(fallback.exit_code, 0) << fallback.err;
  EXPECT_THAT(fallback.out, HasSubstr("image: img:2"));

  RunResult flavour =
      env.Dlp({"render", "--backend", "kubernetes", path, "--field", "flavour=argo"});
  EXPECT_EQ(flavour.exit_code, 2);
  EXPECT_THAT(flavour.err, HasSubstr("flavour \"argo\": unknown"));
  RunResult field = env.Dlp({"render", "--backend", "kubernetes", path, "--field", "flavour"});
  EXPECT_EQ(field.exit_code, 2);
  EXPECT_THAT(field.err, HasSubstr("--field wants KEY=VALUE"));
  // A command line has no JSON form.
  RunResult local = env.Dlp({"render", path, "-o", "json"});
  EXPECT_EQ(local.exit_code, 2);
  EXPECT_THAT(local.err, HasSubstr("-o json: the local backend renders a command line"));
}

}  // namespace
}  // namespace dlp::testing
