// Pieces of the JSON form (dlp/codec.h) for a server of dlpd's API that
// composes answers of its own around the job model (docs/api.md): the time
// format of the wire, and a job as listings summarise it.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "dlp/job.h"

namespace dlp {

// Every time on the wire: RFC 3339 UTC with milliseconds,
// "2026-11-30T12:00:00.123Z".
std::string FormatApiTime(absl::Time time);

// A listing's summary of `job` (GET /v1/jobs?fields=summary): the job without
// its spec, with the spec's labels as a member "labels", last. indent < 0:
// compact one-line JSON.
std::string JobSummaryToJson(const Job& job, int indent = -1);
// {"jobs":[summary...]}
std::string JobSummariesToJson(const std::vector<Job>& jobs, int indent = -1);

}  // namespace dlp
