// replicas.ROLE.minCount: an elastic worker runs with between minCount and
// count replicas. Parsed from YAML and JSON, validated with positions, and
// written back only when set.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "dlp/codec.h"
#include "dlp/spec.h"

namespace dlp {
namespace {

using ::testing::HasSubstr;

std::string Spec(const std::string& worker) {
  return "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: el}\nspec:\n  replicas:\n"
         "    chief: {command: [x]}\n"
         "    worker:\n      command: [python3, train.py]\n" +
         worker;
}

TEST(SpecElastic, MinCountParsesAndMakesTheWorkerElastic) {
  absl::StatusOr<JobSpec> spec =
      ParseJobSpec(Spec("      count: 4\n      minCount: 2\n"), "j.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  const ReplicaSpec& worker = spec->replicas[1];
  EXPECT_EQ(worker.min_count, 2);
  EXPECT_EQ(MinCountOf(worker), 2);
  EXPECT_TRUE(IsElastic(worker));
  EXPECT_FALSE(IsElastic(spec->replicas[0]));
  EXPECT_TRUE(ValidateJobSpec(*spec).ok());
}

TEST(SpecElastic, AbsentMinCountIsRigid) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(Spec("      count: 4\n"), "j.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->replicas[1].min_count, 0);
  EXPECT_EQ(MinCountOf(spec->replicas[1]), 4);
  EXPECT_FALSE(IsElastic(spec->replicas[1]));
  // minCount equal to count is rigid too.
  spec = ParseJobSpec(Spec("      count: 4\n      minCount: 4\n"), "j.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(IsElastic(spec->replicas[1]));
}

TEST(SpecElastic, OutOfRangeMinCountNamesFileLineAndField) {
  absl::StatusOr<JobSpec> spec =
      ParseJobSpec(Spec("      count: 4\n      minCount: 5\n"), "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("j.yaml:10:17: spec.replicas.worker.minCount: must be between 1 and "
                        "count (4), got 5"));
  spec = ParseJobSpec(Spec("      count: 4\n      minCount: 0\n"), "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("j.yaml:10:17: spec.replicas.worker.minCount"));
  spec = ParseJobSpec(Spec("      count: 4\n      minCount: two\n"), "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("spec.replicas.worker.minCount: expected an integer"));
}

TEST(SpecElastic, OnlyAWorkerMayBeElastic) {
  const std::string yaml =
      "apiVersion: dlp/v1\nkind: Job\nmetadata: {name: el}\nspec:\n  replicas:\n"
      "    ps: {count: 2, minCount: 1, command: [x]}\n";
  absl::StatusOr<JobSpec> spec = ParseJobSpec(yaml, "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("j.yaml:6:30: spec.replicas.ps.minCount: only worker may be elastic"));
}

TEST(SpecElastic, AnInvalidCountDoesNotAlsoBlameMinCount) {
  absl::StatusOr<JobSpec> spec =
      ParseJobSpec(Spec("      count: 0\n      minCount: 2\n"), "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("spec.replicas.worker.count"));
  EXPECT_THAT(spec.status().message(), ::testing::Not(HasSubstr("minCount")));
}

TEST(SpecElastic, OverridesSetMinCount) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(Spec("      count: 8\n"), "j.yaml",
                                              {.overrides = {"spec.replicas.worker.minCount=2"}});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->replicas[1].min_count, 2);
}

TEST(SpecElastic, ValidateCatchesASpecBuiltInCode) {
  absl::StatusOr<JobSpec> spec = ParseJobSpec(Spec("      count: 4\n"), "j.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  spec->replicas[1].min_count = 6;
  absl::Status status = ValidateJobSpec(*spec);
  EXPECT_THAT(status.message(), HasSubstr("spec.replicas.worker.minCount: must be between 1"));
  spec->replicas[1].min_count = 0;
  spec->replicas[0].count = 1;
  spec->replicas[0].min_count = 1;
  EXPECT_TRUE(ValidateJobSpec(*spec).ok());
}

TEST(SpecElastic, JsonAndYamlRoundTripWithMinCountOnlyWhenSet) {
  absl::StatusOr<JobSpec> spec =
      ParseJobSpec(Spec("      count: 4\n      minCount: 1\n"), "j.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  const std::string json = JobSpecToJson(*spec);
  EXPECT_THAT(json, HasSubstr(R"("role":"worker","count":4,"minCount":1,)"));
  absl::StatusOr<JobSpec> back = JobSpecFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, *spec);
  const std::string yaml = JobSpecToYaml(*spec);
  EXPECT_THAT(yaml, HasSubstr("minCount: 1"));
  absl::StatusOr<JobSpec> from_yaml = ParseJobSpec(yaml, "j.yaml");
  ASSERT_TRUE(from_yaml.ok()) << from_yaml.status() << "\n" << yaml;
  EXPECT_EQ(from_yaml->replicas[1].min_count, 1);

  absl::StatusOr<JobSpec> rigid = ParseJobSpec(Spec("      count: 4\n"), "j.yaml");
  ASSERT_TRUE(rigid.ok());
  EXPECT_THAT(JobSpecToJson(*rigid), ::testing::Not(HasSubstr("minCount")));
  EXPECT_THAT(JobSpecToYaml(*rigid), ::testing::Not(HasSubstr("minCount")));
}

}  // namespace
}  // namespace dlp
