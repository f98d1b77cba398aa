// spec.dependsOn of dlp-job(5): [{job: NAME_OR_ID, condition: succeeded}, ...].
#pragma once

#include <string>
#include <vector>

#include "dlp/job.h"
#include "nlohmann/json.hpp"
#include "spec/spec_reader.h"

namespace dlp::internal {

// Reads the list at `node` (`path` is "dependsOn"), reporting problems to `r`;
// with `rules`, also missing jobs, bad names and jobs listed twice.
std::vector<JobDependency> DecodeDependsOn(const nlohmann::json& node, const std::string& path,
                                           bool rules, SpecReader& r);

}  // namespace dlp::internal
