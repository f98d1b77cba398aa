#include "spec/yaml_json.h"

#include <map>

#include "absl/strings/str_cat.h"

namespace dlp::internal {

nlohmann::json YamlToJson(const YAML::Node& node, const std::string& path,
                          const std::string& yaml_path, const YAML::Mark& key, Origins& origins,
                          Diagnostics& diagnostics) {
  const bool null = !node.IsDefined() || node.IsNull();
  origins[path] = Origin{key, null ? key : node.Mark(), yaml_path};
  if (null) return nullptr;
  if (node.IsScalar()) return node.Scalar();
  if (node.IsSequence()) {
    nlohmann::json list = nlohmann::json::array();
    for (size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      const std::string index = absl::StrCat("[", i, "]");
      list.push_back(YamlToJson(item, path + index, yaml_path + index, item.Mark(), origins,
                                diagnostics));
    }
    return list;
  }
  nlohmann::json object = nlohmann::json::object();
  std::map<std::string, int> first_line;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node k = it->first;  // a copy: `it->` returns a temporary proxy
    if (!k.IsScalar()) {
      diagnostics.Add(k.Mark(), yaml_path,
                      absl::StrCat("expected a name as key, got ", Describe(k)));
      continue;
    }
    const std::string& name = k.Scalar();
    auto [seen, inserted] = first_line.emplace(name, k.Mark().line + 1);
    if (!inserted) {
      diagnostics.Add(k.Mark(), JoinPath(yaml_path, name),
                      absl::StrCat("duplicate key; first given on line ", seen->second));
      continue;
    }
    object[name] = YamlToJson(it->second, JoinPath(path, name), JoinPath(yaml_path, name),
                              k.Mark(), origins, diagnostics);
  }
  return object;
}

}  // namespace dlp::internal
