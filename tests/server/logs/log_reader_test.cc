// Reading replica logs: parsing, tail, since, interleaving, partial lines, and
// the bounds on what a read holds: chunks, cut lines, sparse files, the cap.
#include "server/logs/log_reader.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "contract/log_line.h"
#include "contract/metric_line.h"
#include "support/temp_dir.h"

namespace dlp::server {
namespace {

#ifdef DLP_TEST_SANITIZED
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

void Append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app) << text;
}

std::vector<std::string> Texts(const std::vector<LogEntry>& entries) {
  std::vector<std::string> out;
  for (const LogEntry& e : entries) out.push_back(e.replica + ":" + e.text);
  return out;
}

TEST(LogReaderTest, ParsesTheContractFormat) {
  LogEntry e = LogEntryFromLine("worker-0", "2026-11-30T12:00:00.123456Z E oops: a b", nullptr);
  EXPECT_EQ(e.stream, "stderr");
  EXPECT_EQ(e.time, "2026-11-30T12:00:00.123456Z");
  EXPECT_EQ(e.text, "oops: a b");
  EXPECT_EQ(LogEntryToNdjson(e),
            R"({"replica":"worker-0","stream":"stderr","time":"2026-11-30T12:00:00.123456Z",)"
            R"("text":"oops: a b"})"
            "\n");
  LogEntry empty = LogEntryFromLine("worker-0", "2026-11-30T12:00:00.123456Z O", nullptr);
  EXPECT_EQ(empty.text, "");
  LogEntry odd = LogEntryFromLine("worker-0", "not a log line", &e);
  EXPECT_EQ(odd.text, "not a log line");
  EXPECT_EQ(odd.time, e.time);
}

TEST(LogReaderTest, InterleavesReplicasByTime) {
  testing::TempDir dir;
  Append(dir.Join("worker-0.log"),
         "2026-11-30T12:00:00.000001Z O a1\n2026-11-30T12:00:00.000003Z O a2\n");
  Append(dir.Join("worker-1.log"),
         "2026-11-30T12:00:00.000002Z O b1\n2026-11-30T12:00:00.000004Z E b2\n");
  LogReader reader({LogFolderAt(dir.path()), "", -1, std::nullopt});
  EXPECT_EQ(Texts(reader.ReadNew(false)),
            (std::vector<std::string>{"worker-0:a1", "worker-1:b1", "worker-0:a2", "worker-1:b2"}));
}

TEST(LogReaderTest, TailSinceAndReplicaFilter) {
  testing::TempDir dir;
  Append(dir.Join("worker-0.log"),
         "2026-11-30T12:00:01Z O a1\n2026-11-30T12:00:02Z O a2\n2026-11-30T12:00:03Z O a3\n");
  Append(dir.Join("worker-1.log"), "2026-11-30T12:00:04Z O b1\n");
  LogReader tail({LogFolderAt(dir.path()), "worker-0", 2, std::nullopt});
  EXPECT_EQ(Texts(tail.ReadNew(true)), (std::vector<std::string>{"worker-0:a2", "worker-0:a3"}));
  absl::Time since;
  std::string err;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, "2026-11-30T12:00:03Z", &since, &err));
  LogReader after({LogFolderAt(dir.path()), "", -1, since});
  EXPECT_EQ(Texts(after.ReadNew(true)), (std::vector<std::string>{"worker-0:a3", "worker-1:b1"}));
}

