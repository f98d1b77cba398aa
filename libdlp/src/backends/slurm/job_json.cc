// The one adapter between Slurm's JSON (squeue --json, slurmrestd v0.0.38) and
// SlurmJobRecord; nlohmann's exceptions stop here.
#include <exception>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/slurm/transport.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {
namespace {

using Json = nlohmann::json;

std::string Text(const Json& job, const char* key) {
  auto it = job.find(key);
  if (it == job.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  // Later Slurm versions turn some fields into lists ("job_state": ["RUNNING"]).
  if (it->is_array() && !it->empty() && (*it)[0].is_string()) return (*it)[0].get<std::string>();
  return it->dump();
}

int64_t Number(const Json& job, const char* key) {
  auto it = job.find(key);
  if (it == job.end() || it->is_null()) return 0;
  if (it->is_number()) return it->get<int64_t>();
  // Later versions wrap numbers: {"set": true, "number": 3}.
  if (it->is_object() && it->contains("number") && (*it)["number"].is_number()) {
    return (*it)["number"].get<int64_t>();
  }
  return 0;
}

std::optional<absl::Time> Time(const Json& job, const char* key) {
  int64_t seconds = Number(job, key);
  if (seconds <= 0) return std::nullopt;
  return absl::FromUnixSeconds(seconds);
}

}  // namespace

absl::StatusOr<std::vector<SlurmJobRecord>> ParseSlurmJobs(const std::string& json) {
  try {
    Json doc = Json::parse(json);
    if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array()) {
      std::string errors = SlurmErrors(json);
      return absl::InvalidArgumentError(
          errors.empty() ? "Slurm's reply has no \"jobs\" list" : errors);
    }
    std::vector<SlurmJobRecord> records;
    for (const Json& job : doc["jobs"]) {
      SlurmJobRecord r;
      r.id = absl::StrCat(Number(job, "job_id"));
      r.name = Text(job, "name");
      r.comment = Text(job, "comment");
      r.user = Text(job, "user_name");
      r.partition = Text(job, "partition");
      r.state = Text(job, "job_state");
      r.reason = Text(job, "state_reason");
      r.exit_status = static_cast<int>(Number(job, "exit_code"));
      r.nodes = Text(job, "nodes");
      r.submitted = Time(job, "submit_time");
      r.started = Time(job, "start_time");
      r.ended = Time(job, "end_time");
      records.push_back(std::move(r));
    }
    return records;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read Slurm's JSON reply: ", e.what()));
  }
}

std::string SlurmErrors(const std::string& json) {
  try {
    Json doc = Json::parse(json);
    std::vector<std::string> messages;
    if (doc.is_object() && doc.contains("errors") && doc["errors"].is_array()) {
      for (const Json& e : doc["errors"]) {
        std::string text = Text(e, "error");
        if (text.empty()) text = Text(e, "description");
        if (!text.empty()) messages.push_back(text);
      }
    }
    return absl::StrJoin(messages, "; ");
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace dlp::internal
