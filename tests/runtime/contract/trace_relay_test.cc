// The trace relay lines that carry trace files through a rank's output.
#include "contract/trace_relay.h"

#include "gtest/gtest.h"

namespace dlp::contract {
namespace {

TEST(TraceRelay, ALineComesBackWithItsFile) {
  const std::string line = FormatTraceRelayLine("rank-3.trace.json", R"({"name":"step"},)");
  EXPECT_EQ(line, R"(DLP_TRACE_LINE rank-3.trace.json {"name":"step"},)");
  auto parsed = ParseTraceRelayLine(line);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->file, "rank-3.trace.json");
  EXPECT_EQ(parsed->line, R"({"name":"step"},)");
}

TEST(TraceRelay, OtherOutputAndOddNamesAreNotRelayLines) {
  EXPECT_FALSE(ParseTraceRelayLine("epoch 1 loss 0.5"));
  EXPECT_FALSE(ParseTraceRelayLine("DLP_TRACE_LINE rank-0.trace.json"));  // no line
  EXPECT_FALSE(ParseTraceRelayLine("DLP_TRACE_LINE ../rank-0.trace.json x"));
  EXPECT_FALSE(ParseTraceRelayLine("DLP_TRACE_LINE /etc/passwd.trace.json x"));
  EXPECT_FALSE(ParseTraceRelayLine("DLP_TRACE_LINE rank-0.log x"));
  EXPECT_FALSE(ParseTraceRelayLine("DLP_TRACE_LINE .trace.json x"));
  EXPECT_TRUE(ParseTraceRelayLine("DLP_TRACE_LINE rank-0.trace.json ["));
}

}  // namespace
}  // namespace dlp::contract
