// Profile summaries, merged traces and metrics over synthetic rank traces in
// the runtime's file format (one event per line, maybe unterminated).

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dlp/profile.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace dlp {
namespace {

using nlohmann::json;

// A rank's file: `steps` steps of data/forward/backward/allreduce/optimizer;
// `data_ms` on this rank, everyone waits for the slowest (`slowest_data_ms`).
TraceFile RankFile(int rank, int steps, double data_ms, double slowest_data_ms,
                   double offset_us = 0, double clock_base_us = 1e6, bool close = true,
                   int restart = 0) {
  std::string s = "[\n";
  auto line = [&](const std::string& l) { absl::StrAppend(&s, l, ",\n"); };
  line(absl::StrFormat(R"({"name":"dlp_meta","ph":"M","pid":%d,"tid":0,"args":{"rank":%d,"world_size":4,"restart":%d,"host":"h%d"}})",
                       rank, rank, restart, rank));
  line(absl::StrFormat(R"({"name":"dlp_clock_offset","ph":"M","pid":%d,"tid":0,"args":{"offset_us":%.3f,"rtt_us":10}})",
                       rank, offset_us));
  double t = clock_base_us - offset_us;  // each host's own clock
  auto span = [&](const char* name, const char* cat, double start, double ms,
                  const std::string& args = "") {
    line(absl::StrFormat(R"({"name":"%s","cat":"%s","ph":"X","ts":%.3f,"dur":%.3f,"pid":%d,"tid":0%s})",
                         name, cat, start, ms * 1e3, rank,
                         args.empty() ? "" : ",\"args\":{" + args + "}"));
  };
  for (int i = 0; i < steps; ++i) {
    const double wait = slowest_data_ms - data_ms;
    const double step_ms = data_ms + 5 + 5 + (2 + wait) + 1;
    span("step", "step", t, step_ms, "\"samples\":16");
    double u = t;
    span("data", "phase", u, data_ms), u += data_ms * 1e3;
    span("forward", "phase", u, 5), u += 5e3;
    span("backward", "phase", u, 5), u += 5e3;
    span("allreduce", "comm", u, 2 + wait,
         R"("op":"allreduce","bytes":4194304,"busbw_GBps":3.5)"),
        u += (2 + wait) * 1e3;
    span("optimizer", "phase", u, 1);
    t += step_ms * 1e3 + 100;
  }
  if (close) {
    s += absl::StrFormat(R"({"name":"trace_end","ph":"i","s":"p","ts":%.3f,"pid":%d,"tid":0}])",
                         t, rank);
    s += "\n";
  } else {
    s += R"({"name":"step","cat":"st)";  // torn last line
  }
  std::string name = restart == 0 ? absl::StrCat("rank-", rank, ".trace.json")
                                   : absl::StrCat("rank-", rank, ".restart-", restart,
                                                  ".trace.json");
  return {name, s};
}

std::vector<TraceFile> FourRanks(double slow_data_ms) {
  std::vector<TraceFile> files;
  for (int r = 0; r < 4; ++r) {
    files.push_back(RankFile(r, 20, r == 3 ? slow_data_ms : 10, slow_data_ms,
                             /*offset_us=*/r * 5000.0, 1e6, /*close=*/r != 2));
  }
  return files;
}

TEST(ProfileSummary, NamesTheSlowRankAndItsPhase) {
  auto p = SummarizeTraces(FourRanks(30));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->ranks, 4);
  ASSERT_TRUE(p->straggler.has_value());
  EXPECT_EQ(p->straggler->rank, 3);
  EXPECT_EQ(p->straggler->phase, "data");
  EXPECT_NEAR(p->straggler->ratio, (30.0 + 11) / (10 + 11), 0.01);
  EXPECT_NEAR(p->straggler->phase_excess_ms, 20, 0.01);
  EXPECT_NE(p->straggler->Describe().find("rank 3 is 1.95× the median step time"),
            std::string::npos)
      << p->straggler->Describe();
  EXPECT_NE(p->straggler->Describe().find("data loading"), std::string::npos);
  // Every rank's step is as long as the slowest's; others wait in the allreduce.
  for (const RankProfile& r : p->per_rank) {
    EXPECT_EQ(r.steps, r.rank == 2 ? 20 : 20);
    EXPECT_NEAR(r.step_p50_ms, 43, 0.01);
    EXPECT_NEAR(r.step_max_ms, 43, 0.01);
    EXPECT_NEAR(r.comm_ms, r.rank == 3 ? 2 : 22, 0.01);
  }
  EXPECT_NEAR(p->comm_share, (3 * 22 + 2) / (4 * 43.0), 1e-6);
  EXPECT_EQ(p->allreduce_count, 80);
  EXPECT_EQ(p->allreduce_bytes, 4194304);
  EXPECT_NEAR(p->allreduce_busbw_GBps, 3.5, 1e-9);
  ASSERT_EQ(p->collectives.size(), 1u);
  EXPECT_EQ(p->collectives[0].op, "allreduce");
  EXPECT_EQ(p->collectives[0].count, 80);
  ASSERT_EQ(p->restarts.size(), 1u);
  EXPECT_EQ(p->restarts[0].steps, 20);
  EXPECT_GT(p->restarts[0].samples_per_s, 0);
}

