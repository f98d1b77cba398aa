// `dlpd --config FILE`: the file read, its queues as the scheduler takes them
// (the YAML itself: tests/libdlp/spec/queues_yaml_test.cc).
#include "server/daemon/daemon_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/store/queue_store.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

using ::testing::HasSubstr;

TEST(DaemonConfig, ReadsQueuesAsTheSchedulerTakesThem) {
  absl::StatusOr<DaemonConfig> config = ParseDaemonConfig(R"(queues:
- name: vision
  cohort: lab
  nominal: {cpu: 8, memory: 64Gi, gpu: 4, gpu.h100: 2}
  borrowingLimit: {gpu: 2}
)",
                                                          "dlpd.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->queues.size(), 1u);
  const QueueConfig& v = config->queues[0];
  EXPECT_EQ(v.name, "vision");
  EXPECT_EQ(v.cohort, "lab");
  EXPECT_EQ(FormatQueueResources(ToQueueResources(v.nominal)),
            "cpu=8,memory=64Gi,gpu=4,gpu.h100=2");
  ASSERT_TRUE(v.borrowing_limit.has_value());
  EXPECT_EQ(v.borrowing_limit->gpu_millis, 2000);
  EXPECT_FALSE(v.lending_limit.has_value());
}

TEST(DaemonConfig, LoadNamesAMissingFile) {
  testing::TempDir dir;
  EXPECT_THAT(LoadDaemonConfig(dir.Join("none.yaml")).status().message(),
              HasSubstr("none.yaml: cannot read the file"));
  const std::string path = dir.WriteFile("dlpd.yaml", "queues:\n- name: a\n  weight: x\n");
  EXPECT_THAT(LoadDaemonConfig(path).status().message(),
              HasSubstr(path + ":3:11: queues[0].weight: expected an integer"));
}

}  // namespace
}  // namespace dlp::server
