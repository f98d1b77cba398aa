// The log line format, written and read by the same module.
#include "contract/log_line.h"

#include <gtest/gtest.h>

namespace dlp::contract {
namespace {

TEST(LogLine, WritesAndReadsTheSameLine) {
  const absl::Time t = absl::FromUnixMicros(1796040000123456);
  const std::string line = FormatLogFileLine(t, LogStream::kErr, "oops: a b");
  EXPECT_EQ(line, "2026-11-30T12:00:00.123456Z E oops: a b\n");
  auto parsed = ParseLogFileLine(std::string_view(line).substr(0, line.size() - 1));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->time, t);
  EXPECT_EQ(parsed->time_text, "2026-11-30T12:00:00.123456Z");
  EXPECT_EQ(parsed->stream, LogStream::kErr);
  EXPECT_EQ(parsed->text, "oops: a b");
  EXPECT_EQ(LogStreamName(parsed->stream), "stderr");
}

TEST(LogLine, EmptyTextAndOtherFormats) {
  auto empty = ParseLogFileLine("2026-11-30T12:00:00.123456Z O");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->text, "");
  EXPECT_EQ(empty->stream, LogStream::kOut);
  EXPECT_FALSE(ParseLogFileLine("not a log line"));
  EXPECT_FALSE(ParseLogFileLine("2026-11-30T12:00:00Z X text"));
  EXPECT_FALSE(ParseLogFileLine("yesterday O text"));
  EXPECT_FALSE(ParseLogFileLine("2026-11-30T12:00:00Z Otext"));
}

}  // namespace
}  // namespace dlp::contract
