// What each backend offers beyond jobs (dlp/backend_capabilities.h), and the
// one message a Client gives for a call its backend cannot serve. Backends are
// created, never connected: nothing here reaches a server.
#include <cstdlib>
#include <memory>

#include "dlp/backend_capabilities.h"
#include "dlp/client.h"
#include "dlp/pipeline_driver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// Which accessors return an interface, in Backend's order.
struct Offers {
  bool pipelines, sweeps, artifacts, models, scheduler, queue_admin, tenant_admin, monitor,
      history, objects;
};

class CapabilityTest : public ::testing::Test {
 protected:
  // Nothing here may touch the real ~/.local/state/dlp.
  void SetUp() override {
    setenv("XDG_STATE_HOME", dir_.Join("state").c_str(), 1);
    unsetenv("DLP_CONTEXT");
  }

  std::unique_ptr<Client> ClientOf(const std::string& context) const {
    ClientOptions options;
    options.config_path = config_;
    options.context = context;
    absl::StatusOr<std::unique_ptr<Client>> client = Client::Create(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }

  static void ExpectOffers(Backend& b, const Offers& want) {
    SCOPED_TRACE(b.Name());
    EXPECT_EQ(b.pipelines() != nullptr, want.pipelines);
    EXPECT_EQ(b.sweeps() != nullptr, want.sweeps);
    EXPECT_EQ(b.artifacts() != nullptr, want.artifacts);
    EXPECT_EQ(b.models() != nullptr, want.models);
    EXPECT_EQ(b.scheduler() != nullptr, want.scheduler);
    EXPECT_EQ(b.queue_admin() != nullptr, want.queue_admin);
    EXPECT_EQ(b.tenant_admin() != nullptr, want.tenant_admin);
    EXPECT_EQ(b.monitor() != nullptr, want.monitor);
    EXPECT_EQ(b.history() != nullptr, want.history);
    EXPECT_EQ(b.objects() != nullptr, want.objects);
  }

  TempDir dir_;
  const std::string config_ = dir_.WriteFile(
      "config.yaml",
      "contexts:\n"
      "  - {name: team, backend: remote, server: 'http://127.0.0.1:1'}\n"
      "  - {name: mine, backend: local}\n"
      "  - {name: hpc, backend: slurm, workdir: " + dir_.Join("slurm") + "}\n"
      "  - {name: k8s, backend: kubernetes, kubeconfig: " + dir_.Join("none") + "}\n");
};

TEST_F(CapabilityTest, EachBackendOffersWhatItImplements) {
  const Offers dlpd{true, true, true, true, true, true, true, true, true, false};
  for (const char* context : {"team", "mine"}) {
    std::unique_ptr<Client> client = ClientOf(context);
    ASSERT_NE(client, nullptr);
    ExpectOffers(client->backend(), dlpd);
    EXPECT_FALSE(ForegroundPipelines(*client));
  }
  std::unique_ptr<Client> slurm = ClientOf("hpc");
  ASSERT_NE(slurm, nullptr);
  ExpectOffers(slurm->backend(), {true, false, true, false, false, false, false, false, false,
                                  false});
  EXPECT_FALSE(ForegroundPipelines(*slurm));
  std::unique_ptr<Client> k8s = ClientOf("k8s");
  ASSERT_NE(k8s, nullptr);
  ExpectOffers(k8s->backend(), {true, false, false, false, false, false, false, false, false,
                                true});
  EXPECT_TRUE(ForegroundPipelines(*k8s));
}

// Each call names the backend and what it lacks, before any request is made.
TEST_F(CapabilityTest, ACallTheBackendCannotServeSaysWhatItLacks) {
  std::unique_ptr<Client> slurm = ClientOf("hpc");
  ASSERT_NE(slurm, nullptr);
  auto expect_lacks = [](const absl::Status& status, const std::string& backend,
                         const std::string& what) {
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
    EXPECT_THAT(status.message(),
                HasSubstr("the " + backend + " backend does not support " + what));
  };
  expect_lacks(slurm->ListTenants().status(), "slurm", "tenants and tokens");
  expect_lacks(slurm->RevokeToken(3).status(), "slurm", "tenants and tokens");
  expect_lacks(slurm->ListQueues().status(), "slurm", "queues");
  expect_lacks(slurm->QueueUsages().status(), "slurm", "scheduler explanations");
  expect_lacks(slurm->Why("7").status(), "slurm", "scheduler explanations");
  expect_lacks(slurm->ListModels().status(), "slurm", "a model registry");
  expect_lacks(slurm->DownloadModel("m", dir_.path()).status(), "slurm", "a model registry");
  expect_lacks(slurm->UiSignIn().status(), "slurm", "usage samples and a web UI");
  expect_lacks(slurm->Usage("7").status(), "slurm", "usage samples and a web UI");
  expect_lacks(slurm->Delete("7").status(), "slurm", "deleting jobs");

  std::unique_ptr<Client> k8s = ClientOf("k8s");
  ASSERT_NE(k8s, nullptr);
  expect_lacks(k8s->ListArtifacts("k1").status(), "kubernetes", "artifacts");
  expect_lacks(k8s->DownloadArtifacts("k1", "", dir_.path()).status(), "kubernetes",
               "artifacts");
  Queue queue;
  queue.name = "q";
  expect_lacks(k8s->CreateQueue(queue).status(), "kubernetes", "queues");
}

// -o json is the objects of a backend that has them; a command line has none.
TEST_F(CapabilityTest, OnlyABackendWithObjectsRendersJson) {
  JobSpec spec;
  spec.name = "train";
  ReplicaSpec worker;
  worker.role = "worker";
  worker.command = {"true"};
  spec.replicas.push_back(worker);
  ClientOptions options;
  options.config_path = config_;
  options.context = "hpc";
  absl::StatusOr<std::string> slurm = RenderJob(options, spec, RenderFormat::kJson);
  EXPECT_EQ(slurm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(slurm.status().message(), HasSubstr("-o json: the slurm backend renders a command"));
  options.context = "k8s";
  options.fields["image"] = "img:1";
  absl::StatusOr<std::string> k8s = RenderJob(options, spec, RenderFormat::kJson);
  ASSERT_TRUE(k8s.ok()) << k8s.status();
  EXPECT_THAT(*k8s, ::testing::StartsWith("[\n"));
  EXPECT_THAT(*k8s, HasSubstr("\"kind\": \"ConfigMap\""));
}

}  // namespace
}  // namespace dlp::testing
