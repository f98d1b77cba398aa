// spec.successPolicy (dlp-job(5), "Success policy"): the YAML decoder, the
// checks on specs built in code, both codecs and the group file it becomes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "contract/group.h"
#include "dlp/codec.h"
#include "dlp/spec.h"
#include "job/job_group.h"

namespace dlp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A parameter-server job; cases add lines under `spec:` (line 15 onwards).
constexpr char kHead[] = R"(apiVersion: dlp/v1
kind: Job
metadata:
  name: ps
spec:
  framework: tensorflow
  replicas:
    chief:
      command: [python3, chief.py]
    ps:
      count: 2
      command: [python3, ps.py]
    worker:
      count: 2
      command: [python3, worker.py]
)";

absl::StatusOr<JobSpec> Parse(const std::string& more) {
  return ParseJobSpec(std::string(kHead) + more, "job.yaml");
}

std::string ErrorOf(const std::string& more) {
  absl::StatusOr<JobSpec> spec = Parse(more);
  EXPECT_FALSE(spec.ok()) << more;
  return spec.ok() ? "" : std::string(spec.status().message());
}

TEST(SuccessPolicy, DefaultsToEveryReplica) {
  absl::StatusOr<JobSpec> spec = Parse("");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->success_policy.roles, IsEmpty());
  EXPECT_THAT(internal::JobGroup(*spec).success_roles, IsEmpty());
}

TEST(SuccessPolicy, NamesRolesOfTheJob) {
  absl::StatusOr<JobSpec> spec = Parse("  successPolicy: {roles: [chief]}\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->success_policy.roles, ElementsAre("chief"));
  EXPECT_TRUE(ValidateJobSpec(*spec).ok());

  absl::StatusOr<JobSpec> two = Parse("  successPolicy:\n    roles: [worker, chief]\n");
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_THAT(two->success_policy.roles, ElementsAre("worker", "chief"));
}

TEST(SuccessPolicy, UnknownRoleIsNamedWithItsPosition) {
  EXPECT_THAT(ErrorOf("  successPolicy: {roles: [cheif]}\n"),
              HasSubstr("job.yaml:16:27: spec.successPolicy.roles[0]: unknown role \"cheif\"; did "
                        "you mean 'chief'? (expected one of: chief, ps, worker)"));
  // A role dlp knows, but not one this job has.
  EXPECT_THAT(ErrorOf("  successPolicy: {roles: [chief, evaluator]}\n"),
              HasSubstr("job.yaml:16:34: spec.successPolicy.roles[1]: unknown role \"evaluator\""));
}

TEST(SuccessPolicy, MalformedPoliciesAreRefused) {
  EXPECT_THAT(ErrorOf("  successPolicy: {roles: []}\n"),
              HasSubstr("job.yaml:16:26: spec.successPolicy.roles: needs at least one role"));
  EXPECT_THAT(ErrorOf("  successPolicy: {roles: [chief, chief]}\n"),
              HasSubstr("job.yaml:16:34: spec.successPolicy.roles[1]: role chief is listed twice; "
                        "first on line 16"));
  EXPECT_THAT(ErrorOf("  successPolicy: {role: [chief]}\n"),
              HasSubstr("spec.successPolicy.role: unknown field; did you mean 'roles'?"));
  EXPECT_THAT(ErrorOf("  successPolicy: {}\n"),
              HasSubstr("spec.successPolicy.roles: required; e.g. roles: [chief]"));
  EXPECT_THAT(ErrorOf("  successPolicy: chief\n"),
              HasSubstr("job.yaml:16:18: spec.successPolicy: expected a map with roles"));
  EXPECT_THAT(ErrorOf("  successPolicy: {roles: chief}\n"),
              HasSubstr("spec.successPolicy.roles: expected a list of roles, e.g. [chief], got"));
}

TEST(SuccessPolicy, ValidateChecksSpecsBuiltInCode) {
  absl::StatusOr<JobSpec> spec = Parse("");
  ASSERT_TRUE(spec.ok()) << spec.status();
  spec->success_policy.roles = {"chief", "evaluator", "chief"};
  absl::Status status = ValidateJobSpec(*spec);
  EXPECT_THAT(status.message(),
              HasSubstr("spec.successPolicy.roles[1]: unknown role \"evaluator\""));
  EXPECT_THAT(status.message(),
              HasSubstr("spec.successPolicy.roles[2]: role chief is listed twice"));
  spec->success_policy.roles = {"a\nb"};
  EXPECT_THAT(ValidateJobSpec(*spec).message(), HasSubstr("unknown role \"a\\nb\""));
}

TEST(SuccessPolicy, JsonAndYamlRoundTrip) {
  absl::StatusOr<JobSpec> spec = Parse("  successPolicy: {roles: [chief]}\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  const std::string json = JobSpecToJson(*spec);
  EXPECT_THAT(json, HasSubstr(R"("successPolicy":{"roles":["chief"]})"));
  absl::StatusOr<JobSpec> back = JobSpecFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, *spec);

  const std::string yaml = JobSpecToYaml(*spec);
  EXPECT_THAT(yaml, HasSubstr("successPolicy:"));
  absl::StatusOr<JobSpec> from_yaml = ParseJobSpec(yaml, "back.yaml");
  ASSERT_TRUE(from_yaml.ok()) << from_yaml.status() << "\n" << yaml;
  EXPECT_EQ(from_yaml->success_policy, spec->success_policy);

  // The default is not written: specs stored before read the same.
  absl::StatusOr<JobSpec> plain = Parse("");
  ASSERT_TRUE(plain.ok());
  EXPECT_THAT(JobSpecToJson(*plain), Not(HasSubstr("successPolicy")));
  EXPECT_THAT(JobSpecToYaml(*plain), Not(HasSubstr("successPolicy")));
}

TEST(SuccessPolicy, JsonErrorsNameTheField) {
  absl::StatusOr<JobSpec> spec = Parse("  successPolicy: {roles: [chief]}\n");
  ASSERT_TRUE(spec.ok());
  std::string json = JobSpecToJson(*spec);
  auto with = [&json](const std::string& from, const std::string& to) {
    std::string changed = json;
    changed.replace(changed.find(from), from.size(), to);
    return JobSpecFromJson(changed).status();
  };
  EXPECT_THAT(with(R"("roles":["chief"])", R"("roles":[])").message(),
              HasSubstr("successPolicy.roles: needs at least one role"));
  EXPECT_THAT(with(R"("roles":["chief"])", R"("roles":[1])").message(),
              HasSubstr("successPolicy.roles[0]: expected a string"));
  EXPECT_THAT(with(R"("roles":["chief"])", R"("roles":["chief"],"any":1)").message(),
              HasSubstr("successPolicy.any"));
}

TEST(SuccessPolicy, GroupFileCarriesIt) {
  absl::StatusOr<JobSpec> spec = Parse("  successPolicy: {roles: [chief]}\n");
  ASSERT_TRUE(spec.ok());
  const contract::Group group = internal::JobGroup(*spec);
  EXPECT_THAT(group.success_roles, ElementsAre("chief"));
  const std::string text = contract::GroupToJson(group);
  EXPECT_THAT(text, HasSubstr(R"("successPolicy": {)"));
  absl::StatusOr<contract::Group> back = contract::ParseGroupJson(text, "g.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(back->success_roles, ElementsAre("chief"));
  EXPECT_THAT(contract::GroupToJson(internal::JobGroup(*Parse(""))),
              Not(HasSubstr("successPolicy")));
}

}  // namespace
}  // namespace dlp
