// Manifests as kubectl-ready YAML: one document per object, "---" between.
#pragma once

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace dlp::internal::k8s {

// Strings that YAML would read back as another type ("true", "8", "") are quoted.
std::string ManifestsToYaml(const std::vector<nlohmann::json>& manifests);

}  // namespace dlp::internal::k8s
