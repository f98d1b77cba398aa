// The one decoder of a job spec (spec/decoder.cc): its JSON form to a
// JobSpec, for dlpd's JSON and, through spec/job_document.cc, for the
// dlp-job(5) YAML document alike.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "dlp/job.h"
#include "nlohmann/json.hpp"
#include "spec/diagnostics.h"
#include "spec/spec_reader.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

struct DecodeOptions {
  std::string name;      // non-empty: replaces metadata.name
  std::string base_dir;  // absolute; a relative workdir resolves against it
};

// What the decoder reads.
struct SpecShape {
  // A dlp-job(5) document a person wrote: required fields and every rule of
  // spec/rules.h are checked, workdir resolves against base_dir. Otherwise
  // the JSON form, whose rules are ValidateJobSpec's.
  bool document = false;
  std::string base_dir;
};

// Fills what it can; the caller checks `diagnostics` before using the result.
JobSpec DecodeSpecValue(const nlohmann::json& value, const SpecShape& shape, SpecReader& reader,
                        Diagnostics& diagnostics);

// The dlp-job(5) document (overrides applied; spec/job_document.cc).
JobSpec DecodeJobSpec(const YAML::Node& root, const DecodeOptions& options,
                      Diagnostics& diagnostics);

// What a JSON reader does with a member it does not know.
enum class UnknownFields {
  kRefuse,  // what a client sends: refused as the YAML form refuses it
  kIgnore,  // what dlpd answers: a newer dlpd may add members
};
// The JSON form; problems name their path under `path` ("spec.replicas[0]").
absl::StatusOr<JobSpec> DecodeJsonSpec(const nlohmann::json& value, absl::string_view path,
                                       UnknownFields unknown = UnknownFields::kRefuse);

}  // namespace dlp::internal