TEST(LogReaderTest, LeavesOutMetricLinesBeforeTheTail) {
  testing::TempDir dir;
  Append(dir.Join("worker-0.log"),
         "2026-11-30T12:00:01Z O a1\n2026-11-30T12:00:02Z O a2\n"
         "2026-11-30T12:00:03Z O DLP_METRIC loss=0.5 step=1\n"
         "2026-11-30T12:00:04Z E DLP_METRIC on stderr\n"
         "2026-11-30T12:00:05Z O DLP_METRIC loss=0.25 step=2\n");
  LogReader all({LogFolderAt(dir.path()), "", 2, std::nullopt});
  EXPECT_EQ(Texts(all.ReadNew(true)),
            (std::vector<std::string>{"worker-0:DLP_METRIC on stderr",
                                      "worker-0:DLP_METRIC loss=0.25 step=2"}));
  LogReader quiet({LogFolderAt(dir.path()), "", 2, std::nullopt, /*metrics=*/false});
  EXPECT_EQ(Texts(quiet.ReadNew(false)),
            (std::vector<std::string>{"worker-0:a2", "worker-0:DLP_METRIC on stderr"}));
  Append(dir.Join("worker-0.log"),
         "2026-11-30T12:00:06Z O DLP_METRIC loss=0.1 step=3\n2026-11-30T12:00:07Z O a3\n");
  EXPECT_EQ(Texts(quiet.ReadNew(true)), (std::vector<std::string>{"worker-0:a3"}));
}

TEST(LogReaderTest, FollowsAppendsAndHoldsPartialLinesUntilTheEnd) {
  testing::TempDir dir;
  const std::string path = dir.Join("worker-0.log");
  LogReader reader({LogFolderAt(dir.path()), "", -1, std::nullopt});
  EXPECT_TRUE(reader.ReadNew(false).empty());
  Append(path, "2026-11-30T12:00:01Z O one\n2026-11-30T12:00:02Z O tw");
  EXPECT_EQ(Texts(reader.ReadNew(false)), (std::vector<std::string>{"worker-0:one"}));
  Append(path, "o\n2026-11-30T12:00:03Z O partial");
  EXPECT_EQ(Texts(reader.ReadNew(false)), (std::vector<std::string>{"worker-0:two"}));
  EXPECT_EQ(Texts(reader.ReadNew(true)), (std::vector<std::string>{"worker-0:partial"}));
  EXPECT_TRUE(reader.ReadNew(true).empty());
}

// Line i of a replica log, without its newline; times increase with i.
std::string Line(int i) {
  std::string line =
      contract::FormatLogFileLine(absl::FromUnixSeconds(1796040000) + absl::Microseconds(i),
                                  contract::LogStream::kOut, absl::StrCat("line ", i));
  line.pop_back();
  return line;
}

TEST(LogReaderTest, TailReadsFromTheEndNotTheWholeFile) {
  testing::TempDir dir;
  {
    std::ofstream out(dir.Join("worker-0.log"));
    for (int i = 0; i < 400000; ++i) out << Line(i) << "\n";  // about 17 MB
  }
  LogReader reader({LogFolderAt(dir.path()), "", 3, std::nullopt});
  EXPECT_EQ(Texts(reader.ReadNew(false)),
            (std::vector<std::string>{"worker-0:line 399997", "worker-0:line 399998",
                                      "worker-0:line 399999"}));
  EXPECT_LT(reader.bytes_read(), 256u * 1024);
  // Metric lines left out before the tail are skipped while reading backwards.
  Append(dir.Join("worker-0.log"), "2026-12-01T13:00:00Z O DLP_METRIC loss=0.5 step=1\n");
  LogReader no_metrics({LogFolderAt(dir.path()), "worker-0", 1, std::nullopt, false});
  EXPECT_EQ(Texts(no_metrics.ReadNew(false)), (std::vector<std::string>{"worker-0:line 399999"}));
  EXPECT_LT(no_metrics.bytes_read(), 256u * 1024);
}

