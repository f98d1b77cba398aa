// A YAML document as the JSON value the spec decoders read, so that one
// decoder serves YAML files and dlpd's JSON alike: maps become objects, lists
// arrays, scalars their text as written, null null. Every value's file
// position and YAML path is kept in Origins, so problems still name
// file:line:col.
#pragma once

#include <string>

#include "nlohmann/json.hpp"
#include "spec/diagnostics.h"
#include "spec/spec_reader.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// `node` (bounds already checked) as JSON at `path` of the JSON value, shown
// as `yaml_path`; `key` is the position of its key. Duplicate keys and keys
// that are not scalars are reported; the first of duplicates is kept.
nlohmann::json YamlToJson(const YAML::Node& node, const std::string& path,
                          const std::string& yaml_path, const YAML::Mark& key, Origins& origins,
                          Diagnostics& diagnostics);

}  // namespace dlp::internal
