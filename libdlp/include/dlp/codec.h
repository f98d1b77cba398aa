// The one JSON (and YAML) form of the job model: the dlpd API's wire format and
// the CLI's stable `-o json` output, documented in docs/api.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dlp/job.h"

namespace dlp {

// indent < 0: compact one-line JSON.
std::string JobSpecToJson(const JobSpec& spec, int indent = -1);
absl::StatusOr<JobSpec> JobSpecFromJson(std::string_view json);

std::string JobToJson(const Job& job, int indent = -1);
absl::StatusOr<Job> JobFromJson(std::string_view json);
std::string JobsToJson(const std::vector<Job>& jobs, int indent = -1);  // {"jobs":[...]}
absl::StatusOr<std::vector<Job>> JobsFromJson(std::string_view json);

std::string EventsToJson(const std::vector<Event>& events, int indent = -1);  // {"events":[...]}
absl::StatusOr<std::vector<Event>> EventsFromJson(std::string_view json);
// {"id","state","reason","position","estimatedStart","trace":[...]} (GET /v1/jobs/ID/why).
std::string ExplanationToJson(const JobExplanation& why, int indent = -1);
absl::StatusOr<JobExplanation> ExplanationFromJson(std::string_view json);

// The same documents as YAML (for `-o yaml`).
std::string JobToYaml(const Job& job);
std::string JobsToYaml(const std::vector<Job>& jobs);
// A spec as the YAML a user would write (apiVersion/kind/metadata/spec).
std::string JobSpecToYaml(const JobSpec& spec);

}  // namespace dlp