TEST(LogReaderTest, TailTakesTheRestFromTheRotatedFile) {
  testing::TempDir dir;
  for (int i = 0; i < 10; ++i) Append(dir.Join("worker-0.log.1"), Line(i) + "\n");
  for (int i = 10; i < 13; ++i) Append(dir.Join("worker-0.log"), Line(i) + "\n");
  LogReader reader({LogFolderAt(dir.path()), "", 5, std::nullopt});
  EXPECT_EQ(Texts(reader.ReadNew(false)),
            (std::vector<std::string>{"worker-0:line 8", "worker-0:line 9", "worker-0:line 10",
                                      "worker-0:line 11", "worker-0:line 12"}));
  // The rotated file is no replica of its own, and a follow goes on in the new file.
  Append(dir.Join("worker-0.log"), Line(13) + "\n");
  EXPECT_EQ(Texts(reader.ReadNew(false)), (std::vector<std::string>{"worker-0:line 13"}));
}

TEST(LogReaderTest, FollowReadsTheRestOfTheRotatedFileFirst) {
  testing::TempDir dir;
  const std::string log = dir.Join("worker-0.log");
  Append(log, Line(0) + "\n" + Line(1).substr(0, 10));
  LogReader reader({LogFolderAt(dir.path()), "", -1, std::nullopt});
  EXPECT_EQ(Texts(reader.ReadNew(false)), (std::vector<std::string>{"worker-0:line 0"}));
  // dlp-run finishes the line, writes another, then rotates (launch/output.h).
  Append(log, Line(1).substr(10) + "\n" + Line(2) + "\n");
  ASSERT_EQ(rename(log.c_str(), (log + ".1").c_str()), 0);
  Append(log, Line(3) + "\n");
  EXPECT_EQ(Texts(reader.ReadNew(false)),
            (std::vector<std::string>{"worker-0:line 1", "worker-0:line 2", "worker-0:line 3"}));
  EXPECT_EQ(Texts(reader.ReadNew(true)), (std::vector<std::string>{}));
}

TEST(LogReaderTest, AReadFromTheStartTakesTheRotatedFileFirst) {
  testing::TempDir dir;
  for (int i = 0; i < 10; ++i) Append(dir.Join("worker-0.log.1"), Line(i) + "\n");
  for (int i = 10; i < 13; ++i) Append(dir.Join("worker-0.log"), Line(i) + "\n");
  std::vector<std::string> all;
  for (int i = 0; i < 13; ++i) all.push_back(absl::StrCat("worker-0:line ", i));
  LogReader reader({LogFolderAt(dir.path()), "", -1, std::nullopt});
  EXPECT_EQ(Texts(reader.ReadNew(false)), all);
  Append(dir.Join("worker-0.log"), Line(13) + "\n");
  EXPECT_EQ(Texts(reader.ReadNew(false)), (std::vector<std::string>{"worker-0:line 13"}));
  // One replica asked for by name, and a since that reaches into the rotated file.
  LogReader since({LogFolderAt(dir.path()), "worker-0", -1,
                   absl::FromUnixSeconds(1796040000) + absl::Microseconds(8)});
  EXPECT_EQ(Texts(since.ReadNew(true)).front(), "worker-0:line 8");
}

// A metric line of a replica log, with its newline.
std::string MetricLine(int i, contract::LogStream stream = contract::LogStream::kOut) {
  return contract::FormatLogFileLine(absl::FromUnixSeconds(1796040000) + absl::Microseconds(i),
                                     stream, absl::StrCat("DLP_METRIC loss=", i, " step=", i));
}

