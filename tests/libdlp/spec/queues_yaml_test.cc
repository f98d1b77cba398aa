// Queues in YAML (dlpd --config FILE): what they read as, and errors that
// name the file, the line and the field.
#include "dlp/queue_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dlp {
namespace {

using ::testing::HasSubstr;

TEST(QueuesYaml, ReadsQueues) {
  absl::StatusOr<std::vector<Queue>> config = ParseQueuesYaml(R"(queues:
- name: vision
  cohort: lab
  nominal: {cpu: 8, memory: 64Gi, gpu: 4, gpu.h100: 2}
  borrowingLimit: {gpu: 2}
  lendingLimit: {cpu: 500m}
  weight: 2
  priorityRange: [-100, 1000]
- name: nlp
  nominal: {cpu: 0.5, gpu: 0.5}
)",
                                                          "dlpd.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ((*config).size(), 2u);
  const Queue& v = (*config)[0];
  EXPECT_EQ(v.name, "vision");
  EXPECT_EQ(v.cohort, "lab");
  EXPECT_EQ(FormatQueueResources(v.nominal),
            "cpu=8,memory=64Gi,gpu=4,gpu.h100=2");
  ASSERT_TRUE(v.borrowing_limit.has_value());
  EXPECT_EQ(v.borrowing_limit->gpu_millis, 2000);
  ASSERT_TRUE(v.lending_limit.has_value());
  EXPECT_EQ(v.lending_limit->cpu_millis, 500);
  EXPECT_EQ(v.weight, 2);
  EXPECT_EQ(v.min_priority, -100);
  EXPECT_EQ(v.max_priority, 1000);
  const Queue& n = (*config)[1];
  EXPECT_EQ(n.nominal.cpu_millis, 500);
  EXPECT_EQ(n.nominal.gpu_millis, 500);
  EXPECT_FALSE(n.borrowing_limit.has_value());
  EXPECT_EQ(n.weight, 1);
}

TEST(QueuesYaml, EmptyFileConfiguresNothing) {
  absl::StatusOr<std::vector<Queue>> config = ParseQueuesYaml("", "dlpd.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE((*config).empty());
}

TEST(QueuesYaml, ErrorsNameFileLineAndField) {
  struct Case {
    std::string yaml, message;
  };
  const std::vector<Case> cases = {
      {"queue: []\n", "dlpd.yaml:1:1: queue: unknown field; did you mean 'queues'?"},
      {"queues: {}\n", "dlpd.yaml:1:9: queues: expected a list of queues"},
      {"queues:\n- nominal: {cpu: 1}\n", "dlpd.yaml:2:3: queues[0].name: required"},
      {"queues:\n- name: a\n  nominal: {cpu: lots}\n",
       "dlpd.yaml:3:18: queues[0].nominal: cpu: \"lots\" is not a CPU quantity"},
      {"queues:\n- name: a\n  nominal: {disk: 1}\n",
       "dlpd.yaml:3:13: queues[0].nominal: \"disk\" is not a resource"},
      {"queues:\n- name: a\n  weight: 0\n",
       "dlpd.yaml:3:11: queues[0].weight: expected a whole number from 1 to 1000000"},
      {"queues:\n- name: a\n  priorityRange: [5, 1]\n",
       "dlpd.yaml:3:18: queues[0].priorityRange: expected MIN <= MAX"},
      {"queues:\n- name: a\n  borrowLimit: {gpu: 1}\n",
       "dlpd.yaml:3:3: queues[0].borrowLimit: unknown field; did you mean 'borrowingLimit'?"},
      {"queues:\n- name: Big Queue\n", "dlpd.yaml:2:9: queues[0].name: \"Big Queue\""},
      {"queues:\n- name: a\n- name: a\n",
       "dlpd.yaml:3:3: queues[1].name: queue \"a\" is named twice"},
      {"queues: [\n", "dlpd.yaml:"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<Queue>> config = ParseQueuesYaml(c.yaml, "dlpd.yaml");
    ASSERT_FALSE(config.ok()) << c.yaml;
    EXPECT_TRUE(absl::IsInvalidArgument(config.status())) << c.yaml;
    EXPECT_THAT(config.status().message(), HasSubstr(c.message)) << c.yaml;
  }
}

}  // namespace
}  // namespace dlp
