// Which context and backend a Client gets (ResolveContext, the backend
// override of `dlp render --backend`), and the one client-side spec check.
#include <cstdlib>

#include "dlp/client.h"
#include "dlp/spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class ClientContextTest : public ::testing::Test {
 protected:
  // Nothing here may touch the real ~/.local/state/dlp.
  void SetUp() override {
    setenv("XDG_STATE_HOME", dir_.Join("state").c_str(), 1);
    unsetenv("DLP_CONTEXT");
  }

  ClientOptions Options(const std::string& backend = "") const {
    ClientOptions options;
    options.config_path = config_;
    options.backend = backend;
    return options;
  }

  TempDir dir_;
  const std::string config_ = dir_.WriteFile(
      "config.yaml",
      "current-context: team\ncontexts:\n"
      "  - {name: team, backend: remote, server: 'http://127.0.0.1:1', partition: gpu}\n"
      "  - {name: mine, backend: local}\n"
      "  - {name: clear, backend: remote, server: 'http://192.0.2.1:8470', token: t}\n");
};

// Refused before any connection: the token never leaves the process.
TEST_F(ClientContextTest, ARemoteContextRefusesPlainHttpToAnotherMachine) {
  ClientOptions options = Options();
  options.context = "clear";
  absl::StatusOr<std::unique_ptr<Client>> client = Client::Create(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(client.status().message(), HasSubstr("bearer token in clear"));
}

TEST_F(ClientContextTest, ResolvesTheCurrentOrNamedContext) {
  absl::StatusOr<Context> current = ResolveContext(Options());
  ASSERT_TRUE(current.ok()) << current.status();
  EXPECT_EQ(current->name, "team");
  EXPECT_EQ(current->backend, "remote");
  ClientOptions named = Options();
  named.context = "mine";
  EXPECT_EQ(ResolveContext(named)->backend, "local");
  named.context = "nope";
  EXPECT_EQ(ResolveContext(named).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ClientContextTest, ABackendOverrideKeepsTheContextsFields) {
  absl::StatusOr<Context> slurm = ResolveContext(Options("slurm"));
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->name, "team");
  EXPECT_EQ(slurm->backend, "slurm");
  EXPECT_EQ(slurm->Field("partition"), "gpu");
  EXPECT_EQ(ResolveContext(Options("remote"))->backend, "remote");
}

TEST_F(ClientContextTest, AnOverrideMustNameABuiltBackend) {
  for (const std::string name : {"nomad", "ray"}) {
    absl::StatusOr<Context> context = ResolveContext(Options(name));
    EXPECT_EQ(context.status().code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_EQ(context.status().message(),
              "unknown backend '" + name + "': expected one of local, remote, slurm, kubernetes");
    EXPECT_EQ(Client::Create(Options(name)).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST_F(ClientContextTest, RenderChecksTheSpecForEveryBackend) {
  JobSpec spec;
  spec.name = "Not_A_Name";
  spec.workdir = "/work";
  ReplicaSpec worker;
  worker.role = "worker";
  worker.command = {"true"};
  spec.replicas.push_back(worker);
  for (const std::string backend : {"local", "remote", "slurm"}) {
    absl::StatusOr<std::unique_ptr<Client>> client = Client::Create(Options(backend));
    ASSERT_TRUE(client.ok()) << backend << ": " << client.status();
    absl::StatusOr<std::string> rendered = (*client)->Render(spec);
    EXPECT_EQ(rendered.status().code(), absl::StatusCode::kInvalidArgument) << backend;
    EXPECT_THAT(rendered.status().message(), HasSubstr("metadata.name")) << backend;
  }
  spec.name = "fine";
  absl::StatusOr<std::unique_ptr<Client>> slurm = Client::Create(Options("slurm"));
  ASSERT_TRUE(slurm.ok());
  absl::StatusOr<std::string> script = (*slurm)->Render(spec);
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, HasSubstr("#SBATCH"));
}

}  // namespace
}  // namespace dlp::testing