TEST(LogReaderTest, MetricsOnlyReadsTheMetricsFileAndTheLogOfAnOlderJob) {
  testing::TempDir dir;
  // worker-0: every point in its metrics file, the log rotated past most.
  for (int i = 0; i < 5; ++i) Append(dir.Join("worker-0.metrics"), MetricLine(i));
  Append(dir.Join("worker-0.metrics"),
         contract::FormatLogFileLine(absl::FromUnixSeconds(1796040000) + absl::Microseconds(6),
                                     contract::LogStream::kErr, contract::kMetricsDropped));
  Append(dir.Join("worker-0.log"), Line(3) + "\n" + MetricLine(4));
  // worker-1, written before metrics files: the metric lines of its log.
  Append(dir.Join("worker-1.log"),
         Line(0) + "\n" + MetricLine(1) + MetricLine(2, contract::LogStream::kErr) + Line(3) +
             "\n" + MetricLine(4));
  LogReaderOptions options{LogFolderAt(dir.path())};
  options.metrics_only = true;
  LogReader reader(options);
  EXPECT_EQ(Texts(reader.ReadNew(true)),
            (std::vector<std::string>{
                "worker-0:DLP_METRIC loss=0 step=0", "worker-0:DLP_METRIC loss=1 step=1",
                "worker-1:DLP_METRIC loss=1 step=1", "worker-0:DLP_METRIC loss=2 step=2",
                "worker-0:DLP_METRIC loss=3 step=3", "worker-0:DLP_METRIC loss=4 step=4",
                "worker-1:DLP_METRIC loss=4 step=4"}));
  // A follow goes on in the metrics file; a tail counts metric lines only.
  Append(dir.Join("worker-0.metrics"), MetricLine(7));
  EXPECT_EQ(Texts(reader.ReadNew(true)),
            (std::vector<std::string>{"worker-0:DLP_METRIC loss=7 step=7"}));
  options.tail = 2;
  options.replica = "worker-1";
  LogReader tail(options);
  EXPECT_EQ(Texts(tail.ReadNew(true)),
            (std::vector<std::string>{"worker-1:DLP_METRIC loss=1 step=1",
                                      "worker-1:DLP_METRIC loss=4 step=4"}));
}

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Reads until the reader has caught up with every file, as a request that
// does not follow does.
std::vector<LogEntry> ReadToTheEnd(LogReader& reader, int* reads = nullptr) {
  std::vector<LogEntry> all;
  int n = 0;
  do {
    for (LogEntry& e : reader.ReadNew(true)) all.push_back(std::move(e));
    ++n;
  } while (!reader.caught_up() && n < 100000);
  if (reads != nullptr) *reads = n;
  return all;
}

// The peak resident memory of this process so far, in bytes.
int64_t PeakRss() {
  rusage usage = {};
  getrusage(RUSAGE_SELF, &usage);
  return int64_t{usage.ru_maxrss} * 1024;
}

// Appends a line of `text` followed by `filler` bytes of 'x', written in
// pieces so that the test itself never holds it.
void AppendLongLine(const std::string& path, const std::string& text, size_t filler) {
  std::ofstream out(path, std::ios::app);
  out << text;
  const std::string piece(64 * 1024, 'x');
  for (size_t done = 0; done < filler; done += piece.size()) out << piece;
  out << "\n";
}

TEST(LogReaderTest, AnOverLongLineIsCutAndMarkedNotHeldWhole) {
  testing::TempDir dir;
  const std::string log = dir.Join("worker-0.log");
  Append(log, Line(0) + "\n");
  AppendLongLine(log, Line(1) + " ", 48 << 20);  // a job writing its file itself
  Append(log, Line(2) + "\n");
  const int64_t before = PeakRss();
  LogReader reader({LogFolderAt(dir.path()), "", -1, std::nullopt});
  std::vector<LogEntry> all = ReadToTheEnd(reader);
  // ASan keeps freed memory in its quarantine: the peak says nothing there.
  if (!kSanitized) {
    EXPECT_LT(PeakRss() - before, 16 << 20);
  }
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].text, "line 0");
  EXPECT_THAT(all[1].text, StartsWith("line 1 xxxx"));
  EXPECT_THAT(all[1].text, EndsWith(kLogLineCut));
  EXPECT_LE(all[1].text.size(), contract::kMaxLogFileLineBytes + kLogLineCut.size());
  EXPECT_EQ(all[2].text, "line 2");
}

