// The text forms of queue quotas: "cpu=8,memory=64Gi,gpu=4,gpu.h100=2" with
// the spec's quantities, GPU fractions, and priority ranges "-100..1000".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dlp/queue.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;

TEST(QueueResources, ParsesEveryResourceWithTheSpecsQuantities) {
  absl::StatusOr<QueueResources> r =
      ParseQueueResources("cpu=8,memory=64Gi,gpu=4,gpu.h100=2,gpu.a100-80gb=0.5");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cpu_millis, 8000);
  EXPECT_EQ(r->memory_bytes, int64_t{64} << 30);
  EXPECT_EQ(r->gpu_millis, 4000);
  EXPECT_EQ(r->gpu_flavours.at("h100"), 2000);
  EXPECT_EQ(r->gpu_flavours.at("a100-80gb"), 500);
  EXPECT_EQ(ParseQueueResources("cpu=500m")->cpu_millis, 500);
  EXPECT_EQ(ParseQueueResources("cpu=0.5")->cpu_millis, 500);
  EXPECT_EQ(ParseQueueResources(" gpu = 0.25 ")->gpu_millis, 250);
}

TEST(QueueResources, FormatIsExactAndReadsBack) {
  const std::vector<std::string> texts = {"cpu=8,memory=64Gi,gpu=4,gpu.h100=2", "cpu=0.5,gpu=0.25",
                                          "memory=1G", "cpu=0.001"};
  for (const std::string& text : texts) {
    absl::StatusOr<QueueResources> r = ParseQueueResources(text);
    ASSERT_TRUE(r.ok()) << text << ": " << r.status();
    EXPECT_EQ(FormatQueueResources(*r), text);
    EXPECT_EQ(*ParseQueueResources(FormatQueueResources(*r)), *r) << text;
  }
  EXPECT_EQ(FormatQueueResources({}), "");
}

TEST(QueueResources, BadEntriesNameTheResourceAndTheExpectedForm) {
  struct Case {
    std::string text, message;
  };
  const std::vector<Case> cases = {
      {"", "expected RESOURCE=QUANTITY"},
      {"cpu", "\"cpu\": expected RESOURCE=QUANTITY"},
      {"cpu=lots", "cpu: \"lots\" is not a CPU quantity"},
      {"memory=64GB", "memory: \"64GB\" is not a memory quantity"},
      {"gpu=0.0001", "gpu: \"0.0001\" is not a GPU quantity (finer than 0.001"},
      {"gpu=-1", "gpu: a quota must not be negative"},
      {"gpu.H100=1", "\"gpu.H100\" is not a resource"},
      {"disk=1",
       "\"disk\" is not a resource; expected RESOURCE=QUANTITY,... with RESOURCE cpu, "
       "memory, gpu or gpu.FLAVOUR"},
      {"cpu=1,cpu=2", "cpu: given twice"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<QueueResources> r = ParseQueueResources(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
    EXPECT_THAT(r.status().message(), HasSubstr(c.message)) << c.text;
  }
}

TEST(QueueResources, GpuQuantities) {
  EXPECT_EQ(*ParseGpuMillis("2"), 2000);
  EXPECT_EQ(*ParseGpuMillis("0.5"), 500);
  EXPECT_EQ(*ParseGpuMillis(".25"), 250);
  EXPECT_FALSE(ParseGpuMillis("500m").ok());
  EXPECT_FALSE(ParseGpuMillis("").ok());
}

TEST(QueueResources, PriorityRanges) {
  EXPECT_EQ(*ParsePriorityRange("-100..1000"), std::make_pair(-100, 1000));
  EXPECT_EQ(*ParsePriorityRange("5..5"), std::make_pair(5, 5));
  EXPECT_THAT(ParsePriorityRange("10..1").status().message(),
              HasSubstr("the minimum 10 is above the maximum 1"));
  EXPECT_THAT(ParsePriorityRange("high").status().message(), HasSubstr("expected MIN..MAX"));
  EXPECT_FALSE(ParsePriorityRange("1..").ok());
}

TEST(QueueCodec, QueueRoundTripsThroughJson) {
  Queue q;
  q.name = "vision";
  q.cohort = "lab";
  q.nominal = *ParseQueueResources("cpu=8,memory=64Gi,gpu=4,gpu.h100=2");
  q.borrowing_limit = *ParseQueueResources("gpu=2");
  q.weight = 2;
  q.min_priority = -100;
  q.max_priority = 1000;
  const std::string json = QueueToJson(q);
  EXPECT_EQ(json, R"({"name":"vision","cohort":"lab","nominal":{"cpu":"8","memory":"64Gi","gpu":4,)"
                  R"("gpu.h100":2},"borrowingLimit":{"cpu":"0","memory":"0","gpu":2},)"
                  R"("lendingLimit":null,"weight":2,"priorityRange":[-100,1000]})");
  absl::StatusOr<Queue> back = QueueFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, q);
  absl::StatusOr<std::vector<Queue>> list = QueuesFromJson(QueuesToJson({q, Queue{.name = "nlp"}}));
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[1].min_priority, INT_MIN);
  EXPECT_FALSE((*list)[1].borrowing_limit.has_value());
}

TEST(QueueCodec, QuantitiesReadAsNumbersOrStringsAndErrorsNameTheField) {
  absl::StatusOr<Queue> q =
      QueueFromJson(R"({"name":"a","nominal":{"cpu":"500m","memory":1024,"gpu":0.5}})");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->nominal.cpu_millis, 500);
  EXPECT_EQ(q->nominal.memory_bytes, 1024);
  EXPECT_EQ(q->nominal.gpu_millis, 500);
  EXPECT_THAT(QueueFromJson(R"({"name":"a","nominal":{"cpu":"x"}})").status().message(),
              HasSubstr("nominal.cpu: \"x\" is not a CPU quantity"));
  EXPECT_THAT(QueueFromJson(R"({"name":"a","weight":0})").status().message(),
              HasSubstr("weight: expected a positive integer"));
  EXPECT_THAT(QueueFromJson(R"({"name":"a","priorityRange":[5,1]})").status().message(),
              HasSubstr("priorityRange: expected MIN <= MAX"));
}

TEST(QueueCodec, UsageListIsABareArray) {
  QueueUsage u;
  u.name = "vision";
  u.used.gpu_millis = 1500;
  u.pending = 3;
  u.share = 0.25;
  const std::string json = QueueUsagesToJson({u});
  EXPECT_EQ(json.front(), '[');
  absl::StatusOr<std::vector<QueueUsage>> back = QueueUsagesFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].used.gpu_millis, 1500);
  EXPECT_EQ((*back)[0].pending, 3);
  EXPECT_DOUBLE_EQ((*back)[0].share, 0.25);
  EXPECT_FALSE((*back)[0].recent);  // no fair-share history: "recent": null
  EXPECT_NE(json.find("\"recent\":null"), std::string::npos) << json;
}

TEST(QueueCodec, UsageCarriesTheFairShareHistory) {
  QueueUsage u;
  u.name = "vision";
  u.recent = QueueResources{.cpu_millis = 3500, .gpu_millis = 1500};
  u.recent_percent = 75;
  u.half_life_seconds = 3600;
  absl::StatusOr<QueueUsage> back = QueueUsageFromJson(QueueUsageToJson(u));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->recent);
  EXPECT_EQ(*back->recent, *u.recent);
  EXPECT_EQ(back->recent_percent, 75);
  EXPECT_EQ(back->half_life_seconds, 3600);
}

}  // namespace
}  // namespace dlp
