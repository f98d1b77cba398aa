// The trace writer: files, event shapes, a process that dies mid-run, spans
// around collectives, metrics on stdout, and clock offsets through a store.
// Each case runs in a forked child, since tracing is decided once per process.
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dlp/trace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "rendezvous/store.h"
#include "support/temp_dir.h"
#include "trace/clock_sync.h"
#include "trace/collective_span.h"

namespace {

using nlohmann::json;

// Runs `body` in a child with the given environment; returns its exit status.
template <typename Body>
int InChild(const std::vector<std::pair<std::string, std::string>>& env, Body body) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    body();
    exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Parses the file line by line, as readers do: skips "[", strips "," and "]".
std::vector<json> ReadEvents(const std::string& path, bool* closed = nullptr) {
  std::ifstream in(path);
  std::vector<json> events;
  std::string line;
  if (closed) *closed = false;
  while (std::getline(in, line)) {
    if (line == "[") continue;
    if (!line.empty() && line.back() == ']') {
      line.pop_back();
      if (closed) *closed = true;
    }
    if (!line.empty() && line.back() == ',') line.pop_back();
    events.push_back(json::parse(line));
  }
  return events;
}

const json* Find(const std::vector<json>& events, const std::string& name) {
  for (const json& e : events) {
    if (e.value("name", "") == name) return &e;
  }
  return nullptr;
}

TEST(TraceWriter, FilePrivateWhateverTheUmask) {
  dlp::testing::TempDir dir;
  int rc = InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "0"}}, [] {
    umask(0);
    dlp_trace_begin("x");
    dlp_trace_end();
  });
  ASSERT_EQ(rc, 0);
  struct stat st;
  ASSERT_EQ(stat(dir.Join("rank-0.trace.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(TraceWriter, OffWithoutDirOrFlag) {
  dlp::testing::TempDir dir;
  int rc = InChild({{"RANK", "1"}}, [&] {
    unsetenv("DLP_TRACE_DIR");
    unsetenv("DLP_TRACE");
    chdir(dir.path().c_str());
    dlp_trace_begin("x");
    dlp_trace_end();
    exit(dlp_trace_enabled() ? 1 : 0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_FALSE(std::ifstream(dir.Join("rank-1.trace.json")).good());
}

TEST(TraceWriter, AFileStopsAtItsBudgetAndSaysSo) {
  dlp::testing::TempDir dir;
  int rc = InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "0"}, {"DLP_TRACE_MAX_BYTES", "20000"}},
                   [] {
                     for (int i = 0; i < 10000; ++i) {
                       dlp_trace_begin("tick");
                       dlp_trace_end();
                     }
                   });
  ASSERT_EQ(rc, 0);
  const std::string path = dir.Join("rank-0.trace.json");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_LE(st.st_size, 20000 + 400);  // the budget, the last event and the end
  bool closed = false;
  const std::vector<json> events = ReadEvents(path, &closed);
  EXPECT_TRUE(closed);
  const json* truncated = Find(events, "trace_truncated");
  ASSERT_NE(truncated, nullptr);
  EXPECT_EQ((*truncated)["args"]["max_bytes"], 20000);
  EXPECT_GT(events.size(), 50u);  // what came before is kept
}

TEST(TraceWriter, WritesCompleteValidArrayWithMetadataAndNesting) {
  dlp::testing::TempDir dir;
  int rc = InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "2"}, {"WORLD_SIZE", "4"}}, [] {
    {
      dlp::runtime::TraceScope step("step", "step");
      dlp::runtime::TraceScope data("data", "phase");
    }
    dlp_trace_begin("user \"quoted\"");
    dlp_trace_end_arg("items", 3);
    dlp_trace_end();  // nothing open: ignored
  });
  ASSERT_EQ(rc, 0);
  // The closed file is one JSON document.
  std::ifstream in(dir.Join("rank-2.trace.json"));
  std::stringstream all;
  all << in.rdbuf();
  json doc = json::parse(all.str());
  ASSERT_TRUE(doc.is_array());
  bool closed = false;
  auto events = ReadEvents(dir.Join("rank-2.trace.json"), &closed);
  EXPECT_TRUE(closed);
  const json* meta = Find(events, "dlp_meta");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ((*meta)["args"]["rank"], 2);
  EXPECT_EQ((*meta)["args"]["world_size"], 4);
  const json* step = Find(events, "step");
  const json* data = Find(events, "data");
  ASSERT_NE(step, nullptr);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ((*step)["ph"], "X");
  EXPECT_EQ((*step)["pid"], 2);
  EXPECT_EQ((*data)["cat"], "phase");
  EXPECT_GE((*data)["ts"].get<double>(), (*step)["ts"].get<double>());
  EXPECT_LE((*data)["ts"].get<double>() + (*data)["dur"].get<double>(),
            (*step)["ts"].get<double>() + (*step)["dur"].get<double>() + 0.01);
  const json* user = Find(events, "user \"quoted\"");
  ASSERT_NE(user, nullptr);
  EXPECT_EQ((*user)["args"]["items"], 3);
}

