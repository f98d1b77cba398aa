// Kubernetes-style CPU and memory quantities (dlp-job(5), RESOURCES).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dlp/spec.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;

TEST(CpuQuantity, ParsesWholeFractionalAndMilli) {
  EXPECT_EQ(*ParseCpuMillis("2"), 2000);
  EXPECT_EQ(*ParseCpuMillis("0.5"), 500);
  EXPECT_EQ(*ParseCpuMillis(".25"), 250);
  EXPECT_EQ(*ParseCpuMillis("1.5"), 1500);
  EXPECT_EQ(*ParseCpuMillis("500m"), 500);
  EXPECT_EQ(*ParseCpuMillis("1m"), 1);
  EXPECT_EQ(*ParseCpuMillis("0.001"), 1);
  EXPECT_EQ(*ParseCpuMillis("64"), 64000);
}

TEST(CpuQuantity, RejectsWithExpectedForms) {
  for (const char* bad : {"abc", "", "-1", "1.5m", "0.0001", "2 cpus", "1e3", "2c", "m"}) {
    absl::StatusOr<int64_t> r = ParseCpuMillis(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr("is not a CPU quantity")) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("expected e.g. 2, 0.5 or 500m")) << bad;
  }
  EXPECT_THAT(ParseCpuMillis("0.0001").status().message(), HasSubstr("finer than 1m"));
  EXPECT_THAT(ParseCpuMillis("-1").status().message(), HasSubstr("negative"));
}

TEST(MemoryQuantity, ParsesBinaryDecimalAndPlain) {
  EXPECT_EQ(*ParseMemoryBytes("1000"), 1000);
  EXPECT_EQ(*ParseMemoryBytes("0"), 0);
  EXPECT_EQ(*ParseMemoryBytes("1Ki"), 1024);
  EXPECT_EQ(*ParseMemoryBytes("512Mi"), 512LL << 20);
  EXPECT_EQ(*ParseMemoryBytes("4Gi"), 4LL << 30);
  EXPECT_EQ(*ParseMemoryBytes("2Ti"), 2LL << 40);
  EXPECT_EQ(*ParseMemoryBytes("1Pi"), 1LL << 50);
  EXPECT_EQ(*ParseMemoryBytes("1Ei"), 1LL << 60);
  EXPECT_EQ(*ParseMemoryBytes("1k"), 1000);
  EXPECT_EQ(*ParseMemoryBytes("4G"), 4000000000LL);
  EXPECT_EQ(*ParseMemoryBytes("3M"), 3000000);
  EXPECT_EQ(*ParseMemoryBytes("1T"), 1000000000000LL);
  EXPECT_EQ(*ParseMemoryBytes("1P"), 1000000000000000LL);
  EXPECT_EQ(*ParseMemoryBytes("1E"), 1000000000000000000LL);
  EXPECT_EQ(*ParseMemoryBytes("1.5Gi"), 1610612736);
  EXPECT_EQ(*ParseMemoryBytes("0.5Ki"), 512);
}

TEST(MemoryQuantity, ExponentFormsAndRounding) {
  EXPECT_EQ(*ParseMemoryBytes("1e9"), 1000000000);
  EXPECT_EQ(*ParseMemoryBytes("5E3"), 5000);
  EXPECT_EQ(*ParseMemoryBytes("1e+3"), 1000);
  EXPECT_EQ(*ParseMemoryBytes("1.5e3"), 1500);
  EXPECT_EQ(*ParseMemoryBytes("1e-1"), 1);  // rounds up to whole bytes, as Kubernetes does
  EXPECT_EQ(*ParseMemoryBytes("0.1"), 1);
}

TEST(MemoryQuantity, RejectsCommonMistakesWithHints) {
  struct Case {
    const char* text;
    const char* hint;
  };
  const Case cases[] = {
      {"4GB", "did you mean 4G (10^9 bytes) or 4Gi (2^30)?"},
      {"512MB", "did you mean 512M (10^6 bytes) or 512Mi (2^20)?"},
      {"4GiB", "did you mean 4Gi?"},
      {"4gi", "did you mean 4Gi?"},
      {"4g", "did you mean 4G (10^9 bytes) or 4Gi (2^30)?"},
      {"1K", "did you mean 1k or 1Ki?"},
      {"512m", "'m' means thousandths of a byte; did you mean 512M or 512Mi?"},
      {"100B", "did you mean 100 (plain bytes)?"},
      {"-1Gi", "must not be negative"},
      {"lots", "expected e.g. 512Mi, 4Gi (binary) or 4G"},
      {"", "expected e.g. 512Mi, 4Gi (binary) or 4G"},
      {"4 Gi", "expected e.g. 512Mi, 4Gi (binary) or 4G"},
      {"99999999Ei", "too large"},
      {"1e40", "expected e.g. 512Mi"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<int64_t> r = ParseMemoryBytes(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_THAT(r.status().message(), HasSubstr("is not a memory quantity")) << c.text;
    EXPECT_THAT(r.status().message(), HasSubstr(c.hint)) << c.text;
  }
}

TEST(QuantityFormat, CpuCanonicalForms) {
  EXPECT_EQ(FormatCpuMillis(500), "500m");
  EXPECT_EQ(FormatCpuMillis(2000), "2");
  EXPECT_EQ(FormatCpuMillis(1500), "1500m");
  EXPECT_EQ(FormatCpuMillis(1), "1m");
}

TEST(QuantityFormat, MemoryPrefersExactBinaryThenDecimal) {
  EXPECT_EQ(FormatMemoryBytes(4294967296), "4Gi");
  EXPECT_EQ(FormatMemoryBytes(512LL << 20), "512Mi");
  EXPECT_EQ(FormatMemoryBytes(1536LL << 20), "1536Mi");
  EXPECT_EQ(FormatMemoryBytes(4000000000LL), "4G");
  EXPECT_EQ(FormatMemoryBytes(1000), "1k");
  EXPECT_EQ(FormatMemoryBytes(1500), "1500");
  EXPECT_EQ(FormatMemoryBytes(0), "0");
}

TEST(QuantityFormat, RoundTrips) {
  for (int64_t bytes : {int64_t{1}, int64_t{1023}, int64_t{1024}, int64_t{999999}, int64_t{3} << 40,
                        int64_t{7} * 1000 * 1000 * 1000}) {
    EXPECT_EQ(*ParseMemoryBytes(FormatMemoryBytes(bytes)), bytes);
  }
  for (int64_t millis : {1, 250, 999, 1000, 2500, 64000}) {
    EXPECT_EQ(*ParseCpuMillis(FormatCpuMillis(millis)), millis);
  }
}

}  // namespace
}  // namespace dlp
