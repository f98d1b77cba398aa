// Shared by the client tests: a temporary state folder served by a real dlpd
// (started on demand by the local backend), and small job specs.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "dlp/backend.h"
#include "dlp/client.h"
#include "dlp/config.h"
#include "dlp/job.h"
#include "dlp/local_server.h"
#include "gtest/gtest.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::testing {

class LocalDlpdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_dir_ = dir_.Join("state");
    // Nothing here may touch the real ~/.local/state/dlp.
    setenv("XDG_STATE_HOME", dir_.Join("xdg-state").c_str(), 1);
    setenv("XDG_CONFIG_HOME", dir_.Join("xdg-config").c_str(), 1);
    unsetenv("DLP_CONFIG");
    unsetenv("DLP_CONTEXT");
  }
  void TearDown() override {
    absl::Status stopped = StopLocalServer(ServerOptions());
    EXPECT_TRUE(stopped.ok()) << stopped;
  }

  LocalServerOptions ServerOptions() const {
    LocalServerOptions options;
    options.state_dir = state_dir_;
    options.dlpd_path = BinPath("dlpd");
    return options;
  }
  Context LocalContext(bool autostart = true) const {
    return Context{"local", "local",
                   {{"state-dir", state_dir_},
                    {"dlpd", BinPath("dlpd")},
                    {"autostart", autostart ? "true" : "false"}}};
  }
  std::unique_ptr<Client> NewClient(const Context& context) const {
    auto backend = CreateBackend(context);
    EXPECT_TRUE(backend.ok()) << backend.status();
    return std::make_unique<Client>(context, std::move(*backend));
  }
  std::unique_ptr<Client> NewLocalClient() const { return NewClient(LocalContext()); }

  // A job of `replicas` workers running `sh -c script`, light enough for any machine.
  JobSpec ShellJob(const std::string& name, const std::string& script, int replicas = 1) const {
    JobSpec spec;
    spec.name = name;
    spec.workdir = dir_.path();
    ReplicaSpec worker;
    worker.role = "worker";
    worker.count = replicas;
    worker.command = {"sh", "-c", script};
    worker.resources.cpu_millis = 100;
    spec.replicas.push_back(worker);
    return spec;
  }

  static int Mode(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 0777) : -1;
  }

  TempDir dir_;
  std::string state_dir_;
};

}  // namespace dlp::testing
