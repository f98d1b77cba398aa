// GPUs from a declared inventory (`dlpd --gpu-inventory`): the exact
// CUDA_VISIBLE_DEVICES each replica receives, two half-GPU jobs sharing one
// device while whole-GPU replicas take MIG instances, gpuType, the placement
// across a daemon restart, and `dlp describe`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <map>

#include "dlpd_fixture.h"

namespace dlp::testing {
namespace {

// Device 0 whole; device 1 in MIG mode with two instances.
constexpr char kInventory[] = R"(devices:
  - {index: 0, uuid: GPU-0000, name: NVIDIA H200, memory: 141Gi}
  - index: 1
    uuid: GPU-1111
    name: NVIDIA H100 80GB HBM3
    memory: 80Gi
    mig:
      - {uuid: MIG-aaaa, profile: 3g.40gb, memory: 40Gi}
      - {uuid: MIG-bbbb, profile: 3g.40gb, memory: 40Gi}
)";

class DlpdGpuTest : public ::testing::Test {
 protected:
  DlpdGpuTest() { inventory_ = dir_.WriteFile("inventory.yaml", kInventory); }

  // dlpd on the state folder the `local` context of `dlp` uses, with no MPS.
  std::unique_ptr<Dlpd> Start() {
    RunOptions options;
    options.env = {{"CUDA_MPS_PIPE_DIRECTORY", dir_.Join("no-mps")}};
    auto dlpd = std::make_unique<Dlpd>(
        State(), std::vector<std::string>{"--gpu-inventory", inventory_, "--cpus", "16"}, options);
    EXPECT_TRUE(dlpd->WaitReady()) << dlpd->process().OutputSoFar();
    return dlpd;
  }
  std::string State() const { return dir_.Join("xdg/dlp"); }
  std::string Go() const { return dir_.Join("go"); }

  // A job whose replicas print what they were given, then wait for Go().
  JobSpec GpuJob(const std::string& name, int64_t gpu_millis, int count = 1,
                 const std::string& gpu_type = "") const {
    JobSpec spec = ShellJob(name,
                            "echo \"visible=[$CUDA_VISIBLE_DEVICES]\"; while [ ! -e " + Go() +
                                " ]; do sleep 0.05; done",
                            count, "100");
    spec.replicas[0].resources.gpu_millis = gpu_millis;
    spec.replicas[0].resources.gpu_type = gpu_type;
    return spec;
  }

  std::string Submit(httplib::Client& client, const JobSpec& spec) {
    int status = 0;
    nlohmann::json job = SubmitJson(client, spec, &status);
    EXPECT_EQ(status, 201) << job.dump();
    return job.value("id", "");
  }

  // What the replica printed, once it has: "visible=[...]".
  std::string Visible(const std::string& id, const std::string& replica) {
    const std::string log = State() + "/jobs/" + id + "/logs/" + replica + ".log";
    std::string line;
    Eventually([&] {
      const std::string text = ReadFileOrEmpty(log);
      const size_t at = text.find("visible=[");
      if (at == std::string::npos || text.find(']', at) == std::string::npos) return false;
      line = text.substr(at, text.find(']', at) - at + 1);
      return true;
    });
    return line;
  }

  std::map<std::string, int64_t> Used(httplib::Client& client) {
    std::map<std::string, int64_t> used;
    const nlohmann::json gpus = GetJson(client, "/v1/gpus");
    for (const auto& d : gpus["devices"]) {
      used[d.value("id", "")] = d.value("usedMillis", int64_t{-1});
    }
    return used;
  }

  RunResult Dlp(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {BinPath("dlp")};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.env = {{"XDG_STATE_HOME", dir_.Join("xdg")},
                   {"XDG_CONFIG_HOME", dir_.Join("config")},
                   {"DLP_CONFIG", dir_.Join("no-such-config.yaml")},
                   {"NO_COLOR", "1"}};
    options.unset_env = {"DLP_CONTEXT"};
    return dlp::testing::Run(argv, options);
  }

