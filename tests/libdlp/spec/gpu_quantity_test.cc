// resources.gpu as a fraction or whole GPUs, resources.gpuType, and their
// round trip through YAML and JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "dlp/codec.h"
#include "dlp/spec.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;

// The worker's resources on line 9 (column 18 is where the map begins).
std::string Spec(const std::string& resources) {
  return "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: g}\nspec:\n  replicas:\n"
         "    worker:\n      count: 2\n      command: [python3, train.py]\n"
         "      resources: " +
         resources + "\n";
}

absl::StatusOr<JobSpec> Parse(const std::string& resources) {
  return ParseJobSpec(Spec(resources), "/specs/job.yaml");
}

TEST(SpecGpu, FractionsAreMilliGpus) {
  for (const auto& [text, millis] : std::vector<std::pair<std::string, int64_t>>{{"0.5", 500},
                                                                                 {"0.25", 250},
                                                                                 {"0.001", 1},
                                                                                 {"\"0.75\"", 750},
                                                                                 {"1", 1000},
                                                                                 {"2", 2000},
                                                                                 {"64", 64000},
                                                                                 {"0", 0},
                                                                                 {"1.0", 1000},
                                                                                 {"2.000", 2000}}) {
    absl::StatusOr<JobSpec> spec = Parse("{gpu: " + text + "}");
    ASSERT_TRUE(spec.ok()) << text << ": " << spec.status();
    EXPECT_EQ(spec->replicas[0].resources.gpu_millis, millis) << text;
  }
}

TEST(SpecGpu, AFractionAboveOneIsRefusedWithTheReason) {
  absl::StatusOr<JobSpec> spec = Parse("{gpu: 1.5}");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("job.yaml:9:24: spec.replicas.worker.resources.gpu: got 1.5: a fraction "
                        "above 1 cannot be packed on one device; ask for whole GPUs (1 or 2) or "
                        "a fraction below 1"));
}

TEST(SpecGpu, BadQuantitiesNameTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{gpu: 0.0005}",
       "\"0.0005\" is not a GPU quantity (finer than 0.001, a thousandth of a GPU)"},
      {"{gpu: half}", "\"half\" is not a GPU quantity; expected e.g. 1, 2 or 0.5"},
      {"{gpu: 65}", "must be between 0 and 64 GPUs per replica, got 65"},
      {"{gpu: -0.5}", "must be between 0 and 64 GPUs per replica, got -0.5"},
      {"{gpu: [1]}", "expected a string, got a list"},
      {"{gpu: 1, gpuType: \"\"}", "gpuType: must not be empty; leave it out for any GPU"},
      {"{gpu: 1, gputype: h200}", "did you mean 'gpuType'"},
  };
  for (const auto& [resources, expected] : cases) {
    absl::StatusOr<JobSpec> spec = Parse(resources);
    ASSERT_FALSE(spec.ok()) << resources;
    EXPECT_THAT(spec.status().message(), HasSubstr("spec.replicas.worker.resources.gpu"))
        << resources;
    EXPECT_THAT(spec.status().message(), HasSubstr(expected)) << resources;
  }
}

TEST(SpecGpu, GpuTypeTakesAFlavourOrADeviceName) {
  absl::StatusOr<JobSpec> spec = Parse("{gpu: 0.5, gpuType: h200}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->replicas[0].resources.gpu_type, "h200");
  spec = Parse("{gpu: 1, gpuType: NVIDIA H200}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->replicas[0].resources.gpu_type, "NVIDIA H200");
}

TEST(SpecGpu, ValidateJobSpecAppliesTheSameRules) {
  JobSpec spec;
  spec.name = "g";
  spec.workdir = "/tmp";
  ReplicaSpec r{.role = "worker", .count = 1, .command = {"true"}};
  r.resources.gpu_millis = 2500;
  spec.replicas.push_back(r);
  absl::Status status = ValidateJobSpec(spec);
  EXPECT_THAT(status.message(), HasSubstr("spec.replicas.worker.resources.gpu: got 2.5: a "
                                          "fraction above 1 cannot be packed on one device"));
  spec.replicas[0].resources.gpu_millis = 250;
  EXPECT_TRUE(ValidateJobSpec(spec).ok());
}

TEST(SpecGpu, FractionsAndWholeGpusRoundTripThroughJsonAndYaml) {
  for (const std::string gpu : {"0.5", "0.125", "2", "0"}) {
    absl::StatusOr<JobSpec> spec = Parse("{gpu: " + gpu + ", gpuType: h100-80gb-hbm3}");
    ASSERT_TRUE(spec.ok()) << spec.status();
    const std::string json = JobSpecToJson(*spec);
    // Whole numbers stay integers, fractions stay fractions.
    EXPECT_THAT(json, HasSubstr("\"gpu\":" + gpu)) << json;
    EXPECT_THAT(json, HasSubstr("\"gpuType\":\"h100-80gb-hbm3\"")) << json;
    absl::StatusOr<JobSpec> back = JobSpecFromJson(json);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, *spec);
    const std::string yaml = JobSpecToYaml(*spec);
    EXPECT_THAT(yaml, HasSubstr("gpu: " + gpu + "\n")) << yaml;
    absl::StatusOr<JobSpec> from_yaml = ParseJobSpec(yaml, "/specs/job.yaml");
    ASSERT_TRUE(from_yaml.ok()) << from_yaml.status() << "\n" << yaml;
    EXPECT_EQ(from_yaml->replicas, spec->replicas);
  }
}

TEST(SpecGpu, JsonTakesNumbersAndStrings) {
  JobSpec spec;
  spec.name = "g";
  spec.workdir = "/tmp";
  spec.replicas.push_back({.role = "worker", .count = 1, .command = {"true"}});
  std::string json = JobSpecToJson(spec);
  const std::string whole = "\"gpu\":0";
  ASSERT_NE(json.find(whole), std::string::npos) << json;
  for (const auto& [text, millis] :
       std::vector<std::pair<std::string, int64_t>>{{"0.25", 250}, {"\"0.5\"", 500}, {"3", 3000}}) {
    std::string j = json;
    j.replace(j.find(whole), whole.size(), "\"gpu\":" + text);
    absl::StatusOr<JobSpec> back = JobSpecFromJson(j);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status();
    EXPECT_EQ(back->replicas[0].resources.gpu_millis, millis);
  }
  std::string fine = json;
  fine.replace(fine.find(whole), whole.size(), "\"gpu\":0.0001");
  EXPECT_THAT(JobSpecFromJson(fine).status().message(),
              HasSubstr("replicas[0].resources.gpu: \"0.0001\" is not a GPU quantity (finer than "
                        "0.001"));
}

TEST(SpecGpu, QuantityHelpers) {
  EXPECT_EQ(*ParseGpuMillis("0.5"), 500);
  EXPECT_EQ(*ParseGpuMillis("3"), 3000);
  EXPECT_EQ(*ParseGpuMillis(".25"), 250);
  EXPECT_FALSE(ParseGpuMillis("").ok());
  EXPECT_FALSE(ParseGpuMillis("1g").ok());
  EXPECT_EQ(FormatGpuMillis(500), "0.5");
  EXPECT_EQ(FormatGpuMillis(250), "0.25");
  EXPECT_EQ(FormatGpuMillis(1), "0.001");
  EXPECT_EQ(FormatGpuMillis(2000), "2");
  EXPECT_EQ(FormatGpuMillis(1500), "1.5");
  EXPECT_EQ(FormatGpuMillis(-500), "-0.5");
}

}  // namespace
}  // namespace dlp
