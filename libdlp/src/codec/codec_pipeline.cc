// Pipelines <-> JSON (docs/api.md, "Pipelines").
#include "absl/strings/str_cat.h"
#include "codec/codec_internal.h"
#include "dlp/pipeline.h"
#include "dlp/status.h"
#include "spec/rules.h"

namespace dlp {
namespace {

using internal::Json;
using internal::OrderedJson;

OrderedJson JobsJson(const Pipeline& p, bool brief) {
  OrderedJson jobs = OrderedJson::array();
  for (const PipelineJob& j : p.jobs) {
    OrderedJson job = {{"name", j.name}, {"job", j.job}, {"state", JobStateName(j.state)}};
    if (!brief) job["reason"] = j.reason;
    job["dependsOn"] = j.depends_on;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

OrderedJson PipelineValue(const Pipeline& p) {
  OrderedJson json = {{"id", p.id}, {"name", p.name}, {"state", JobStateName(p.state)}};
  json["created"] = p.created ? OrderedJson(internal::FormatApiTime(*p.created)) : OrderedJson();
  json["jobs"] = JobsJson(p, false);
  return json;
}

absl::StatusOr<Pipeline> PipelineFromValue(const Json& value, const std::string& path) {
  DLP_RETURN_IF_ERROR(internal::RequireObject(value, path, "pipeline"));
  Pipeline p;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "id", &p.id));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "name", &p.name));
  std::string state = "Queued";
  DLP_RETURN_IF_ERROR(internal::ReadString(value, path, "state", &state));
  p.state = ParseJobState(state).value_or(JobState::kQueued);
  DLP_RETURN_IF_ERROR(internal::ReadOptionalTime(value, path, "created", &p.created));
  DLP_ASSIGN_OR_RETURN(const Json* jobs, internal::ReadArray(value, path, "jobs"));
  if (jobs == nullptr) return p;
  for (size_t i = 0; i < jobs->size(); ++i) {
    const std::string jp = absl::StrCat(path, ".jobs[", i, "]");
    const Json& item = (*jobs)[i];
    if (!item.is_object()) return absl::InvalidArgumentError(jp + ": expected an object");
    PipelineJob j;
    DLP_RETURN_IF_ERROR(internal::ReadString(item, jp, "name", &j.name));
    DLP_RETURN_IF_ERROR(internal::ReadString(item, jp, "job", &j.job));
    std::string job_state = "Queued";
    DLP_RETURN_IF_ERROR(internal::ReadString(item, jp, "state", &job_state));
    j.state = ParseJobState(job_state).value_or(JobState::kQueued);
    DLP_RETURN_IF_ERROR(internal::ReadString(item, jp, "reason", &j.reason));
    DLP_RETURN_IF_ERROR(internal::ReadStringList(item, jp, "dependsOn", &j.depends_on));
    p.jobs.push_back(std::move(j));
  }
  return p;
}

}  // namespace

std::string PipelineSpecToJson(const PipelineSpec& spec) {
  OrderedJson jobs = OrderedJson::array();
  for (const PipelineJobSpec& j : spec.jobs) {
    jobs.push_back({{"name", j.name}, {"spec", internal::SpecToJsonValue(j.spec)}});
  }
  return internal::DumpJson(OrderedJson{{"name", spec.name}, {"jobs", jobs}}, -1);
}

absl::StatusOr<PipelineSpec> PipelineSpecFromJson(std::string_view text) {
  // At most kMaxPipelineJobs specs, each bounded as a job's.
  const size_t limit = internal::kMaxSpecBytes * 4;
  if (text.size() > limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("a pipeline spec of ", text.size(), " bytes; at most ", limit));
  }
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(text, "a pipeline spec"));
  DLP_RETURN_IF_ERROR(internal::RefuseNulEscapes(text, "a pipeline spec"));
  if (!value.is_object()) return absl::InvalidArgumentError("pipeline spec: expected an object");
  PipelineSpec spec;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, "", "name", &spec.name));
  DLP_ASSIGN_OR_RETURN(const Json* jobs, internal::ReadArray(value, "", "jobs"));
  if (jobs == nullptr) return spec;
  if (jobs->size() > static_cast<size_t>(kMaxPipelineJobs)) {
    return absl::InvalidArgumentError(
        absl::StrCat("jobs: ", jobs->size(), " jobs; at most ", kMaxPipelineJobs));
  }
  for (size_t i = 0; i < jobs->size(); ++i) {
    const std::string path = absl::StrCat("jobs[", i, "]");
    const Json& item = (*jobs)[i];
    if (!item.is_object()) return absl::InvalidArgumentError(path + ": expected an object");
    PipelineJobSpec job;
    DLP_RETURN_IF_ERROR(internal::ReadString(item, path, "name", &job.name));
    const auto s = item.find("spec");
    if (s == item.end()) return absl::InvalidArgumentError(path + ".spec: required");
    DLP_ASSIGN_OR_RETURN(job.spec, internal::DecodeJsonSpec(*s, path + ".spec"));
    spec.jobs.push_back(std::move(job));
  }
  return spec;
}

std::string PipelineToJson(const Pipeline& pipeline, int indent) {
  return internal::DumpJson(PipelineValue(pipeline), indent);
}

absl::StatusOr<Pipeline> PipelineFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "a pipeline"));
  return PipelineFromValue(value, "pipeline");
}

std::string PipelinesToJson(const std::vector<Pipeline>& pipelines, int indent) {
  OrderedJson list = OrderedJson::array();
  for (const Pipeline& p : pipelines) list.push_back(PipelineValue(p));
  return internal::DumpJson(OrderedJson{{"pipelines", list}}, indent);
}

absl::StatusOr<std::vector<Pipeline>> PipelinesFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(Json value, internal::ParseJson(json, "a list of pipelines"));
  std::vector<Pipeline> out;
  if (!value.is_object()) return absl::InvalidArgumentError("expected {\"pipelines\":[...]}");
  DLP_ASSIGN_OR_RETURN(const Json* list, internal::ReadArray(value, "", "pipelines"));
  if (list == nullptr) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    DLP_ASSIGN_OR_RETURN(Pipeline p,
                         PipelineFromValue((*list)[i], absl::StrCat("pipelines[", i, "]")));
    out.push_back(std::move(p));
  }
  return out;
}

std::string PipelineStatusToJson(const Pipeline& pipeline, int indent) {
  return internal::DumpJson(OrderedJson{{"id", pipeline.id},
                                        {"state", JobStateName(pipeline.state)},
                                        {"jobs", JobsJson(pipeline, true)}},
                            indent);
}

}  // namespace dlp
