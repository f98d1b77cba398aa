// The job spec's code against schema/api.schema.json, through the tables the
// build generates from it (schema/fields.h). A field the decoder reads must be
// in the schema to compile (spec_schema_misuse, tests/CMakeLists.txt); here
// the other way round: every field of the schema is read and written back,
// and every name of its enums is one the code knows.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "contract/names.h"
#include "dlp/codec.h"
#include "dlp/job.h"
#include "schema/fields.h"

namespace dlp {
namespace {

using Json = nlohmann::json;

// A spec that sets every field of the schema's JobSpec, none to its default.
// A field added to the schema is added here too (MissingFields says which).
Json FullSpec() {
  return Json::parse(R"({
    "name": "full", "labels": {"team": "vision"}, "framework": "tensorflow",
    "queue": "gpu", "priority": 100,
    "replicas": [
      {"role": "chief", "count": 1, "command": ["python3", "train.py"], "env": {"A": "1"},
       "resources": {"cpu": "2", "memory": "1Gi", "gpu": 1, "gpuType": "a100"}},
      {"role": "worker", "count": 4, "minCount": 2, "command": ["python3", "train.py"],
       "env": {}, "resources": {"cpu": "500m", "memory": "0", "gpu": 0.5}}],
    "workdir": "/srv/job",
    "restartPolicy": {"policy": "OnFailure", "maxRestarts": 5, "backoffSeconds": 10},
    "activeDeadlineSeconds": 3600, "image": "pytorch/pytorch:2.3",
    "logs": {"maxBytes": 1048576}, "preemptible": false, "tracing": "full",
    "preemption": {"gracePeriodSeconds": 60},
    "dependsOn": [{"job": "prep", "condition": "failed"}],
    "successPolicy": {"roles": ["chief"]}
  })");
}

// The fields of `object` (and of the objects under it) that `value` lacks,
// as paths.
void MissingFields(const schema::Object& object, const Json& value, const std::string& path,
                   std::vector<std::string>& out) {
  for (const schema::Field& field : object.fields) {
    const std::string at = path + std::string(field.name);
    const auto it = value.find(std::string(field.name));
    if (it == value.end()) {
      out.push_back(at);
      continue;
    }
    if (field.object == nullptr) continue;
    if (it->is_array()) {  // every item's fields, found in some item
      Json merged = Json::object();
      for (const Json& item : *it) merged.merge_patch(item);
      MissingFields(*field.object, merged, at + "[].", out);
    } else {
      MissingFields(*field.object, *it, at + ".", out);
    }
  }
}

TEST(SpecSchema, EveryFieldOfTheSchemaIsDecodedAndEncoded) {
  const Json full = FullSpec();
  std::vector<std::string> missing;
  MissingFields(schema::kJobSpec, full, "", missing);
  EXPECT_THAT(missing, ::testing::IsEmpty()) << "FullSpec() sets every field of the schema";
  absl::StatusOr<JobSpec> spec = JobSpecFromJson(full.dump());
  ASSERT_TRUE(spec.ok()) << spec.status();
  // A field the decoder skipped, or the encoder forgot, is not written back.
  EXPECT_EQ(Json::parse(JobSpecToJson(*spec)), full);
}

TEST(SpecSchema, FieldsDlpdAlwaysWritesAreTheSchemasRequired) {
  const Json written = Json::parse(JobSpecToJson(JobSpec{}));
  for (const schema::Field& field : schema::kJobSpec.fields) {
    EXPECT_EQ(written.contains(std::string(field.name)), field.required) << field.name;
  }
}

// Each name of the schema's enums parses and is written back as itself.
template <typename Parse, typename Name>
void ExpectKnown(std::span<const absl::string_view> names, Parse parse, Name name) {
  ASSERT_FALSE(names.empty());
  for (absl::string_view n : names) {
    const std::string text(n);
    auto parsed = parse(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    EXPECT_EQ(std::string(name(*parsed)), text);
  }
}

TEST(SpecSchema, EnumNamesAreTheCodes) {
  ExpectKnown(schema::job_spec::kFramework.values, ParseFramework, FrameworkName);
  ExpectKnown(schema::job_spec_restart_policy::kPolicy.values, ParseRestartPolicy,
              RestartPolicyName);
  ExpectKnown(schema::job_spec::kTracing.values, ParseTracing, TracingName);
  ExpectKnown(schema::dependency::kCondition.values, ParseDependencyCondition,
              DependencyConditionName);
}

}  // namespace
}  // namespace dlp
