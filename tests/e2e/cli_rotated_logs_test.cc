// A job whose log rotated past logs.maxBytes: `dlp metrics` still has every
// point (the metrics file is never rotated), and `dlp logs` shows every line
// still on disk, the rotated file's before the current one's.
#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"
#include "e2e/cli_harness.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

constexpr int kPoints = 3000;

// The texts of a log file's lines ("TIME O text", docs/runtime-contract.md);
// empty when there is no such file.
std::vector<std::string> FileTexts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  std::vector<std::string> texts;
  for (absl::string_view line : absl::StrSplit(content.str(), '\n', absl::SkipEmpty())) {
    const std::vector<std::string> fields = absl::StrSplit(line, absl::MaxSplits(' ', 2));
    texts.push_back(fields.size() == 3 ? fields[2] : "not a log line: " + std::string(line));
  }
  return texts;
}

TEST(CliRotatedLogs, MetricsKeepEveryPointAndLogsShowTheRotatedFileToo) {
  CliEnv env;
  // Each point between two other lines: 9,000 lines, some 400 KB of log.
  const std::string spec = env.WriteJob(
      "rotated",
      absl::StrCat("i=1\nwhile [ $i -le ", kPoints,
                   " ]; do\n  echo \"DLP_METRIC loss=$i step=$i\"\n  echo \"line a $i\"\n"
                   "  echo \"line b $i\"\n  i=$((i+1))\ndone"),
      1, "100m", "  logs: {maxBytes: 64Ki}\n");
  const std::string id = env.Submit(spec);
  ASSERT_EQ(env.Dlp({"wait", id}).exit_code, 0);

  const std::string logs = env.StateDir() + "/jobs/" + id + "/logs/worker-0.log";
  std::vector<std::string> on_disk = FileTexts(logs + ".1");
  const std::vector<std::string> current = FileTexts(logs);
  ASSERT_FALSE(on_disk.empty()) << "the log was not rotated";
  ASSERT_FALSE(current.empty());
  on_disk.insert(on_disk.end(), current.begin(), current.end());
  EXPECT_EQ(on_disk.back(), absl::StrCat("line b ", kPoints));

  RunResult shown = env.Dlp({"logs", id, "--replica", "worker-0", "--metrics"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const std::vector<std::string> lines = absl::StrSplit(shown.out, '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), on_disk.size());
  EXPECT_TRUE(lines == on_disk) << "shown first: " << (lines.empty() ? "" : lines.front())
                                << "\non disk first: " << on_disk.front();
  // The lines the rotation dropped are dropped from view, not the points.
  EXPECT_LT(lines.size(), static_cast<size_t>(3 * kPoints));

  RunResult metrics = env.Dlp({"metrics", id, "-o", "json"});
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  const nlohmann::json doc = nlohmann::json::parse(metrics.out, nullptr, false);
  const nlohmann::json points = doc.is_object() ? doc.value("metrics", nlohmann::json()) : doc;
  ASSERT_TRUE(points.is_array()) << metrics.out;
  ASSERT_EQ(points.size(), static_cast<size_t>(kPoints));
  for (int i = 0; i < kPoints; ++i) {
    EXPECT_EQ(points[i]["step"], i + 1);
    EXPECT_EQ(points[i]["value"], i + 1.0);
  }
}

}  // namespace
}  // namespace dlp::testing
