// The spec column of dlpd's store. A spec is stored as its canonical JSON
// (dlp/codec.h) only once that text reads back, through the very reader that
// rows are read with, to the spec that was submitted: a row dlpd writes
// always reads again. A row that does not (written by an older dlpd, or
// edited) is quarantined by the store's readers rather than breaking them.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dlp/job.h"

namespace dlp::server {

// The text to store for `spec`; InvalidArgument ("the spec cannot be stored:
// ...") when it would not read back the same.
absl::StatusOr<std::string> StoredSpecText(const JobSpec& spec);

// Reads a stored spec: JobSpecFromJson, then every rule of ValidateJobSpec.
absl::StatusOr<JobSpec> ReadStoredSpec(absl::string_view text);

}  // namespace dlp::server
