// spec.dependsOn of dlp-job(5): [{job: NAME_OR_ID, condition: succeeded}, ...].
#pragma once

#include <vector>

#include "dlp/job.h"
#include "spec/reader.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// Reads the list at `node` (`path` is "spec.dependsOn"), reporting problems to
// `r`. `marks`, when given, receives each returned entry's position (for the
// pipeline's cycle check).
std::vector<JobDependency> DecodeDependsOn(const YAML::Node& node, const std::string& path,
                                           YamlReader& r, std::vector<YAML::Mark>* marks = nullptr);

}  // namespace dlp::internal
