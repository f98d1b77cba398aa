// The client's reader of dlpd's NDJSON log lines: fields of another type
// than expected fall back to their defaults instead of throwing.
#include <gtest/gtest.h>

#include "backends/api/api_backend.h"

namespace dlp::internal {
namespace {

TEST(NdjsonLogLine, ReadsTheFields) {
  auto line = ParseNdjsonLogLine(
      R"({"replica":"worker-0","stream":"stderr","time":"2026-11-30T12:00:00Z","text":"hi"})");
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->replica, "worker-0");
  EXPECT_EQ(line->stream, "stderr");
  EXPECT_EQ(line->text, "hi");
  EXPECT_EQ(line->time, absl::FromUnixSeconds(1796040000));
}

TEST(NdjsonLogLine, FieldsOfAnotherTypeTakeTheDefaults) {
  auto line = ParseNdjsonLogLine(R"({"replica":1,"stream":null,"time":2,"text":["x"]})");
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->replica, "");
  EXPECT_EQ(line->stream, "stdout");
  EXPECT_EQ(line->text, "");
  EXPECT_EQ(line->time, absl::UnixEpoch());
  EXPECT_FALSE(ParseNdjsonLogLine("[1]").ok());
  EXPECT_FALSE(ParseNdjsonLogLine("{").ok());
}

}  // namespace
}  // namespace dlp::internal
