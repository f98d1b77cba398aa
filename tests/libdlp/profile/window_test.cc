// Windows over a running job's traces: placed on each file's clock through its
// wall clock anchor, never before what the file had written, a fixed length.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dlp/profile.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace dlp {
namespace {

constexpr double kSteadyAnchorUs = 5e6;   // the file's clock at the anchor
constexpr double kWallAnchorUs = 1.7e15;  // the wall clock then
constexpr double kStepEveryUs = 100e3;

// A rank's file: `steps` steps of 10 ms every 100 ms from the anchor on, each
// with one allreduce inside; an anchor in dlp_meta when `anchor`.
TraceFile RankFile(int rank, int steps, bool anchor) {
  std::string s = "[\n";
  const std::string meta =
      anchor ? absl::StrFormat(R"(,"wall_anchor_us":%.0f,"steady_anchor_us":%.3f)", kWallAnchorUs,
                               kSteadyAnchorUs)
             : "";
  absl::StrAppend(
      &s,
      absl::StrFormat(R"({"name":"dlp_meta","ph":"M","pid":%d,"tid":0,"args":{"rank":%d%s}},)",
                      rank, rank, meta),
      "\n");
  for (int i = 0; i < steps; ++i) {
    const double t = kSteadyAnchorUs + i * kStepEveryUs;
    absl::StrAppend(
        &s,
        absl::StrFormat(
            R"({"name":"allreduce","cat":"comm","ph":"X","ts":%.3f,"dur":2000,"pid":%d,"tid":0,"args":{"bytes":64,"busbw_GBps":1}},)",
            t + 5e3, rank),
        "\n");
    absl::StrAppend(
        &s,
        absl::StrFormat(
            R"({"name":"step","cat":"step","ph":"X","ts":%.3f,"dur":10000,"pid":%d,"tid":0,"args":{"samples":8}},)",
            t, rank),
        "\n");
  }
  return {absl::StrCat("rank-", rank, ".trace.json"), s};
}

absl::Time Wall(double file_us) {
  return absl::UnixEpoch() + absl::Microseconds(kWallAnchorUs + (file_us - kSteadyAnchorUs));
}

int Steps(const Profile& p, int rank) {
  for (const RankProfile& r : p.per_rank) {
    if (r.rank == rank) return r.steps;
  }
  return -1;
}

TEST(ProfileWindow, WallClockAnchorPlacesTheWindow) {
  std::vector<TraceFile> files = {RankFile(0, 50, true), RankFile(1, 50, true)};
  // The files had written up to 1.0 s when the window opened at 2.05 s (their
  // buffers were not yet written out); the window lasts 1 s.
  std::map<std::string, double> flushed = {{"rank-0.trace.json", kSteadyAnchorUs + 1.0e6},
                                           {"rank-1.trace.json", kSteadyAnchorUs + 1.0e6}};
  ProfileOptions w =
      WindowOptions(files, flushed, Wall(kSteadyAnchorUs + 2.05e6), absl::Seconds(1));
  // Within a microsecond: wall clock microseconds since 1970 in a double.
  EXPECT_NEAR(w.after_us["rank-0.trace.json"], kSteadyAnchorUs + 2.05e6, 1);
  EXPECT_NEAR(w.before_us["rank-0.trace.json"], kSteadyAnchorUs + 3.05e6, 1);
  auto p = SummarizeTraces(files, w);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(Steps(*p, 0), 10);  // steps 21..30
  EXPECT_EQ(Steps(*p, 1), 10);
  EXPECT_EQ(p->allreduce_count, 20);

  // The merged trace holds only the window's events.
  auto merged = MergeTraces(files, w);
  ASSERT_TRUE(merged.ok()) << merged.status();
  nlohmann::json doc = nlohmann::json::parse(*merged);
  int spans = 0;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++spans;
    EXPECT_GE(e["ts"].get<double>(), 0);
    EXPECT_LT(e["ts"].get<double>(), 1e6) << e.dump();
  }
  EXPECT_EQ(spans, 40);
}

TEST(ProfileWindow, NeverBeforeWhatWasWritten) {
  std::vector<TraceFile> files = {RankFile(0, 50, true)};
  // A wall clock behind the job's host: the window starts after what was written.
  std::map<std::string, double> flushed = {{"rank-0.trace.json", kSteadyAnchorUs + 2.5e6}};
  ProfileOptions w =
      WindowOptions(files, flushed, Wall(kSteadyAnchorUs + 2.05e6), absl::Seconds(1));
  EXPECT_DOUBLE_EQ(w.after_us["rank-0.trace.json"], kSteadyAnchorUs + 2.5e6);
  EXPECT_DOUBLE_EQ(w.before_us["rank-0.trace.json"], kSteadyAnchorUs + 3.5e6);
  auto p = SummarizeTraces(files, w);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(Steps(*p, 0), 9);  // steps 26..34: the bounds themselves are out
}

TEST(ProfileWindow, WithoutAnAnchorStartsAfterWhatWasWritten) {
  std::vector<TraceFile> files = {RankFile(0, 50, false), RankFile(1, 50, false)};
  // rank-1's file did not exist yet: nothing bounds it.
  std::map<std::string, double> flushed = {{"rank-0.trace.json", kSteadyAnchorUs + 1.0e6}};
  ProfileOptions w =
      WindowOptions(files, flushed, Wall(kSteadyAnchorUs + 2.05e6), absl::Seconds(1));
  EXPECT_EQ(w.after_us.count("rank-1.trace.json"), 0u);
  auto p = SummarizeTraces(files, w);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(Steps(*p, 0), 9);  // steps 11..19
  EXPECT_EQ(Steps(*p, 1), 50);
}

TEST(ProfileWindow, WrittenOnceEveryFilePassedTheEnd) {
  std::map<std::string, double> flushed = {{"rank-0.trace.json", kSteadyAnchorUs},
                                           {"rank-1.trace.json", kSteadyAnchorUs}};
  const absl::Time start = Wall(kSteadyAnchorUs + 1.0e6);
  // rank-1 has written up to 2.0 s, short of the window's end at 2.5 s.
  std::vector<TraceFile> partial = {RankFile(0, 50, true), RankFile(1, 21, true)};
  EXPECT_FALSE(
      WindowWritten(partial, WindowOptions(partial, flushed, start, absl::Milliseconds(1500))));
  std::vector<TraceFile> full = {RankFile(0, 50, true), RankFile(1, 26, true)};
  EXPECT_TRUE(WindowWritten(full, WindowOptions(full, flushed, start, absl::Milliseconds(1500))));
}

}  // namespace
}  // namespace dlp