TEST(TraceWriter, ProcessDyingMidRunLeavesReadableLines) {
  dlp::testing::TempDir dir;
  int rc = InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "0"}}, [] {
    for (int i = 0; i < 2000; ++i) {  // more than one buffer's worth
      dlp::runtime::TraceScope s("work", "phase");
    }
    dlp_trace_flush();
    dlp::runtime::TraceScope open("never closed");
    _exit(3);  // no atexit: no closing bracket
  });
  ASSERT_EQ(rc, 3);
  bool closed = true;
  auto events = ReadEvents(dir.Join("rank-0.trace.json"), &closed);
  EXPECT_FALSE(closed);
  int work = 0;
  for (const json& e : events) work += e.value("name", "") == "work";
  EXPECT_EQ(work, 2000);
}

TEST(TraceWriter, RestartsGetTheirOwnFile) {
  dlp::testing::TempDir dir;
  ASSERT_EQ(InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "1"}, {"DLP_RESTART_COUNT", "2"}},
                    [] { dlp::runtime::TraceScope s("x"); }),
            0);
  auto events = ReadEvents(dir.Join("rank-1.restart-2.trace.json"));
  ASSERT_NE(Find(events, "restart"), nullptr);
  EXPECT_EQ((*Find(events, "dlp_meta"))["args"]["restart"], 2);
}

TEST(TraceWriter, CollectiveSpanCarriesBytesAndBandwidth) {
  dlp::testing::TempDir dir;
  ASSERT_EQ(InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "0"}}, [] {
              dlp::runtime::trace::CollectiveSpan span("allreduce", 1 << 20, "float32", "sum",
                                                       "ring", 4);
              usleep(1000);
            }),
            0);
  auto events = ReadEvents(dir.Join("rank-0.trace.json"));
  const json* ar = Find(events, "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ((*ar)["cat"], "comm");
  EXPECT_EQ((*ar)["args"]["bytes"], 1 << 20);
  EXPECT_EQ((*ar)["args"]["algorithm"], "ring");
  const double algbw = (*ar)["args"]["algbw_GBps"];
  EXPECT_GT(algbw, 0);
  EXPECT_NEAR((*ar)["args"]["busbw_GBps"].get<double>(), algbw * 1.5, algbw * 0.01);
}

// A zero-copy allreduce is known as such only once it ran.
TEST(TraceWriter, ACollectiveSpanNamesTheAlgorithmThatRan) {
  dlp::testing::TempDir dir;
  ASSERT_EQ(InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "0"}},
                    [] {
                      dlp::runtime::trace::CollectiveSpan span("allreduce", 1 << 20, "float32",
                                                               "sum", "direct", 2);
                      span.set_algorithm("zero-copy");
                    }),
            0);
  const auto events = ReadEvents(dir.Join("rank-0.trace.json"));
  const json* ar = Find(events, "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ((*ar)["args"]["algorithm"], "zero-copy");
}

TEST(TraceWriter, MetricPrintsTheLineAndAddsACounter) {
  dlp::testing::TempDir dir;
  const std::string out = dir.Join("stdout.txt");
  ASSERT_EQ(InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "0"}}, [&] {
              freopen(out.c_str(), "w", stdout);
              dlp_metric("loss", 0.25, 7);
              dlp_metric("samples_per_s", 12345.5, 8);
            }),
            0);
  std::ifstream in(out);
  std::string l1, l2;
  std::getline(in, l1);
  std::getline(in, l2);
  EXPECT_EQ(l1, "DLP_METRIC loss=0.25 step=7");
  EXPECT_EQ(l2, "DLP_METRIC samples_per_s=12345.5 step=8");
  auto events = ReadEvents(dir.Join("rank-0.trace.json"));
  const json* c = Find(events, "loss");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["ph"], "C");
  EXPECT_EQ((*c)["args"]["step"], 7);
}

TEST(TraceWriter, ClockOffsetsThroughTheStoreAreWithinTheRoundTrip) {
  dlp::testing::TempDir dir;
  ASSERT_EQ(InChild({{"DLP_TRACE_DIR", dir.path()}, {"RANK", "0"}}, [] {
              auto secret = dlp::runtime::JobSecret::Generate();
              if (!secret.ok()) exit(9);
              auto server = dlp::runtime::TcpStoreServer::Start("127.0.0.1", 0, *secret);
              if (!server.ok()) exit(10);
              auto s0 = dlp::runtime::ConnectTcpStore("127.0.0.1", (*server)->port(), *secret,
                                                      absl::Seconds(5));
              auto s1 = dlp::runtime::ConnectTcpStore("127.0.0.1", (*server)->port(), *secret,
                                                      absl::Seconds(5));
              if (!s0.ok() || !s1.ok()) exit(11);
              absl::Status st0, st1;
              std::thread t0([&] { st0 = dlp::runtime::trace::SyncClocks(**s0, "r0", 0, 2); });
              std::thread t1([&] { st1 = dlp::runtime::trace::SyncClocks(**s1, "r0", 1, 2); });
              t0.join();
              t1.join();
              if (!st0.ok() || !st1.ok()) exit(12);
            }),
            0);
  // Both "ranks" share this process's clock: the estimate is 0 within rtt/2.
  int seen = 0;
  for (const json& e : ReadEvents(dir.Join("rank-0.trace.json"))) {
    if (e.value("name", "") != "dlp_clock_offset") continue;
    ++seen;
    const double rtt = e["args"]["rtt_us"];
    EXPECT_LE(std::abs(e["args"]["offset_us"].get<double>()), rtt / 2 + 1) << e.dump();
  }
  EXPECT_EQ(seen, 2);
}

}  // namespace
