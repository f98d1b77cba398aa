// The spec decoder's field tables against schema/api.schema.json, the one
// description of the JSON form: a field the decoder takes and the schema
// lacks (or the other way round) fails here, as does a name of an enum.
#include <fstream>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "contract/names.h"
#include "spec/field_names.h"

namespace dlp::internal {
namespace {

using Names = std::set<std::string>;

nlohmann::json Schema() {
  std::ifstream in(std::string(DLP_SOURCE_DIR) + "/schema/api.schema.json");
  return nlohmann::json::parse(in);
}

template <typename Range>
Names NamesOf(const Range& names) {
  Names out;
  for (const auto& n : names) out.emplace(n.data(), n.size());
  return out;
}

Names Properties(const nlohmann::json& object) {
  Names out;
  for (const auto& [key, value] : object.at("properties").items()) out.insert(key);
  return out;
}

Names Enum(const nlohmann::json& property) {
  Names out;
  for (const auto& name : property.at("enum")) out.insert(name.get<std::string>());
  return out;
}

TEST(SpecSchema, DecoderFieldsAreTheSchemasJobSpec) {
  const nlohmann::json defs = Schema().at("$defs");
  const nlohmann::json& spec = defs.at("JobSpec");
  const nlohmann::json& replica = defs.at("ReplicaSpec");
  EXPECT_EQ(Properties(spec), NamesOf(kJsonSpecFields));
  EXPECT_EQ(Properties(replica), NamesOf(kJsonReplicaFields));
  EXPECT_EQ(Properties(replica.at("properties").at("resources")), NamesOf(kResourceFields));
  const nlohmann::json& members = spec.at("properties");
  EXPECT_EQ(Properties(members.at("restartPolicy")), NamesOf(kRestartFields));
  EXPECT_EQ(Properties(members.at("logs")), NamesOf(kLogsFields));
  EXPECT_EQ(Properties(members.at("preemption")), NamesOf(kPreemptionFields));
  EXPECT_EQ(Properties(members.at("successPolicy")), NamesOf(kSuccessPolicyFields));
  EXPECT_EQ(Properties(defs.at("Dependency")), NamesOf(kDependencyFields));
}

TEST(SpecSchema, EnumsAreTheSchemas) {
  const nlohmann::json defs = Schema().at("$defs");
  const nlohmann::json& members = defs.at("JobSpec").at("properties");
  EXPECT_EQ(Enum(members.at("restartPolicy").at("properties").at("policy")),
            NamesOf(contract::kRestartPolicyNames));
  EXPECT_EQ(Enum(members.at("framework")), NamesOf(contract::kFrameworkNames));
  EXPECT_EQ(Enum(members.at("tracing")), NamesOf(kTracingNames));
  EXPECT_EQ(Enum(defs.at("Dependency").at("properties").at("condition")),
            (Names{"succeeded", "failed", "finished"}));
}

}  // namespace
}  // namespace dlp::internal
