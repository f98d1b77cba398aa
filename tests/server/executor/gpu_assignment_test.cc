// A job's placement as the group file's per-replica devices, with and without
// an MPS control daemon.
#include "server/executor/gpu_assignment.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "support/temp_dir.h"

namespace dlp::server {
namespace {

contract::Group TwoRoles() {
  contract::Group group;
  group.roles.push_back({"chief", 1, {"true"}, {}, 0, {}});
  group.roles.push_back({"worker", 2, {"true"}, {}, 1, {}});
  return group;
}

const std::vector<GpuDevice> kDevices = {
    {.id = "0",
     .uuid = "GPU-a",
     .name = "NVIDIA H200",
     .flavour = "h200",
     .memory_bytes = int64_t{80} << 30},
    {.id = "MIG-b", .uuid = "MIG-b", .name = "NVIDIA H100 MIG 3g.40gb", .flavour = "x"}};

const std::vector<ReplicaPlacement> kPlacement = {{"worker-0", {{"0", 500}}},
                                                  {"worker-1", {{"MIG-b", 250}}}};

TEST(GpuAssignment, EachReplicaGetsExactlyItsDevices) {
  contract::Group group = TwoRoles();
  AssignDevices(kPlacement, kDevices, /*mps=*/false, group);
  ASSERT_EQ(group.roles[0].devices.size(), 1u);
  EXPECT_EQ(group.roles[0].devices[0], contract::ReplicaDevices{});  // none: ""
  ASSERT_EQ(group.roles[1].devices.size(), 2u);
  EXPECT_EQ(group.roles[1].devices[0],
            (contract::ReplicaDevices{"0", {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}}));
  EXPECT_EQ(group.roles[1].devices[1].visible, "MIG-b");
}

TEST(GpuAssignment, UnderMpsAFractionGetsItsShareOfThreadsAndMemory) {
  contract::Group group = TwoRoles();
  AssignDevices(kPlacement, kDevices, /*mps=*/true, group);
  EXPECT_EQ(group.roles[1].devices[0].env,
            (std::map<std::string, std::string>{{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
                                                {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "50"},
                                                {"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=40960M"}}));
  // Memory unknown: the thread share alone.
  EXPECT_EQ(group.roles[1].devices[1].env,
            (std::map<std::string, std::string>{{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
                                                {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25"}}));
  // A whole device is not limited.
  group = TwoRoles();
  AssignDevices({{"worker-0", {{"0", 1000}}}}, kDevices, true, group);
  EXPECT_EQ(group.roles[1].devices[0].env.size(), 1u);
}

TEST(GpuAssignment, TheSharingIsDescribedForTheJob) {
  JobRecord record;
  record.placement = kPlacement;
  contract::Group group = TwoRoles();
  setenv("CUDA_MPS_PIPE_DIRECTORY", "/nonexistent/mps", 1);
  EXPECT_EQ(AssignJobDevices(record, kDevices, group), " on GPUs worker-0 0, worker-1 MIG-b");
  EXPECT_EQ(record.job.gpu_sharing, "by placement only (no MPS control daemon)");
  record.placement = {{"worker-0", {{"0", 1000}}}};
  AssignJobDevices(record, kDevices, group);
  EXPECT_EQ(record.job.gpu_sharing, "");  // nothing shared
  unsetenv("CUDA_MPS_PIPE_DIRECTORY");
}

TEST(GpuAssignment, AnMpsControlSocketIsDetected) {
  dlp::testing::TempDir dir;
  setenv("CUDA_MPS_PIPE_DIRECTORY", dir.path().c_str(), 1);
  EXPECT_FALSE(MpsControlDaemonRunning());
  // A plain file named control is not a daemon's socket.
  dir.WriteFile("control", "");
  EXPECT_FALSE(MpsControlDaemonRunning());
  unlink(dir.Join("control").c_str());
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = dir.Join("control");
  ASSERT_LT(path.size(), sizeof(addr.sun_path));
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_TRUE(MpsControlDaemonRunning());
  close(fd);
  unsetenv("CUDA_MPS_PIPE_DIRECTORY");
}

}  // namespace
}  // namespace dlp::server
