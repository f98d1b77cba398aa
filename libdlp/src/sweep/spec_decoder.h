// The `kind: Sweep` schema (docs/experiments.md): a yaml-cpp document to a
// SweepSpec, every problem reported with its position and field path, as the
// job decoder does. spec.template is decoded by the job decoder.
#pragma once

#include "dlp/sweep.h"
#include "spec/decoder.h"
#include "spec/diagnostics.h"
#include "spec/rules.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

inline constexpr absl::string_view kSweepKind = "Sweep";

// Fills what it can; the caller checks `diagnostics` before using the result.
SweepSpec DecodeSweepSpec(const YAML::Node& root, const DecodeOptions& options,
                          Diagnostics& diagnostics);

// The rules on the sweep's own fields, shared with ValidateSweepSpec: each
// returns what is wrong, or nothing.
Problem CheckSweepName(absl::string_view name);
Problem CheckParameterName(absl::string_view name);
Problem CheckParameter(const ParameterSpec& p);  // bounds, values, steps
Problem CheckSearch(const SearchSpec& search);
Problem CheckTrials(const SweepSpec& spec);  // maxTrials and parallelism, grid size

}  // namespace dlp::internal
