// --set PATH=VALUE: edits the YAML document before it is decoded, so an
// override is validated exactly like the file. VALUE is read as YAML
// ("8", "[python3, x.py]", "{A: b}"); an empty VALUE resets the field to its
// default. Maps missing along PATH are created; a numeric segment indexes a list.
#pragma once

#include <string>

#include "spec/diagnostics.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// Applies one override to `root` (a map); problems with the override itself
// (no '=', a path through a scalar, a value that is not YAML) go to `diagnostics`.
void ApplyOverride(YAML::Node root, const std::string& override_text, Diagnostics& diagnostics);

}  // namespace dlp::internal
