// The GPU device rules of a job's cgroup: which minors a placement allows, the
// v1 deny rules, and the v2 device program enforced by the kernel on device
// nodes made with mknod (no GPU needed: a node of an allowed device answers
// ENXIO without the driver, a denied one EPERM).
#include "server/executor/gpu_device_access.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(PlacedGpuMinors, AreTheMinorsOfThePlacedDevicesOnce) {
  const std::vector<GpuDevice> devices = {{.id = "0", .minor = 0},
                                          {.id = "1", .minor = 3},
                                          {.id = "MIG-a", .minor = 3},
                                          {.id = "MIG-b", .minor = 3}};
  const std::vector<ReplicaPlacement> placement = {
      {.replica = "worker-0", .gpus = {{.device = "MIG-a", .millis = 1000}}},
      {.replica = "worker-1", .gpus = {{.device = "MIG-b", .millis = 1000}}},
      {.replica = "worker-2", .gpus = {{.device = "0", .millis = 500}}}};
  EXPECT_THAT(PlacedGpuMinors(placement, devices), ElementsAre(0, 3));
}

TEST(PlacedGpuMinors, AnAnonymousDeviceIsItsNumber) {
  // `dlpd --gpus N`: devices "0".."N-1" with no inventory.
  EXPECT_THAT(PlacedGpuMinors({{.replica = "w", .gpus = {{.device = "2", .millis = 1000}}}}, {}),
              ElementsAre(2));
  EXPECT_THAT(PlacedGpuMinors({}, {}), IsEmpty());
}

TEST(GpuDenyRules, DenyEveryGpuNodeButTheAllowedOnes) {
  const std::vector<std::string> rules = GpuDenyRules({1, 7});
  EXPECT_EQ(rules.size(), 254u - 2);
  EXPECT_EQ(rules.front(), "c 195:0 rwm");
  EXPECT_EQ(rules.back(), "c 195:253 rwm");
  for (const char* kept : {"c 195:1 rwm", "c 195:7 rwm", "c 195:255 rwm", "c 195:254 rwm"}) {
    EXPECT_EQ(std::count(rules.begin(), rules.end(), kept), 0) << kept;
  }
  EXPECT_EQ(DescribeGpuNodes({1, 7}), "GPU devices /dev/nvidia1, /dev/nvidia7 only");
  EXPECT_EQ(DescribeGpuNodes({}), "no GPU device");
}

// This process's cgroup v2 folder ("" where none is mounted).
std::string OwnCgroupV2() {
  std::ifstream mounts("/proc/self/mounts");
  std::string device, point, type, rest, mount;
  while (mounts >> device >> point >> type && std::getline(mounts, rest)) {
    if (type == "cgroup2") mount = point;
  }
  std::ifstream own("/proc/self/cgroup");
  for (std::string line; std::getline(own, line);) {
    if (!mount.empty() && line.rfind("0::", 0) == 0) {
      const std::string path = line.substr(3);
      return path == "/" ? mount : mount + path;
    }
  }
  return "";
}

// Opens each of `nodes` from a child process moved into `cgroup`; the errno
// of each open (0: it opened).
std::vector<int> OpenErrorsIn(const std::string& cgroup, const std::vector<std::string>& nodes) {
  int out[2];
  if (pipe(out) != 0) return {};
  const std::string procs = cgroup + "/cgroup.procs";
  const pid_t child = fork();
  if (child == 0) {
    const int f = open(procs.c_str(), O_WRONLY);
    const std::string pid = std::to_string(getpid());
    if (f < 0 || write(f, pid.data(), pid.size()) != static_cast<ssize_t>(pid.size())) _exit(1);
    close(f);
    for (const std::string& node : nodes) {
      const int fd = open(node.c_str(), O_RDWR);
      const int err = fd < 0 ? errno : 0;
      if (write(out[1], &err, sizeof(err)) != sizeof(err)) _exit(1);
    }
    _exit(0);
  }
  close(out[1]);
  std::vector<int> errors;
  for (int err = 0; read(out[0], &err, sizeof(err)) == sizeof(err);) errors.push_back(err);
  close(out[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return errors;
}

TEST(GpuDeviceProgram, TheKernelLetsTheCgroupOpenOnlyItsGpus) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (mknod, BPF, a cgroup of its own)";
  const std::string own = OwnCgroupV2();
  if (own.empty()) GTEST_SKIP() << "no cgroup v2 hierarchy is mounted";
  const std::string cgroup = absl::StrCat(own, "/dlp-test-devices-", getpid());
  ASSERT_EQ(mkdir(cgroup.c_str(), 0755), 0) << cgroup << ": " << strerror(errno);
  dlp::testing::TempDir dir;
  const std::vector<std::pair<std::string, dev_t>> nodes = {
      {"nvidia0", makedev(195, 0)}, {"nvidia1", makedev(195, 1)},
      {"nvidiactl", makedev(195, 255)}, {"null", makedev(1, 3)}};
  std::vector<std::string> paths;
  for (const auto& [name, dev] : nodes) {
    paths.push_back(dir.Join(name));
    ASSERT_EQ(mknod(paths.back().c_str(), S_IFCHR | 0666, dev), 0) << strerror(errno);
  }
  const absl::Status attached = AttachGpuDeviceProgram(cgroup, {1});
  if (!attached.ok()) {
    rmdir(cgroup.c_str());
    GTEST_SKIP() << attached;
  }
  const std::vector<int> errors = OpenErrorsIn(cgroup, paths);
  rmdir(cgroup.c_str());
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0], EPERM) << "another GPU opened";
  EXPECT_NE(errors[1], EPERM) << "its own GPU refused";  // ENXIO without a driver
  EXPECT_NE(errors[2], EPERM) << "nvidiactl refused";
  EXPECT_EQ(errors[3], 0) << "/dev/null refused: " << strerror(errors[3]);
}

}  // namespace
}  // namespace dlp::server
