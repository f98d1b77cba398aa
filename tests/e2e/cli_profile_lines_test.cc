// `dlp profile`'s line per collective: bandwidth where it says something, the
// median time under 1 KiB, and barriers as waits.
#include "absl/strings/str_format.h"
#include "cli_harness.h"
#include "gmock/gmock.h"
#include "support/temp_dir.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CliProfileLines, SmallCallsAndBarriersShowTimesNotBandwidth) {
  CliEnv env;
  std::string trace = "[\n";
  for (int i = 0; i < 3; ++i) {
    const double t = 1000 + i * 10000;
    absl::StrAppend(
        &trace,
        absl::StrFormat(R"({"name":"step","cat":"step","ph":"X","ts":%.0f,"dur":9000,"pid":0,"tid":0,"args":{"samples":16}},)", t),
        "\n",
        absl::StrFormat(R"({"name":"allreduce","cat":"comm","ph":"X","ts":%.0f,"dur":2000,"pid":0,"tid":0,"args":{"bytes":4194304,"busbw_GBps":3.5}},)", t + 1000),
        "\n",
        absl::StrFormat(R"({"name":"broadcast","cat":"comm","ph":"X","ts":%.0f,"dur":250,"pid":0,"tid":0,"args":{"bytes":64,"busbw_GBps":0.001}},)", t + 4000),
        "\n",
        absl::StrFormat(R"({"name":"barrier","cat":"comm","ph":"X","ts":%.0f,"dur":1500,"pid":0,"tid":0,"args":{"bytes":0,"busbw_GBps":0}},)", t + 5000),
        "\n");
  }
  trace += R"({"name":"trace_end","ph":"i","s":"p","ts":40000,"pid":0,"tid":0}])";
  TempDir traces;
  traces.WriteFile("rank-0.trace.json", trace);
  RunResult r = env.Dlp({"profile", "--dir", traces.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Allreduce:     3 calls, 4096.0 KiB each (median), bus bandwidth "
                               "3.500 GB/s (median)"));
  EXPECT_THAT(r.out, HasSubstr("Broadcast:     3 calls, 64 B each (median), 0.250 ms each (median)"));
  EXPECT_THAT(r.out, HasSubstr("Barrier:       3 waits, 1.500 ms each (median)"));
  EXPECT_THAT(r.out, Not(HasSubstr("0.001 GB/s")));
}

}  // namespace
}  // namespace dlp::testing
