// A rank's output: lines split at a bounded length, log files with mode 0600
// whatever the umask, rotation past logs.maxBytes keeping the newest lines, and
// every metric line kept in the metrics file whatever the rotation.
#include "launch/output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "contract/log_line.h"
#include "contract/metric_line.h"
#include "support/temp_dir.h"

namespace dlp::launch {
namespace {

using contract::kLogLineContinued;
using contract::kMaxLogLineBytes;

class Collect : public LineWriter {
 public:
  void WriteLine(Stream, absl::string_view line) override { lines.emplace_back(line); }
  std::vector<std::string> lines;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int Mode(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : -1;
}

// Without its marker, the text of a piece of a split line.
bool Marked(const std::string& piece) {
  return piece.size() >= kLogLineContinued.size() &&
         std::string_view(piece).substr(piece.size() - kLogLineContinued.size()) ==
             kLogLineContinued;
}

std::string Unmarked(const std::string& piece) {
  return Marked(piece) ? piece.substr(0, piece.size() - kLogLineContinued.size()) : piece;
}

TEST(LineSplitter, LongLineWithoutNewlineIsSplitAndNeverBufferedWhole) {
  Collect out;
  LineSplitter splitter(&out, Stream::kOut);
  const std::string chunk(4096, 'x');
  const size_t total = 10 * 1000 * 1000;  // 10 MB, no newline, as a pipe delivers it
  size_t max_buffered = 0;
  for (size_t fed = 0; fed < total; fed += chunk.size()) {
    splitter.Feed(chunk);
    max_buffered = std::max(max_buffered, splitter.buffered_bytes());
  }
  splitter.Feed("end\n");
  EXPECT_LE(max_buffered, kMaxLogLineBytes);
  ASSERT_GT(out.lines.size(), total / kMaxLogLineBytes);
  std::string joined;
  for (size_t i = 0; i < out.lines.size(); ++i) {
    const std::string& line = out.lines[i];
    EXPECT_LE(line.size(), kMaxLogLineBytes + kLogLineContinued.size()) << "line " << i;
    EXPECT_EQ(Marked(line), i + 1 < out.lines.size()) << "line " << i;
    joined += Unmarked(line);
  }
  EXPECT_EQ(joined, std::string(joined.size() - 3, 'x') + "end");
  EXPECT_EQ(joined.size(), (total / chunk.size() + (total % chunk.size() != 0)) * chunk.size() + 3);
}

TEST(LineSplitter, ShortLinesAndLinesOfExactlyTheLimitAreWhole) {
  Collect out;
  LineSplitter splitter(&out, Stream::kErr);
  const std::string full(kMaxLogLineBytes, 'a');
  splitter.Feed("one\r\ntw");
  splitter.Feed("o\n" + full.substr(0, 100));
  splitter.Feed(full.substr(100) + "\nlast");
  splitter.Finish();
  EXPECT_THAT(out.lines, ::testing::ElementsAre("one", "two", full, "last"));
}

TEST(LineSplitter, CutsBetweenUtf8Characters) {
  Collect out;
  LineSplitter splitter(&out, Stream::kOut);
  std::string text = "a";  // makes every 2-byte "é" straddle an even cut
  while (text.size() < 3 * kMaxLogLineBytes) text += "\xc3\xa9";
  splitter.Feed(text + "\n");
  ASSERT_EQ(out.lines.size(), 4u);
  std::string joined;
  for (const std::string& line : out.lines) {
    const std::string piece = Unmarked(line);
    ASSERT_FALSE(piece.empty());
    // No piece ends with a lead byte or starts with a continuation byte.
    EXPECT_NE(static_cast<unsigned char>(piece.back()), 0xc3);
    EXPECT_NE(static_cast<unsigned char>(piece.front()) & 0xC0, 0x80);
    joined += piece;
  }
  EXPECT_EQ(joined, text);
}

TEST(LogFile, CreatedPrivateWhateverTheUmask) {
  testing::TempDir dir;
  const mode_t old = umask(0);
  auto writer = OpenLogFile(dir.path(), "worker-0");
  umask(old);
  ASSERT_TRUE(writer.ok()) << writer.status();
  (*writer)->WriteLine(Stream::kOut, "hello");
  EXPECT_EQ(Mode(dir.Join("worker-0.log")), 0600);
  // An older file with a wider mode is narrowed when reopened.
  chmod(dir.Join("worker-0.log").c_str(), 0644);
  ASSERT_TRUE(OpenLogFile(dir.path(), "worker-0").ok());
  EXPECT_EQ(Mode(dir.Join("worker-0.log")), 0600);
}

TEST(LogFile, RotatesPastMaxBytesKeepingTheNewestLines) {
  testing::TempDir dir;
  const int64_t max_bytes = 2000;
  const mode_t old = umask(0);
  {
    // Output of an earlier attempt is counted too.
    std::ofstream(dir.Join("w.log")) << "2026-11-30T12:00:00.000000Z O earlier\n";
    auto writer = OpenLogFile(dir.path(), "w", max_bytes);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int i = 0; i < 500; ++i) (*writer)->WriteLine(Stream::kOut, absl::StrCat("line ", i));
  }
  umask(old);
  const std::string current = ReadAll(dir.Join("w.log"));
  const std::string previous = ReadAll(dir.Join("w.log.1"));
  EXPECT_LE(current.size(), static_cast<size_t>(max_bytes));
  EXPECT_LE(previous.size(), static_cast<size_t>(max_bytes));
  EXPECT_GT(previous.size(), static_cast<size_t>(max_bytes) - 100);  // it was full
  EXPECT_EQ(Mode(dir.Join("w.log")), 0600);
  EXPECT_EQ(Mode(dir.Join("w.log.1")), 0600);
  // Together, whole lines ending with the last one, consecutive.
  std::vector<std::string> lines = absl::StrSplit(previous + current, '\n', absl::SkipEmpty());
  ASSERT_GT(lines.size(), 20u);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto parsed = contract::ParseLogFileLine(lines[i]);
    ASSERT_TRUE(parsed.has_value()) << lines[i];
    EXPECT_EQ(parsed->text, absl::StrCat("line ", 500 - lines.size() + i));
  }
}

// The texts of a log file's lines.
std::vector<std::string> Texts(const std::string& path) {
  std::vector<std::string> texts;
  for (absl::string_view line : absl::StrSplit(ReadAll(path), '\n', absl::SkipEmpty())) {
    auto parsed = contract::ParseLogFileLine(std::string_view(line.data(), line.size()));
    texts.push_back(parsed ? parsed->text : "not a log line: " + std::string(line));
  }
  return texts;
}

TEST(LogFile, KeepsEveryMetricLineInTheMetricsFileWhateverTheRotation) {
  testing::TempDir dir;
  {
    auto writer = OpenLogFile(dir.path(), "w", /*max_bytes=*/2000);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int i = 0; i < 300; ++i) {
      (*writer)->WriteLine(Stream::kOut, absl::StrCat("DLP_METRIC loss=", i, " step=", i));
      (*writer)->WriteLine(Stream::kOut, absl::StrCat("epoch line ", i));
      // On stderr it is no metric.
      (*writer)->WriteLine(Stream::kErr, absl::StrCat("DLP_METRIC stderr=", i));
    }
  }
  std::vector<std::string> expected;
  for (int i = 0; i < 300; ++i) {
    expected.push_back(absl::StrCat("DLP_METRIC loss=", i, " step=", i));
  }
  EXPECT_EQ(Texts(dir.Join("w.metrics")), expected);
  EXPECT_EQ(Mode(dir.Join("w.metrics")), 0600);
  // The log still has them too, as far as rotation kept it.
  EXPECT_THAT(Texts(dir.Join("w.log")), ::testing::Contains("DLP_METRIC loss=299 step=299"));
  EXPECT_THAT(Texts(dir.Join("w.log.1")),
              ::testing::Not(::testing::Contains("DLP_METRIC loss=0 step=0")));
}

