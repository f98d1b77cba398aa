#include "server/store/stored_spec.h"

#include "absl/strings/str_cat.h"
#include "base/strings/string_view_compat.h"
#include "dlp/codec.h"
#include "dlp/spec.h"
#include "dlp/status.h"

namespace dlp::server {

absl::StatusOr<std::string> StoredSpecText(const JobSpec& spec) {
  std::string text = JobSpecToJson(spec);
  absl::StatusOr<JobSpec> back = ReadStoredSpec(text);
  if (!back.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the spec cannot be stored: ", back.status().message()));
  }
  if (*back != spec) {
    return absl::InvalidArgumentError(
        "the spec cannot be stored: its stored form does not read back the same");
  }
  return text;
}

absl::StatusOr<JobSpec> ReadStoredSpec(absl::string_view text) {
  DLP_ASSIGN_OR_RETURN(JobSpec spec, JobSpecFromJson(base::ToStd(text)));
  DLP_RETURN_IF_ERROR(ValidateJobSpec(spec));
  return spec;
}

}  // namespace dlp::server
