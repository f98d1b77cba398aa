// The dlp-job(5) schema: a yaml-cpp document (overrides already applied) to a
// JobSpec, reporting every problem with its position and field path.
#pragma once

#include <string>

#include "dlp/job.h"
#include "spec/diagnostics.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

struct DecodeOptions {
  std::string name;      // non-empty: replaces metadata.name
  std::string base_dir;  // absolute; a relative workdir resolves against it
};

// Fills what it can; the caller checks `diagnostics` before using the result.
JobSpec DecodeJobSpec(const YAML::Node& root, const DecodeOptions& options,
                      Diagnostics& diagnostics);

}  // namespace dlp::internal
