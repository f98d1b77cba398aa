// RecordProfileWindow over a scripted source of trace files: it reads before
// the window, then until every rank wrote past its end, the job stopped, or
// the caller cancelled.
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "dlp/profile.h"
#include "gtest/gtest.h"

namespace dlp {
namespace {

// One step event at `ts` µs; with a wall clock anchor from long ago when
// `anchor`, so that a window opened now lies far past what the file holds.
TraceFile RankFile(double ts, bool anchor) {
  const std::string meta = anchor ? R"(,"wall_anchor_us":1.7e15,"steady_anchor_us":0)" : "";
  return {
      "rank-0.trace.json",
      absl::StrFormat(
          "[\n{\"name\":\"dlp_meta\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"rank\":0%s}},\n"
          "{\"name\":\"step\",\"cat\":\"step\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":1000,"
          "\"pid\":0,\"tid\":0},\n",
          meta, ts)};
}

struct Source {
  std::vector<TraceFile> files;
  int reads = 0;
  TraceSource Get() {
    return [this]() -> absl::StatusOr<std::vector<TraceFile>> {
      ++reads;
      return files;
    };
  }
};

TEST(RecordProfileWindow, ASourceErrorEndsItBeforeTheWindowOpens) {
  int opened = 0;
  ProfileWindowOptions options;
  options.on_open = [&] { ++opened; };
  absl::StatusOr<WindowedTraces> w = RecordProfileWindow(
      [] { return absl::StatusOr<std::vector<TraceFile>>(absl::NotFoundError("no job 9")); },
      options);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(opened, 0);
}

TEST(RecordProfileWindow, StopsReadingOnceEveryRankWrotePastTheEnd) {
  // Without an anchor the window starts after what was written; a zero-length
  // window therefore ends there, and the file reaches it at once.
  Source source{{RankFile(5000, false)}};
  ProfileWindowOptions options;
  options.length = absl::ZeroDuration();
  options.running = [] {
    ADD_FAILURE() << "asked whether the job runs although the window was written";
    return true;
  };
  absl::StatusOr<WindowedTraces> w = RecordProfileWindow(source.Get(), options);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->windowed);
  EXPECT_EQ(source.reads, 2);  // before and after
  ASSERT_EQ(w->files.size(), 1u);
  EXPECT_DOUBLE_EQ(w->options.after_us.at("rank-0.trace.json"), 5000);
  EXPECT_DOUBLE_EQ(w->options.before_us.at("rank-0.trace.json"), 5000);
}

TEST(RecordProfileWindow, WaitsForWritesUntilTheJobStops) {
  Source source{{RankFile(5000, true)}};
  int polls = 0;
  ProfileWindowOptions options;
  options.length = absl::ZeroDuration();
  options.write_grace = absl::Hours(1);
  options.running = [&] { return ++polls < 2; };
  absl::StatusOr<WindowedTraces> w = RecordProfileWindow(source.Get(), options);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->windowed);
  EXPECT_EQ(polls, 2);
  EXPECT_EQ(source.reads, 3);
  EXPECT_FALSE(WindowWritten(w->files, w->options));
}

TEST(RecordProfileWindow, CancellingClosesTheWindowAndStopsWaiting) {
  Source source{{RankFile(5000, true)}};
  int opened = 0;
  ProfileWindowOptions options;
  options.length = absl::Hours(1);
  options.write_grace = absl::Hours(1);
  options.on_open = [&] { ++opened; };
  options.cancelled = [] { return true; };
  absl::StatusOr<WindowedTraces> w = RecordProfileWindow(source.Get(), options);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(opened, 1);
  EXPECT_EQ(source.reads, 2);
  // The window covers the time until it was cancelled, not the hour asked for.
  const double length_us =
      w->options.before_us.at("rank-0.trace.json") - w->options.after_us.at("rank-0.trace.json");
  EXPECT_LT(length_us, 3600e6);
}

}  // namespace
}  // namespace dlp