TEST(LogReaderTest, ATailOverAnOverLongLineIsCutToo) {
  testing::TempDir dir;
  const std::string log = dir.Join("worker-0.log");
  Append(log, Line(0) + "\n");
  AppendLongLine(log, Line(1) + " ", 48 << 20);
  const int64_t before = PeakRss();
  LogReader reader({LogFolderAt(dir.path()), "", 2, std::nullopt});
  std::vector<LogEntry> all = ReadToTheEnd(reader);
  // ASan keeps freed memory in its quarantine: the peak says nothing there.
  if (!kSanitized) {
    EXPECT_LT(PeakRss() - before, 16 << 20);
  }
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].text, "line 0");
  EXPECT_THAT(all[1].text, StartsWith("line 1 xxxx"));
  EXPECT_THAT(all[1].text, EndsWith(kLogLineCut));
}

TEST(LogReaderTest, ReadsInBoundedChunksAndLosesNoLine) {
  testing::TempDir dir;
  for (const char* replica : {"worker-0", "worker-1"}) {
    std::ofstream out(dir.Join(absl::StrCat(replica, ".log")));
    for (int i = 0; i < 50000; ++i) out << Line(i) << "\n";  // about 2 MB each
  }
  LogReaderOptions options{LogFolderAt(dir.path()), "", -1, std::nullopt};
  options.chunk_bytes = 256 * 1024;
  LogReader reader(options);
  std::vector<LogEntry> first = reader.ReadNew(true);
  EXPECT_FALSE(reader.caught_up());
  EXPECT_LE(reader.bytes_read(), 2u * options.chunk_bytes);
  EXPECT_LT(first.size(), 20000u);
  int reads = 0;
  std::vector<LogEntry> rest = ReadToTheEnd(reader, &reads);
  EXPECT_GT(reads, 4);
  first.insert(first.end(), rest.begin(), rest.end());
  std::map<std::string, int> next;  // the line each replica should give next
  for (const LogEntry& e : first) {
    ASSERT_EQ(e.text, absl::StrCat("line ", next[e.replica]++)) << e.replica;
  }
  EXPECT_EQ(next["worker-0"], 50000);
  EXPECT_EQ(next["worker-1"], 50000);
}

TEST(LogReaderTest, ASparseFileIsNotRead) {
  testing::TempDir dir;
  const std::string log = dir.Join("worker-0.log");
  Append(log, Line(0) + "\n");
  ASSERT_EQ(truncate(log.c_str(), int64_t{1} << 30), 0);  // a hole: no disk used
  Append(dir.Join("worker-1.log"), Line(1) + "\n");
  LogReader reader({LogFolderAt(dir.path()), "", -1, std::nullopt});
  std::vector<LogEntry> all = ReadToTheEnd(reader);
  EXPECT_LT(reader.bytes_read(), 64u * 1024);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].text, "line 1");
  // What dlpd says comes after the lines of the same read.
  EXPECT_EQ(all[1].replica, "worker-0");
  EXPECT_EQ(all[1].stream, "stderr");
  EXPECT_THAT(all[1].text, HasSubstr("worker-0.log not read: a sparse file of 1073741824 bytes"));
  // Said once, not at every read of a follow.
  EXPECT_TRUE(reader.ReadNew(false).empty());
}

TEST(LogReaderTest, StopsAtTheRequestsCapAndSaysSo) {
  testing::TempDir dir;
  {
    std::ofstream out(dir.Join("worker-0.log"));
    for (int i = 0; i < 50000; ++i) out << Line(i) << "\n";
  }
  LogReaderOptions options{LogFolderAt(dir.path()), "", -1, std::nullopt};
  options.max_bytes = 100 * 1024;
  LogReader reader(options);
  std::vector<LogEntry> all = ReadToTheEnd(reader);
  EXPECT_LE(reader.bytes_read(), options.max_bytes);
  ASSERT_GT(all.size(), 1000u);
  EXPECT_LT(all.size(), 5000u);
  EXPECT_THAT(all.back().text, HasSubstr("stopped after 102400 bytes"));
  EXPECT_TRUE(reader.ReadNew(true).empty());
}

}  // namespace
}  // namespace dlp::server