  TempDir dir_;
  std::string inventory_;
};

TEST_F(DlpdGpuTest, TwoHalvesShareOneDeviceWhileWholeGpusTakeMigInstances) {
  REQUIRE_DLP_RUN();
  auto dlpd = Start();
  auto client = dlpd->Client();
  const auto devices = GetJson(*client, "/v1/gpus")["devices"];
  ASSERT_EQ(devices.size(), 3u) << devices.dump();
  EXPECT_EQ(devices[0].value("id", ""), "0");
  EXPECT_EQ(devices[0].value("flavour", ""), "h200");
  EXPECT_EQ(devices[1].value("id", ""), "MIG-aaaa");
  EXPECT_EQ(devices[2].value("name", ""), "NVIDIA H100 80GB HBM3 MIG 3g.40gb");
  EXPECT_EQ(GetJson(*client, "/v1/health")["capacity"].value("gpus", 0), 3);

  const std::string a = Submit(*client, GpuJob("half-a", 500));
  const std::string b = Submit(*client, GpuJob("half-b", 500, 1, "NVIDIA H200"));
  // A chief without GPUs and two whole-GPU workers of the MIG flavour.
  JobSpec whole = GpuJob("whole", 1000, 2, "h100-80gb-hbm3-mig-3g.40gb");
  ReplicaSpec chief = ShellJob("c", "echo \"visible=[$CUDA_VISIBLE_DEVICES]\"").replicas[0];
  chief.role = "chief";
  chief.resources.cpu_millis = 100;
  whole.replicas.insert(whole.replicas.begin(), chief);
  const std::string w = Submit(*client, whole);

  EXPECT_EQ(Visible(a, "worker-0"), "visible=[0]");
  EXPECT_EQ(Visible(b, "worker-0"), "visible=[0]");
  EXPECT_EQ(Visible(w, "chief-0"), "visible=[]");
  EXPECT_EQ(Visible(w, "worker-0"), "visible=[MIG-aaaa]");
  EXPECT_EQ(Visible(w, "worker-1"), "visible=[MIG-bbbb]");
  // Both halves run at once on device 0 (neither can end before Go()).
  EXPECT_EQ(GetJson(*client, "/v1/jobs/" + a).value("state", ""), "Running");
  EXPECT_EQ(GetJson(*client, "/v1/jobs/" + b).value("state", ""), "Running");
  EXPECT_EQ(Used(*client),
            (std::map<std::string, int64_t>{{"0", 1000}, {"MIG-aaaa", 1000}, {"MIG-bbbb", 1000}}));

  const auto job = GetJson(*client, "/v1/jobs/" + a);
  EXPECT_EQ(job.value("gpuSharing", ""), "by placement only (no MPS control daemon)");
  EXPECT_EQ(job["replicas"][0]["gpus"], nlohmann::json::parse(R"([{"device":"0","millis":500}])"));
  const auto whole_job = GetJson(*client, "/v1/jobs/" + w);
  EXPECT_FALSE(whole_job.contains("gpuSharing"));
  EXPECT_FALSE(whole_job["replicas"][0].contains("gpus"));  // the chief holds none
  EXPECT_EQ(whole_job["replicas"][2]["gpus"],
            nlohmann::json::parse(R"([{"device":"MIG-bbbb","millis":1000}])"));
  RunResult described = Dlp({"describe", a});
  EXPECT_EQ(described.exit_code, 0) << described.err;
  EXPECT_NE(described.out.find("GPU sharing: by placement only (no MPS control daemon)"),
            std::string::npos)
      << described.out;
  EXPECT_NE(described.out.find("GPUS"), std::string::npos) << described.out;
  EXPECT_NE(described.out.find("0 (0.5)"), std::string::npos) << described.out;

  // Everything is taken: a third half waits, and a type no device has is refused.
  const std::string c = Submit(*client, GpuJob("half-c", 500));
  EXPECT_EQ(GetJson(*client, "/v1/jobs/" + c).value("state", ""), "Queued");
  int status = 0;
  nlohmann::json refused = SubmitJson(*client, GpuJob("a100", 500, 1, "a100"), &status);
  EXPECT_EQ(status, 400) << refused.dump();
  EXPECT_NE(refused.dump().find("cannot be placed"), std::string::npos) << refused.dump();

  std::ofstream(Go()) << "go";
  for (const std::string& id : {a, b, w, c}) {
    EXPECT_EQ(WaitJob(*client, id).value("state", ""), "Succeeded") << id;
  }
  // Whichever job ended first freed its device for it.
  EXPECT_THAT(Visible(c, "worker-0"),
              ::testing::AnyOf("visible=[0]", "visible=[MIG-aaaa]", "visible=[MIG-bbbb]"));
}

TEST_F(DlpdGpuTest, APlacementSurvivesADaemonRestart) {
  REQUIRE_DLP_RUN();
  std::string a;
  {
    auto dlpd = Start();
    a = Submit(*dlpd->Client(), GpuJob("half-a", 500));
    ASSERT_EQ(Visible(a, "worker-0"), "visible=[0]");
    dlpd->process().Signal(SIGKILL);
    dlpd->process().Wait(absl::Seconds(10));
    dlpd->KeepJobsRunning();
  }
  auto dlpd = Start();
  auto client = dlpd->Client();
  EXPECT_EQ(GetJson(*client, "/v1/jobs/" + a).value("state", ""), "Running");
  EXPECT_EQ(Used(*client)["0"], 500);
  // Half of device 0 is still free (not the whole device held), so the next
  // half joins it and a whole GPU goes elsewhere.
  const std::string b = Submit(*client, GpuJob("half-b", 500));
  const std::string w = Submit(*client, GpuJob("whole", 1000));
  EXPECT_EQ(Visible(b, "worker-0"), "visible=[0]");
  EXPECT_EQ(Visible(w, "worker-0"), "visible=[MIG-aaaa]");
  std::ofstream(Go()) << "go";
  for (const std::string& id : {a, b, w}) {
    EXPECT_EQ(WaitJob(*client, id).value("state", ""), "Succeeded") << id;
  }
}

TEST_F(DlpdGpuTest, ABadInventoryStopsDlpdNamingTheLineAndField) {
  const std::string bad =
      dir_.WriteFile("bad.yaml", "devices:\n  - {index: 0, uuid: GPU-a, name: X, memory: 8GB}\n");
  RunResult r = dlp::testing::Run({BinPath("dlpd"), "--state-dir", dir_.Join("bad-state"),
                                   "--listen", "127.0.0.1:0", "--gpu-inventory", bad});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(bad + ":2: devices[0].memory: \"8GB\" is not a memory quantity"),
            std::string::npos)
      << r.err;
  r = dlp::testing::Run({BinPath("dlpd"), "--state-dir", dir_.Join("bad-state"), "--gpus", "2",
                         "--gpu-inventory", inventory_});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--gpus and --gpu-inventory exclude each other"), std::string::npos);
}

TEST_F(DlpdGpuTest, AStartThatFailsLeavesNoCgroupFolder) {
  const std::string bad = dir_.WriteFile("bad.yaml", "devices: 3\n");
  RunResult r = dlp::testing::Run({BinPath("dlpd"), "--state-dir", dir_.Join("bad-state"),
                                   "--listen", "127.0.0.1:0", "--gpu-inventory", bad});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::vector<std::string> bases = CgroupBases(dir_.Join("bad-state"));
  if (bases.empty()) GTEST_SKIP() << "this machine gives dlpd no cgroup to limit jobs with";
  for (const std::string& base : bases) {
    EXPECT_FALSE(std::filesystem::exists(base)) << base << " is left behind";
  }
}

}  // namespace
}  // namespace dlp::testing