TEST(ProfileSummary, NoStragglerWhenRanksAreEven) {
  auto p = SummarizeTraces(FourRanks(10));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->straggler.has_value());
  json j = json::parse(ProfileToJson(*p));
  EXPECT_TRUE(j["straggler"].is_null());
  EXPECT_EQ(j["perRank"].size(), 4u);
}

// A sharded optimizer's step: the gradient reduce-scattered, the parameters
// gathered. Each collective is summarised under its own name, with its size
// and bandwidth; the rendezvous (a "comm" span without bandwidth) is not one.
TEST(ProfileSummary, EveryCollectiveIsSummarisedByName) {
  std::string s = "[\n";
  for (int i = 0; i < 3; ++i) {
    const double t = 1000 + i * 10000;
    absl::StrAppend(
        &s,
        absl::StrFormat(
            R"({"name":"step","cat":"step","ph":"X","ts":%.0f,"dur":9000,"pid":0,"tid":0,"args":{"samples":16}},)",
            t),
        "\n",
        absl::StrFormat(
            R"({"name":"reduce_scatter","cat":"comm","ph":"X","ts":%.0f,"dur":2000,"pid":0,"tid":0,"args":{"bytes":%d,"busbw_GBps":%d}},)",
            t + 5000, 1000 + i, 2 + i),
        "\n",
        absl::StrFormat(
            R"({"name":"allgather","cat":"comm","ph":"X","ts":%.0f,"dur":1000,"pid":0,"tid":0,"args":{"bytes":1000,"busbw_GBps":4}},)",
            t + 7500),
        "\n");
  }
  s += R"({"name":"rendezvous","cat":"comm","ph":"X","ts":0,"dur":500,"pid":0,"tid":0}])";
  auto p = SummarizeTraces({{"rank-0.trace.json", s}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->allreduce_count, 0);
  ASSERT_EQ(p->collectives.size(), 2u);
  EXPECT_EQ(p->collectives[0].op, "allgather");
  EXPECT_EQ(p->collectives[0].count, 3);
  EXPECT_NEAR(p->collectives[0].busbw_GBps, 4, 1e-9);
  EXPECT_EQ(p->collectives[1].op, "reduce_scatter");
  EXPECT_EQ(p->collectives[1].count, 3);
  EXPECT_EQ(p->collectives[1].bytes, 1001);
  EXPECT_NEAR(p->collectives[1].busbw_GBps, 3, 1e-9);
  EXPECT_NEAR(p->collectives[1].median_ms, 2, 1e-9);
  EXPECT_FALSE(p->collectives[0].HasBandwidth());  // 1,000 bytes: latency, not bandwidth
  EXPECT_FALSE((CollectiveStats{.op = "barrier", .bytes = 4096}.HasBandwidth()));
  EXPECT_TRUE((CollectiveStats{.op = "allreduce", .bytes = 4096}.HasBandwidth()));
  const json j = json::parse(ProfileToJson(*p));
  EXPECT_EQ(j["collectives"]["reduce_scatter"]["count"], 3);
  EXPECT_EQ(j["collectives"]["allgather"]["medianMs"], 1);
  EXPECT_EQ(j["collectives"]["allgather"]["bytes"], 1000);
  EXPECT_FALSE(j["collectives"].contains("rendezvous"));
}

// A step of 10 ms whose gradient buckets were all-reduced on thread 1 for 6 ms
// beside backward; the step's thread waited 1 ms for the last one.
TEST(ProfileSummary, CollectivesOnAnotherThreadAreOverlappedNotWaitedFor) {
  const std::string events = absl::StrCat(
      "[\n",
      R"({"name":"step","cat":"step","ph":"X","ts":1000,"dur":10000,"pid":0,"tid":0},)", "\n",
      R"({"name":"backward","cat":"phase","ph":"X","ts":2000,"dur":7000,"pid":0,"tid":0},)", "\n",
      R"({"name":"allreduce","cat":"comm","ph":"X","ts":3000,"dur":6000,"pid":0,"tid":1},)", "\n",
      R"({"name":"allreduce wait","cat":"comm","ph":"X","ts":9000,"dur":1000,"pid":0,"tid":0}])",
      "\n");
  auto p = SummarizeTraces({{"rank-0.trace.json", events}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_NEAR(p->comm_share, 0.1, 1e-9);
  EXPECT_NEAR(p->overlapped_comm_share, 0.6, 1e-9);
}

TEST(ProfileSummary, ThroughputPerRestart) {
  std::vector<TraceFile> files = {RankFile(0, 10, 10, 10), RankFile(1, 10, 10, 10),
                                  RankFile(0, 10, 10, 30, 0, 5e6, true, 1),
                                  RankFile(1, 10, 30, 30, 0, 5e6, true, 1)};
  auto p = SummarizeTraces(files);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->restarts.size(), 2u);
  EXPECT_EQ(p->restarts[1].restart, 1);
  EXPECT_GT(p->restarts[0].steps_per_s, p->restarts[1].steps_per_s * 1.5);
}

TEST(ProfileSummary, WindowKeepsOnlyLaterEvents) {
  std::vector<TraceFile> files = FourRanks(30);
  auto latest = LatestTimestamps(files);
  ProfileOptions window;
  window.after_us = latest;
  EXPECT_FALSE(SummarizeTraces(files, window)->per_rank[0].steps > 0);
  for (auto& [name, ts] : window.after_us) ts = 1e6;  // just after the first step started
  auto p = SummarizeTraces(files, window);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->per_rank[0].steps, 19);
}

TEST(ProfileSummary, EmptyFilesAreAnError) {
  auto p = SummarizeTraces({{"rank-0.trace.json", "[\n"}});
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ProfileSummary, FieldsOfAnotherTypeAreIgnoredNotThrown) {
  // A trace file is anyone's text: before, {"name": 1} threw out of the reader.
  const std::vector<TraceFile> files = {
      {"rank-0.trace.json",
       "[\n"
       R"({"name":1,"ph":"M","pid":0,"args":{"rank":"x","host":2,"restart":99999999999}},)"
       "\n"
       R"({"name":"dlp_clock_offset","ph":"M","args":{"offset_us":"soon"}},)"
       "\n"
       R"({"name":"step","cat":["step"],"ph":"X","ts":"1","dur":null,"tid":1e300},)"
       "\n"
       R"({"name":"step","cat":"step","ph":"X","ts":10,"dur":5,"pid":0,"tid":1},)"
       "\n"}};
  absl::StatusOr<Profile> profile = SummarizeTraces(files);
  EXPECT_TRUE(profile.ok() || absl::IsInvalidArgument(profile.status())) << profile.status();
  EXPECT_TRUE(MergeTraces(files).ok());
}

TEST(ProfileMerge, OneValidTraceWithPidPerRankAndOffsetsApplied) {
  auto merged = MergeTraces(FourRanks(30));
  ASSERT_TRUE(merged.ok()) << merged.status();
  json doc = json::parse(*merged);
  std::set<int> pids;
  std::map<int, double> first_step;
  std::set<std::string> tracks;
  for (const json& e : doc["traceEvents"]) {
    pids.insert(e["pid"].get<int>());
    if (e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
    if (e["name"] == "step" && !first_step.count(e["pid"])) first_step[e["pid"]] = e["ts"];
    if (e["name"] == "allreduce") {
      EXPECT_EQ(e["args"]["bytes"], 4194304);
    }
  }
  EXPECT_EQ(pids, (std::set<int>{0, 1, 2, 3}));
  EXPECT_TRUE(tracks.count("step") && tracks.count("phase") && tracks.count("comm"));
  // Each host's clock was shifted by its offset; merged, the ranks line up at 0.
  for (int r = 0; r < 4; ++r) EXPECT_NEAR(first_step[r], 0, 0.01) << r;
}

TEST(Metrics, ParsesLinesAndRejectsOthers) {
  auto m = ParseMetricLine("DLP_METRIC loss=0.25 step=7");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->name, "loss");
  EXPECT_DOUBLE_EQ(m->value, 0.25);
  EXPECT_EQ(m->step, 7);
  EXPECT_EQ(ParseMetricLine("DLP_METRIC acc=1e-3")->step, -1);
  EXPECT_FALSE(ParseMetricLine("epoch 1 loss=0.3").has_value());
  EXPECT_FALSE(ParseMetricLine("DLP_METRIC loss=abc step=1").has_value());
  EXPECT_FALSE(ParseMetricLine("DLP_METRIC =1 step=1").has_value());
  EXPECT_FALSE(ParseMetricLine("DLP_METRIC loss=1 step=x").has_value());
  EXPECT_FALSE(ParseMetricLine("DLP_METRIC loss=1 step=1 extra").has_value());
  MetricPoint p = *m;
  p.replica = "worker-0";
  p.time = absl::FromUnixSeconds(0);
  json j = json::parse(MetricsToJson({p}));
  EXPECT_EQ(j["metrics"][0]["replica"], "worker-0");
  EXPECT_EQ(j["metrics"][0]["step"], 7);
  EXPECT_EQ(MetricsToCsv({p}),
            "replica,name,step,value,time\nworker-0,loss,7,0.25,1970-01-01T00:00:00.000000Z\n");
}

TEST(Plot, BrailleChartWithAxesAndLegend) {
  Series a{"worker-0", {}}, b{"worker-1", {}};
  for (int i = 0; i < 50; ++i) {
    a.points.push_back({double(i), 1.0 / (i + 1)});
    b.points.push_back({double(i), 0.5 / (i + 1)});
  }
  std::string chart = PlotText({a, b}, 40, 8, "loss", /*color=*/false);
  EXPECT_NE(chart.find("loss\n"), std::string::npos);
  EXPECT_NE(chart.find("worker-1"), std::string::npos);
  EXPECT_NE(chart.find("\xe2\xa0"), std::string::npos);  // braille block U+28xx
  EXPECT_NE(chart.find("49"), std::string::npos);        // x axis end
  EXPECT_EQ(chart.find("\033["), std::string::npos);     // no colour asked
}

}  // namespace
}  // namespace dlp