TEST(LogFile, AMetricsFilePastItsLimitDropsFurtherPointsAndSaysSoOnce) {
  testing::TempDir dir;
  // An earlier attempt's points count towards the limit.
  const std::string earlier = "2026-11-30T12:00:00.000000Z O DLP_METRIC loss=9 step=0\n";
  std::ofstream(dir.Join("w.metrics")) << earlier;
  const int64_t limit = static_cast<int64_t>(earlier.size()) + 200;
  {
    auto writer = OpenLogFile(dir.path(), "w", /*max_bytes=*/0, limit);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int i = 1; i <= 20; ++i) {
      (*writer)->WriteLine(Stream::kOut, absl::StrCat("DLP_METRIC loss=", i, " step=", i));
    }
  }
  const std::vector<std::string> texts = Texts(dir.Join("w.metrics"));
  // 200 bytes hold 3 lines of about 60 bytes: points 1 to 3, then the notice.
  ASSERT_EQ(texts.size(), 5u) << ReadAll(dir.Join("w.metrics"));
  EXPECT_EQ(texts[0], "DLP_METRIC loss=9 step=0");
  EXPECT_EQ(texts[3], "DLP_METRIC loss=3 step=3");
  EXPECT_EQ(texts[4], contract::kMetricsDropped);
  // The log has every point and the notice, once.
  const std::vector<std::string> log = Texts(dir.Join("w.log"));
  EXPECT_EQ(log.size(), 21u);
  EXPECT_EQ(std::count(log.begin(), log.end(), std::string(contract::kMetricsDropped)), 1);
  EXPECT_EQ(log.back(), "DLP_METRIC loss=20 step=20");
}

}  // namespace
}  // namespace dlp::launch
