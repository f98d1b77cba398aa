// spec.tracing (sampled | full | off) through every form of a spec, and into
// the ranks' environment that dlp-run starts them with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dlp/codec.h"
#include "dlp/spec.h"
#include "job/job_group.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<JobSpec> Parse(const std::string& tracing, const std::string& env = "{}") {
  return ParseJobSpec(R"(apiVersion: dlp/v1
kind: Job
metadata: {name: traced}
spec:
  replicas:
    worker: {command: [echo, hi], env: )" + env + R"(}
  tracing: )" + tracing + "\n",
                      "/w/job.yaml");
}

TEST(SpecTracing, GoesThroughEveryForm) {
  absl::StatusOr<JobSpec> spec = Parse("full");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->tracing, Tracing::kFull);
  // dlpd's stored JSON and `dlp render`'s YAML read back the same.
  const absl::StatusOr<JobSpec> read_back[] = {
      JobSpecFromJson(JobSpecToJson(*spec)), ParseJobSpec(JobSpecToYaml(*spec), "/w/job.yaml")};
  for (const absl::StatusOr<JobSpec>& read : read_back) {
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(*read, *spec);
  }
  // The default is not written: specs stored before read the same.
  spec->tracing = Tracing::kSampled;
  EXPECT_EQ(JobSpecToJson(*spec).find("tracing"), std::string::npos);
  EXPECT_EQ(JobSpecToYaml(*spec).find("tracing"), std::string::npos);
}

TEST(SpecTracing, AnUnknownValueIsRefusedWithTheField) {
  absl::StatusOr<JobSpec> bad = Parse("everything");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("spec.tracing"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("sampled"));
  absl::StatusOr<JobSpec> bad_json = JobSpecFromJson(R"({"tracing":"all"})");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_THAT(std::string(bad_json.status().message()),
              HasSubstr("tracing: unknown tracing \"all\"; did you mean 'full'? (expected one of: "
                        "sampled, full, off)"));
}

TEST(SpecTracing, BecomesTheRanksEnvironmentUnlessARoleSetsItsOwn) {
  auto env = [](const std::string& tracing, const std::string& role_env = "{}") {
    absl::StatusOr<JobSpec> spec = Parse(tracing, role_env);
    EXPECT_TRUE(spec.ok()) << spec.status();
    return internal::JobGroup(*spec).roles.at(0).env;
  };
  // full lifts the 16 MiB budget; off writes no trace; sampled keeps the budget.
  EXPECT_EQ(env("full").at("DLP_TRACE_MAX_BYTES"), "0");
  EXPECT_EQ(env("off").at("DLP_TRACE"), "0");
  EXPECT_EQ(env("sampled").count("DLP_TRACE"), 0u);
  EXPECT_EQ(env("sampled").count("DLP_TRACE_MAX_BYTES"), 0u);
  EXPECT_EQ(env("full", "{DLP_TRACE_MAX_BYTES: \"1000\"}").at("DLP_TRACE_MAX_BYTES"), "1000");
}

}  // namespace
}  // namespace dlp
