// Manifests as YAML read back by a YAML parser as the same documents: strings
// that look like other types stay strings, multi-line text survives.
#include "backends/kubernetes/manifest_yaml.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal::k8s {
namespace {

using nlohmann::json;

TEST(ManifestYamlTest, DocumentsReadBackAsTheyWere) {
  const json config_map = {{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata", {{"name", "a"}, {"labels", {{"x", "true"}, {"n", "8"}}}}},
                           {"data", {{"group.json", "{\n  \"ranks\": 2\n}\n"}, {"empty", ""}}}};
  const json job = {
      {"kind", "Job"},
      {"spec", {{"parallelism", 2}, {"suspend", true}, {"args", {"--lr", "0.1", "no"}}}}};
  const std::string yaml = ManifestsToYaml({config_map, job});
  std::vector<YAML::Node> docs = YAML::LoadAll(yaml);
  ASSERT_EQ(docs.size(), 2u) << yaml;
  EXPECT_EQ(docs[0]["metadata"]["labels"]["x"].Tag(), "!");  // quoted: a string
  EXPECT_EQ(docs[0]["metadata"]["labels"]["x"].as<std::string>(), "true");
  EXPECT_EQ(docs[0]["metadata"]["labels"]["n"].Tag(), "!");
  EXPECT_EQ(docs[0]["data"]["group.json"].as<std::string>(), "{\n  \"ranks\": 2\n}\n");
  EXPECT_EQ(docs[0]["data"]["empty"].as<std::string>(), "");
  EXPECT_EQ(docs[1]["spec"]["parallelism"].Tag(), "?");  // plain: a number
  EXPECT_EQ(docs[1]["spec"]["parallelism"].as<int>(), 2);
  EXPECT_TRUE(docs[1]["spec"]["suspend"].as<bool>());
  EXPECT_EQ(docs[1]["spec"]["args"][1].Tag(), "!");
  EXPECT_EQ(docs[1]["spec"]["args"][2].Tag(), "!");
  EXPECT_THAT(yaml, ::testing::HasSubstr("\n---\n"));
}

}  // namespace
}  // namespace dlp::internal::k8s
