// The declared GPU inventory: devices, MIG instances as their own devices, and
// errors that name the file, line and field.
#include "server/scheduler/gpu_inventory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using ::testing::HasSubstr;

constexpr char kInventory[] = R"(devices:
  - {index: 0, uuid: GPU-aaaa, name: NVIDIA H200, memory: 141Gi}
  - index: 1
    uuid: GPU-bbbb
    name: NVIDIA H100 80GB HBM3
    memory: 80Gi
    minor: 5
    mig:
      - {uuid: MIG-1111, profile: 3g.40gb, memory: 40Gi}
      - {uuid: 2222, name: 3g.40gb, memory: 40Gi}
)";

TEST(GpuInventory, MigInstancesReplaceTheirDevice) {
  absl::StatusOr<std::vector<PhysicalGpu>> gpus = ParseGpuInventory(kInventory, "inv.yaml");
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  const std::vector<GpuDevice> devices = SchedulableDevices(*gpus);
  ASSERT_EQ(devices.size(), 3u);
  // The device node: the index by default, else the declared minor (a MIG
  // instance's is its GPU's).
  EXPECT_EQ(devices[0],
            (GpuDevice{"0", "GPU-aaaa", "NVIDIA H200", "h200", int64_t{141} << 30, 0}));
  EXPECT_EQ(devices[1], (GpuDevice{"MIG-1111", "MIG-1111", "NVIDIA H100 80GB HBM3 MIG 3g.40gb",
                                   "h100-80gb-hbm3-mig-3g.40gb", int64_t{40} << 30, 5}));
  EXPECT_EQ(devices[2].id, "MIG-2222");  // the prefix CUDA_VISIBLE_DEVICES needs
  EXPECT_EQ(devices[2].flavour, "h100-80gb-hbm3-mig-3g.40gb");
}

TEST(GpuInventory, JsonIsAnInventoryToo) {
  absl::StatusOr<std::vector<PhysicalGpu>> gpus = ParseGpuInventory(
      R"({"devices": [{"index": 3, "uuid": "GPU-c", "name": "NVIDIA A100-SXM4-40GB",
          "memory": 42949672960, "mig": []}]})",
      "inv.json");
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  ASSERT_EQ(gpus->size(), 1u);
  EXPECT_EQ((*gpus)[0].memory_bytes, int64_t{40} << 30);
  // MIG mode without instances: nothing to schedule on that device.
  EXPECT_TRUE(SchedulableDevices(*gpus).empty());
}

TEST(GpuInventory, CapacityCountsDevicesAndFlavours) {
  const std::vector<GpuDevice> devices =
      SchedulableDevices(*ParseGpuInventory(kInventory, "inv.yaml"));
  const ResourceVector capacity = GpuCapacityOf(devices);
  EXPECT_EQ(capacity.gpu_millis, 3000);
  EXPECT_EQ(capacity.gpu_flavours,
            (std::map<std::string, int64_t>{{"h200", 1000}, {"h100-80gb-hbm3-mig-3g.40gb", 2000}}));
  EXPECT_EQ(DescribeDevices({devices[0]}), "1 device: 0 (NVIDIA H200, 141Gi)");
}

TEST(GpuInventory, ErrorsNameTheFileLineAndField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"devices: [{index: 0, uuid: GPU-a, name: X, memory: 80GB}]",
       "inv.yaml:1: devices[0].memory: \"80GB\" is not a memory quantity"},
      {"devices:\n  - {index: 0, uuid: GPU-a, name: X}\n  - {index: 0, uuid: GPU-b, name: Y}\n",
       "inv.yaml:3: devices[1]: index 0 is listed twice"},
      {"devices:\n  - {index: 0, name: X}\n", "inv.yaml:2: devices[0].uuid: required"},
      {"devices:\n  - {index: x, uuid: GPU-a, name: X}\n",
       "inv.yaml:2: devices[0].index: must be an integer from 0 to 1023"},
      {"devices:\n  - {index: 0, uuid: GPU-a, name: X, colour: red}\n",
       "inv.yaml:2: devices[0].colour: unknown field; expected one of index, memory, mig, minor, "
       "name, uuid"},
      {"devices:\n  - index: 0\n    uuid: GPU-a\n    name: X\n    mig:\n      - {profile: 1g}\n",
       "inv.yaml:6: devices[0].mig[0].uuid: required"},
      {"devices:\n  - index: 0\n    uuid: GPU-a\n    name: X\n    mig: {uuid: MIG-a}\n",
       "inv.yaml:5: devices[0].mig: must be a list of MIG instances"},
      {"gpus: []\n", "inv.yaml:1: gpus: unknown field; expected one of devices"},
      {"devices:\n  - {index: 0, uuid: GPU-a, name: X, minor: 254}\n",
       "inv.yaml:2: devices[0].minor: must be an integer from 0 to 253 (N of /dev/nvidiaN)"},
      {"devices: [\n", "invalid YAML"},
      {"- 1\n", "inv.yaml:1: (top): must be a map with a list of devices"},
  };
  for (const auto& [text, expected] : cases) {
    absl::StatusOr<std::vector<PhysicalGpu>> gpus = ParseGpuInventory(text, "inv.yaml");
    ASSERT_FALSE(gpus.ok()) << text;
    EXPECT_TRUE(absl::IsInvalidArgument(gpus.status()));
    EXPECT_THAT(gpus.status().message(), HasSubstr(expected)) << text;
  }
}

TEST(GpuInventory, ReadNamesAMissingFile) {
  dlp::testing::TempDir dir;
  EXPECT_TRUE(absl::IsNotFound(ReadGpuInventory(dir.Join("none.yaml")).status()));
  std::ofstream(dir.Join("inv.yaml")) << "devices: [{index: 0, uuid: GPU-a}]\n";
  EXPECT_THAT(ReadGpuInventory(dir.Join("inv.yaml")).status().message(),
              HasSubstr(dir.Join("inv.yaml") + ":1: devices[0].name: required"));
}

}  // namespace
}  // namespace dlp::server
