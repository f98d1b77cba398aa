// The fair-share history's arithmetic: exponential decay with a half-life,
// bounded averages, the store's rows, and the half-life's parsing.
#include "server/scheduler/fair_share_history.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dlp::server {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

RunningJob Holding(std::string queue, int64_t gpus, int64_t cpus = 0) {
  RunningJob job;
  job.queue = std::move(queue);
  job.demand = {cpus * 1000, 0, gpus * 1000};
  return job;
}

double Gpu(const FairShareHistory& h, const std::string& queue) {
  for (const QueueHistoryRow& row : h.Rows()) {
    if (row.queue == queue && row.resource == "gpu") return row.average;
  }
  return 0;
}

TEST(FairShareHistoryTest, UseConvergesByHalvesOfTheGap) {
  FairShareHistory h(absl::Hours(1));
  const std::vector<RunningJob> eight = {Holding("vision", 8)};
  h.Advance(kT0, eight);  // starts the clock
  EXPECT_EQ(Gpu(h, "vision"), 0);
  h.Advance(kT0 + absl::Hours(1), eight);
  EXPECT_NEAR(Gpu(h, "vision"), 4000, 1e-6);
  h.Advance(kT0 + absl::Hours(2), eight);
  EXPECT_NEAR(Gpu(h, "vision"), 6000, 1e-6);
  // Nothing runs for a half-life: half is forgotten.
  h.Advance(kT0 + absl::Hours(3), {});
  EXPECT_NEAR(Gpu(h, "vision"), 3000, 1e-6);
}

TEST(FairShareHistoryTest, ManySmallStepsEqualOneLargeOne) {
  FairShareHistory once(absl::Minutes(30)), often(absl::Minutes(30));
  const std::vector<RunningJob> jobs = {Holding("nlp", 3, 24), Holding("nlp", 1, 8)};
  once.Advance(kT0, jobs);
  often.Advance(kT0, jobs);
  once.Advance(kT0 + absl::Minutes(45), jobs);
  for (int i = 1; i <= 27000; ++i) often.Advance(kT0 + absl::Milliseconds(100) * i, jobs);
  const std::map<std::string, ResourceVector> a = once.Averages(), b = often.Averages();
  EXPECT_NEAR(a.at("nlp").gpu_millis, b.at("nlp").gpu_millis, 1);
  EXPECT_NEAR(a.at("nlp").cpu_millis, b.at("nlp").cpu_millis, 1);
  // 1 - 2^-1.5 of the 4 GPUs held.
  EXPECT_NEAR(a.at("nlp").gpu_millis, 4000 * (1 - std::exp2(-1.5)), 1);
}

TEST(FairShareHistoryTest, AClockSetBackChangesNothing) {
  FairShareHistory h(absl::Hours(1));
  h.Advance(kT0, {Holding("a", 2)});
  h.Advance(kT0 + absl::Hours(1), {Holding("a", 2)});
  h.Advance(kT0 - absl::Hours(5), {Holding("a", 64)});
  EXPECT_NEAR(Gpu(h, "a"), 1000, 1e-6);
  EXPECT_EQ(h.at(), kT0 + absl::Hours(1));
}

TEST(FairShareHistoryTest, AveragesStayWithinTheUseOverAnyGap) {
  FairShareHistory h(absl::Minutes(30));
  const std::vector<RunningJob> most = {Holding("big", std::numeric_limits<int64_t>::max() / 1000)};
  h.Advance(kT0, most);
  h.Advance(absl::InfiniteFuture(), most);  // a gap past every half-life
  h.Advance(absl::InfiniteFuture(), most);
  const ResourceVector avg = h.Averages().at("big");
  EXPECT_GT(avg.gpu_millis, 0);
  EXPECT_LE(avg.gpu_millis, std::numeric_limits<int64_t>::max());
  FairShareHistory g(absl::Hours(1));
  g.Advance(kT0, most);
  g.Advance(kT0 + absl::Hours(24 * 3650), most);
  EXPECT_NEAR(static_cast<double>(g.Averages().at("big").gpu_millis),
              static_cast<double>(std::numeric_limits<int64_t>::max() / 1000 * 1000), 1e4);
}

