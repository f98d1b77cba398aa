// PlaceGpus: whole devices, fractions packed best-fit onto one device,
// gpu_type filtering and MIG instances as devices.
#include "server/scheduler/gpu_placement.h"

#include <gtest/gtest.h>

namespace dlp::server {
namespace {

GpuDevice Device(std::string id, std::string name) {
  GpuDevice d{.id = std::move(id), .name = std::move(name)};
  d.uuid = "GPU-" + d.id;
  d.flavour = FlavourOf(d.name);
  return d;
}

const std::vector<GpuDevice> kH200s = {Device("0", "NVIDIA H200"), Device("1", "NVIDIA H200"),
                                       Device("2", "NVIDIA H200")};

ReplicaGpuDemand Replica(std::string name, int64_t millis, std::string type = "") {
  return {std::move(name), millis, std::move(type)};
}

std::vector<ReplicaPlacement> MustPlace(const std::vector<ReplicaGpuDemand>& replicas,
                                        const std::vector<GpuDevice>& devices, DeviceUse& use) {
  auto placed = PlaceGpus(replicas, devices, use);
  EXPECT_TRUE(placed.has_value());
  return placed.value_or(std::vector<ReplicaPlacement>{});
}

TEST(GpuPlacement, FractionsArePackedOntoOneDevice) {
  DeviceUse use;
  EXPECT_EQ(
      MustPlace({Replica("worker-0", 500), Replica("worker-1", 250)}, kH200s, use),
      (std::vector<ReplicaPlacement>{{"worker-0", {{"0", 500}}}, {"worker-1", {{"0", 250}}}}));
  // Another job's quarter goes to the same device, its fullest that fits.
  EXPECT_EQ(MustPlace({Replica("worker-0", 250)}, kH200s, use),
            (std::vector<ReplicaPlacement>{{"worker-0", {{"0", 250}}}}));
  EXPECT_EQ(use, (DeviceUse{{"0", 1000}}));
  // Device 0 is full: the next fraction opens device 1.
  EXPECT_EQ(MustPlace({Replica("worker-0", 500)}, kH200s, use),
            (std::vector<ReplicaPlacement>{{"worker-0", {{"1", 500}}}}));
}

TEST(GpuPlacement, BestFitKeepsWholeDevicesFree) {
  // 0.7 on device 0, 0.4 on device 1: a 0.3 goes to device 0 (fullest that
  // fits), so device 2 stays whole for a whole-GPU job.
  DeviceUse use = {{"0", 700}, {"1", 400}};
  EXPECT_EQ(MustPlace({Replica("w-0", 300)}, kH200s, use),
            (std::vector<ReplicaPlacement>{{"w-0", {{"0", 300}}}}));
  EXPECT_EQ(MustPlace({Replica("w-0", 1000)}, kH200s, use),
            (std::vector<ReplicaPlacement>{{"w-0", {{"2", 1000}}}}));
  // A whole GPU never takes a partly used device.
  EXPECT_FALSE(PlaceGpus({Replica("w-0", 1000)}, kH200s, use).has_value());
}

TEST(GpuPlacement, WholeGpusTakeUnusedDevicesAndAGangIsAllOrNothing) {
  DeviceUse use = {{"1", 500}};
  EXPECT_EQ(MustPlace({Replica("w-0", 2000)}, kH200s, use),
            (std::vector<ReplicaPlacement>{{"w-0", {{"0", 1000}, {"2", 1000}}}}));
  DeviceUse before = {{"0", 500}};
  use = before;
  // Two replicas of one GPU each: only two devices are free of use... one is not.
  EXPECT_FALSE(
      PlaceGpus({Replica("w-0", 1000), Replica("w-1", 1000), Replica("w-2", 1000)}, kH200s, use)
          .has_value());
  EXPECT_EQ(use, before);  // nothing held by a gang that does not fit
}

TEST(GpuPlacement, AGangsWholeGpusArePlacedBeforeItsFractions) {
  const std::vector<GpuDevice> mixed = {Device("0", "NVIDIA H200"),
                                        Device("1", "NVIDIA H100 80GB HBM3")};
  DeviceUse use;
  // The fraction (any type) must not take the only H200 the whole GPU needs.
  EXPECT_EQ(MustPlace({Replica("w-0", 500), Replica("w-1", 1000, "h200")}, mixed, use),
            (std::vector<ReplicaPlacement>{{"w-0", {{"1", 500}}}, {"w-1", {{"0", 1000}}}}));
}

TEST(GpuPlacement, GpuTypeRestrictsTheDevices) {
  const std::vector<GpuDevice> mixed = {Device("0", "NVIDIA H100 80GB HBM3"),
                                        Device("1", "NVIDIA H200")};
  DeviceUse use;
  EXPECT_EQ(MustPlace({Replica("w-0", 500, "h200")}, mixed, use),
            (std::vector<ReplicaPlacement>{{"w-0", {{"1", 500}}}}));
  EXPECT_EQ(MustPlace({Replica("w-0", 1000, "NVIDIA H100 80GB HBM3")}, mixed, use),
            (std::vector<ReplicaPlacement>{{"w-0", {{"0", 1000}}}}));
  EXPECT_FALSE(PlaceGpus({Replica("w-0", 1000, "h200")}, mixed, use).has_value());
  EXPECT_FALSE(PlaceGpus({Replica("w-0", 100, "a100")}, mixed, use).has_value());
}

TEST(GpuPlacement, MigInstancesArePlacedByTheirIds) {
  std::vector<GpuDevice> devices = {Device("MIG-aaaa", "NVIDIA H100 80GB HBM3 MIG 3g.40gb"),
                                    Device("MIG-bbbb", "NVIDIA H100 80GB HBM3 MIG 3g.40gb")};
  DeviceUse use;
  EXPECT_EQ(
      MustPlace({Replica("w-0", 1000), Replica("w-1", 500, "h100-80gb-hbm3-mig-3g.40gb")}, devices,
                use),
      (std::vector<ReplicaPlacement>{{"w-0", {{"MIG-aaaa", 1000}}}, {"w-1", {{"MIG-bbbb", 500}}}}));
  EXPECT_EQ(UseOf({RunningJob{.placement = {{"w-1", {{"MIG-bbbb", 500}}}}}}),
            (DeviceUse{{"MIG-bbbb", 500}}));
}

TEST(GpuPlacement, DevicesDefaultToIndicesFromCapacity) {
  Snapshot snapshot;
  snapshot.capacity.gpu_millis = 2000;
  const std::vector<GpuDevice> devices = DevicesOf(snapshot);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1].id, "1");
  snapshot.devices = {kH200s[2]};
  EXPECT_EQ(DevicesOf(snapshot), std::vector<GpuDevice>{kH200s[2]});
}

TEST(GpuPlacement, FlavourOfADeviceName) {
  EXPECT_EQ(FlavourOf("NVIDIA H100 80GB HBM3"), "h100-80gb-hbm3");
  EXPECT_EQ(FlavourOf(" NVIDIA H200 "), "h200");
  EXPECT_TRUE(MatchesGpuType(kH200s[0], "H200"));
  EXPECT_TRUE(MatchesGpuType(kH200s[0], "nvidia h200"));
  EXPECT_FALSE(MatchesGpuType(kH200s[0], "h100"));
}

}  // namespace
}  // namespace dlp::server
