// spec.successPolicy of dlp-job(5): {roles: [chief]}, the roles whose replicas
// all exiting 0 ends the job as Succeeded.
#pragma once

#include <string>
#include <vector>

#include "dlp/job.h"
#include "nlohmann/json.hpp"
#include "spec/spec_reader.h"

namespace dlp::internal {

// Reads the object at `node` (`path` is "successPolicy"), reporting problems
// to `r`; with `rules`, each role is checked against the job's `replicas`.
SuccessPolicy DecodeSuccessPolicy(const nlohmann::json& node, const std::string& path,
                                  const std::vector<ReplicaSpec>& replicas, bool rules,
                                  SpecReader& r);

}  // namespace dlp::internal
