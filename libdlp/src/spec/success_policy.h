// spec.successPolicy of dlp-job(5): {roles: [chief]}, the roles whose replicas
// all exiting 0 ends the job as Succeeded.
#pragma once

#include <string>
#include <vector>

#include "dlp/job.h"
#include "spec/reader.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// Reads the map at `node` (`path` is "spec.successPolicy"), checking each role
// against the job's `replicas` and reporting problems to `r`.
SuccessPolicy DecodeSuccessPolicy(const YAML::Node& node, const std::string& path,
                                  const std::vector<ReplicaSpec>& replicas, YamlReader& r);

}  // namespace dlp::internal