TEST(FairShareHistoryTest, QueuesWhoseUseHasDecayedAreForgotten) {
  FairShareHistory h(absl::Minutes(1));
  h.Advance(kT0, {Holding("gone", 1)});
  h.Advance(kT0 + absl::Minutes(1), {Holding("gone", 1)});
  EXPECT_TRUE(h.Averages().contains("gone"));
  h.Advance(kT0 + absl::Hours(2), {});
  EXPECT_FALSE(h.Averages().contains("gone"));
}

TEST(FairShareHistoryTest, ZeroHalfLifeKeepsNothing) {
  FairShareHistory h(absl::ZeroDuration());
  EXPECT_FALSE(h.enabled());
  h.Advance(kT0, {Holding("a", 2)});
  h.Advance(kT0 + absl::Hours(1), {Holding("a", 2)});
  EXPECT_TRUE(h.Rows().empty());
  Snapshot s;
  s.decayed_use["stale"] = {1, 1, 1};
  h.Fill(s);
  EXPECT_EQ(s.fair_share_half_life, absl::ZeroDuration());
  EXPECT_TRUE(s.decayed_use.empty());
}

TEST(FairShareHistoryTest, FillGivesTheSnapshotEveryQueueAndTheHalfLife) {
  FairShareHistory h(absl::Hours(2));
  RunningJob flavoured = Holding("vision", 2);
  flavoured.demand.gpu_flavours["h100"] = 2000;
  h.Advance(kT0, {flavoured, Holding("nlp", 0, 4)});
  h.Advance(kT0 + absl::Hours(2), {flavoured, Holding("nlp", 0, 4)});
  Snapshot s;
  h.Fill(s);
  EXPECT_EQ(s.fair_share_half_life, absl::Hours(2));
  ASSERT_EQ(s.decayed_use.size(), 2u);
  EXPECT_EQ(s.decayed_use.at("vision").gpu_millis, 1000);
  EXPECT_EQ(s.decayed_use.at("vision").gpu_flavours.at("h100"), 1000);
  EXPECT_EQ(s.decayed_use.at("nlp").cpu_millis, 2000);
}

TEST(FairShareHistoryTest, RowsRestoreAndBadRowsAreSkipped) {
  FairShareHistory h(absl::Hours(1));
  RunningJob flavoured = Holding("vision", 4, 32);
  flavoured.demand.gpu_flavours["h100"] = 4000;
  h.Advance(kT0, {flavoured});
  h.Advance(kT0 + absl::Hours(1), {flavoured});
  std::vector<QueueHistoryRow> rows = h.Rows();
  FairShareHistory back(absl::Hours(1));
  back.Restore(h.at(), rows);
  EXPECT_EQ(back.Rows(), rows);
  EXPECT_EQ(back.at(), h.at());
  // It goes on from `at`: another half-life of the same use.
  back.Advance(kT0 + absl::Hours(2), {flavoured});
  EXPECT_NEAR(Gpu(back, "vision"), 3000, 1e-6);

  rows.push_back({"x", "gpu", -1});
  rows.push_back({"y", "gpu", std::nan("")});
  rows.push_back({"z", "gpu", 1e300});
  rows.push_back({"w", "disk", 5});
  rows.push_back({"v", "gpu.", 5});
  FairShareHistory filtered(absl::Hours(1));
  filtered.Restore(kT0, rows);
  EXPECT_EQ(filtered.Averages().size(), 1u);
}

TEST(FairShareHistoryTest, ParseHalfLife) {
  EXPECT_EQ(*ParseHalfLife("0"), absl::ZeroDuration());
  EXPECT_EQ(*ParseHalfLife("30m"), absl::Minutes(30));
  EXPECT_EQ(*ParseHalfLife("1h"), absl::Hours(1));
  EXPECT_EQ(*ParseHalfLife("2d"), absl::Hours(48));
  EXPECT_EQ(*ParseHalfLife("30d"), kMaxFairShareHalfLife);
  for (const char* bad : {"", "abc", "-1h", "1", "1.5h", "31d", "5w"}) {
    EXPECT_FALSE(ParseHalfLife(bad).ok()) << bad;
  }
  EXPECT_EQ(ParseHalfLife("abc").status().message(),
            "expected a half-life such as 30m, 1h or 2d, or 0 (off), got \"abc\"");
}

}  // namespace
}  // namespace dlp::server
