// The CLI's list of which backend offers which capability matches what each
// backend's accessors return, and the message for one it lacks names the
// command, the capability and the backends to use instead.
#include "capabilities.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "dlp/backend.h"
#include "dlp/client.h"
#include "support/temp_dir.h"

namespace dlp::cli {
namespace {

// A context for each backend that makes it without connecting to anything.
Context ContextFor(const std::string& backend, const dlp::testing::TempDir& dir) {
  Context context;
  context.name = backend;
  context.backend = backend;
  if (backend == "local") {
    context.fields = {{"state-dir", dir.Join("state")}, {"autostart", "false"}};
  } else if (backend == "remote") {
    context.fields = {{"server", "https://127.0.0.1:1"}};
  } else if (backend == "slurm") {
    context.fields = {{"workdir", dir.Join("slurm")}};
  }
  return context;
}

TEST(CapabilitiesTest, TheListOfWhoOffersWhatMatchesTheBackends) {
  dlp::testing::TempDir dir;
  ASSERT_FALSE(BackendNames().empty());
  for (const std::string& name : BackendNames()) {
    absl::StatusOr<std::unique_ptr<Backend>> backend = CreateBackend(ContextFor(name, dir));
    ASSERT_TRUE(backend.ok()) << name << ": " << backend.status();
    for (const CapabilityInfo& info : Capabilities()) {
      const bool listed = std::find(info.offered_by.begin(), info.offered_by.end(), name) !=
                          info.offered_by.end();
      EXPECT_EQ(Offers(**backend, info.capability), listed) << name << " " << info.name;
    }
    EXPECT_TRUE(Offers(**backend, Capability::kNone)) << name;
  }
}

TEST(CapabilitiesTest, ABackendWithoutItIsNamedWithTheCommandAndWhereToGo) {
  dlp::testing::TempDir dir;
  ClientOptions options;
  options.config_path = dir.WriteFile(
      "config.yaml", "current-context: hpc\ncontexts:\n"
                     "  - {name: hpc, backend: slurm, workdir: " + dir.Join("slurm") + "}\n"
                     "  - {name: k8s, backend: kubernetes}\n"
                     "  - {name: here, backend: local, autostart: \"false\"}\n");
  absl::Status status = CheckOffered(options, Capability::kTenantAdmin, "admin tenant list");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(status.message(),
            "the slurm backend does not offer tenants and tokens (`dlp admin tenant list` needs "
            "the tenant-admin capability); use the local or remote backend");
  EXPECT_TRUE(CheckOffered(options, Capability::kArtifacts, "artifacts list").ok());
  EXPECT_TRUE(CheckOffered(options, Capability::kNone, "submit").ok());

  options.context = "k8s";
  EXPECT_EQ(CheckOffered(options, Capability::kArtifacts, "artifacts get").message(),
            "the kubernetes backend does not offer artifacts (`dlp artifacts get` needs the "
            "artifacts capability); use the local, remote or slurm backend");
  options.context = "here";
  EXPECT_TRUE(CheckOffered(options, Capability::kTenantAdmin, "admin tenant list").ok());
  EXPECT_EQ(CheckOffered(options, Capability::kObjects, "render").message(),
            "the local backend does not offer rendering objects as JSON (`dlp render` needs "
            "the objects capability); use the kubernetes backend");
  // A context that does not resolve is the command's own error to report.
  options.context = "nowhere";
  EXPECT_TRUE(CheckOffered(options, Capability::kTenantAdmin, "admin tenant list").ok());
}

TEST(CapabilitiesTest, HelpSaysWhichBackendsOfferIt) {
  EXPECT_EQ(NeedsNote(Capability::kModels),
            "Needs the models capability (a model registry), which the local and remote "
            "backends offer.");
  EXPECT_EQ(NeedsNote(Capability::kObjects),
            "Needs the objects capability (rendering objects as JSON), which the kubernetes "
            "backend offers.");
}

}  // namespace
}  // namespace dlp::cli
