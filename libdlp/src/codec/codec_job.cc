// Job and Event <-> JSON, the forms of docs/api.md.
#include "absl/strings/str_cat.h"
#include "codec/codec_internal.h"
#include "dlp/codec.h"
#include "dlp/status.h"

namespace dlp {
namespace internal {
namespace {

OrderedJson OptionalTime(const std::optional<absl::Time>& t) {
  return t ? OrderedJson(FormatApiTime(*t)) : OrderedJson(nullptr);
}

OrderedJson OptionalInt(const std::optional<int>& v) {
  return v ? OrderedJson(*v) : OrderedJson(nullptr);
}

absl::StatusOr<JobState> ReadState(const Json& object, absl::string_view path) {
  std::string name = "Queued";
  DLP_RETURN_IF_ERROR(ReadString(object, path, "state", &name));
  std::optional<JobState> state = ParseJobState(name);
  if (!state) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, path.empty() ? "" : ".", "state: unknown state \"", name,
                     "\" (expected one of: Queued, Running, Succeeded, Failed, Cancelled)"));
  }
  return *state;
}

// A replica's GPUs: [{"device": "0", "millis": 500}], in its
// CUDA_VISIBLE_DEVICES's order.
OrderedJson GpuSharesJson(const std::vector<GpuShare>& shares) {
  OrderedJson list = OrderedJson::array();
  for (const GpuShare& s : shares) list.push_back({{"device", s.device}, {"millis", s.millis}});
  return list;
}

absl::Status ReadGpuShares(const Json& replica, const std::string& path,
                           std::vector<GpuShare>* out) {
  DLP_ASSIGN_OR_RETURN(const Json* list, ReadArray(replica, path, "gpus"));
  if (list == nullptr) return absl::OkStatus();
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = absl::StrCat(path, ".gpus[", i, "]");
    const Json& share = (*list)[i];
    if (!share.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": expected an object {device, millis}, got ", share.type_name()));
    }
    GpuShare s;
    DLP_RETURN_IF_ERROR(ReadString(share, at, "device", &s.device));
    DLP_RETURN_IF_ERROR(ReadInt(share, at, "millis", &s.millis));
    out->push_back(std::move(s));
  }
  return absl::OkStatus();
}

absl::StatusOr<JobReplica> ReplicaFromJson(const Json& value, const std::string& path) {
  DLP_RETURN_IF_ERROR(RequireObject(value, path, "replica"));
  JobReplica r;
  DLP_RETURN_IF_ERROR(ReadString(value, path, "name", &r.name));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "role", &r.role));
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "index", &r.index));
  DLP_ASSIGN_OR_RETURN(r.state, ReadState(value, path));
  DLP_RETURN_IF_ERROR(ReadOptionalInt(value, path, "exitCode", &r.exit_code));
  DLP_RETURN_IF_ERROR(ReadOptionalInt(value, path, "signal", &r.signal));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "host", &r.host));
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "pid", &r.pid));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "reason", &r.reason));
  DLP_RETURN_IF_ERROR(ReadGpuShares(value, path, &r.gpus));
  return r;
}

// The Job's JSON; without `spec` when !with_spec (building the spec's JSON is
// most of the cost of a long listing's).
OrderedJson JobJson(const Job& job, bool with_spec) {
  OrderedJson replicas = OrderedJson::array();
  for (const JobReplica& r : job.replicas) {
    replicas.push_back({{"name", r.name},
                        {"role", r.role},
                        {"index", r.index},
                        {"state", JobStateName(r.state)},
                        {"exitCode", OptionalInt(r.exit_code)},
                        {"signal", OptionalInt(r.signal)},
                        {"host", r.host},
                        {"pid", r.pid}});
    if (!r.reason.empty()) replicas.back()["reason"] = r.reason;
    if (!r.gpus.empty()) replicas.back()["gpus"] = GpuSharesJson(r.gpus);
  }
  OrderedJson json{
      {"id", job.id},
      {"name", job.name},
      {"tenant", job.tenant},
      {"queue", job.queue},
      {"state", JobStateName(job.state)},
      {"reason", job.reason},
      {"created", OptionalTime(job.created)},
      {"started", OptionalTime(job.started)},
      {"finished", OptionalTime(job.finished)},
      {"exitCode", OptionalInt(job.exit_code)},
      {"restartCount", job.restart_count},
      {"preemptions", job.preemptions},
  };
  if (job.size > 0) {  // an elastic job that has started: the workers it runs with
    json["size"] = job.size;
    json["resizes"] = job.resizes;
  }
  if (job.state == JobState::kQueued) {
    json["position"] = job.position ? OrderedJson(*job.position) : OrderedJson(nullptr);
    json["estimatedStart"] = OptionalTime(job.estimated_start);
  }
  if (with_spec) json["spec"] = SpecToJsonValue(job.spec);
  json["replicas"] = replicas;
  if (!job.gpu_sharing.empty()) json["gpuSharing"] = job.gpu_sharing;
  return json;
}

}  // namespace

OrderedJson JobToJsonValue(const Job& job) { return JobJson(job, true); }

OrderedJson JobSummaryToJsonValue(const Job& job) {
  OrderedJson json = JobJson(job, false);
  json["labels"] = OrderedJson(job.spec.labels);
  return json;
}

absl::StatusOr<Job> JobFromJsonValue(const Json& value, absl::string_view path) {
  DLP_RETURN_IF_ERROR(RequireObject(value, path, "job"));
  const std::string dot = path.empty() ? "" : absl::StrCat(path, ".");
  Job job;
  DLP_RETURN_IF_ERROR(ReadString(value, path, "id", &job.id));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "name", &job.name));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "tenant", &job.tenant));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "queue", &job.queue));
  DLP_ASSIGN_OR_RETURN(job.state, ReadState(value, path));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "reason", &job.reason));
  DLP_RETURN_IF_ERROR(ReadOptionalTime(value, path, "created", &job.created));
  DLP_RETURN_IF_ERROR(ReadOptionalTime(value, path, "started", &job.started));
  DLP_RETURN_IF_ERROR(ReadOptionalTime(value, path, "finished", &job.finished));
  DLP_RETURN_IF_ERROR(ReadOptionalInt(value, path, "exitCode", &job.exit_code));
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "restartCount", &job.restart_count));
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "preemptions", &job.preemptions));
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "size", &job.size));
  DLP_RETURN_IF_ERROR(ReadInt(value, path, "resizes", &job.resizes));
  DLP_RETURN_IF_ERROR(ReadOptionalInt(value, path, "position", &job.position));
  DLP_RETURN_IF_ERROR(ReadOptionalTime(value, path, "estimatedStart", &job.estimated_start));
  DLP_RETURN_IF_ERROR(ReadString(value, path, "gpuSharing", &job.gpu_sharing));
  DLP_ASSIGN_OR_RETURN(const Json* spec, ReadObject(value, path, "spec"));
  if (spec != nullptr) {
    DLP_ASSIGN_OR_RETURN(job.spec,
                         DecodeJsonSpec(*spec, dot + "spec", UnknownFields::kIgnore));
  }
  DLP_ASSIGN_OR_RETURN(const Json* replicas, ReadArray(value, path, "replicas"));
  if (replicas != nullptr) {
    for (size_t i = 0; i < replicas->size(); ++i) {
      DLP_ASSIGN_OR_RETURN(JobReplica r,
                           ReplicaFromJson((*replicas)[i], absl::StrCat(dot, "replicas[", i, "]")));
      job.replicas.push_back(std::move(r));
    }
  }
  return job;
}

}  // namespace internal

std::string JobToJson(const Job& job, int indent) {
  return internal::DumpJson(internal::JobToJsonValue(job), indent);
}

absl::StatusOr<Job> JobFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(internal::Json value, internal::ParseJson(json, "a job"));
  return internal::JobFromJsonValue(value, "");
}

std::string JobSummaryToJson(const Job& job, int indent) {
  return internal::DumpJson(internal::JobSummaryToJsonValue(job), indent);
}

std::string JobSummariesToJson(const std::vector<Job>& jobs, int indent) {
  internal::OrderedJson list = internal::OrderedJson::array();
  for (const Job& job : jobs) list.push_back(internal::JobSummaryToJsonValue(job));
  return internal::DumpJson(internal::OrderedJson{{"jobs", list}}, indent);
}

std::string JobsToJson(const std::vector<Job>& jobs, int indent) {
  internal::OrderedJson list = internal::OrderedJson::array();
  for (const Job& job : jobs) list.push_back(internal::JobToJsonValue(job));
  return internal::DumpJson(internal::OrderedJson{{"jobs", list}}, indent);
}

absl::StatusOr<std::vector<Job>> JobsFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(internal::Json value, internal::ParseJson(json, "a job list"));
  if (!value.is_object()) {
    return absl::InvalidArgumentError("expected {\"jobs\": [...]}");
  }
  DLP_ASSIGN_OR_RETURN(const internal::Json* list, internal::ReadArray(value, "", "jobs"));
  std::vector<Job> jobs;
  if (list == nullptr) return jobs;
  for (size_t i = 0; i < list->size(); ++i) {
    DLP_ASSIGN_OR_RETURN(Job job,
                         internal::JobFromJsonValue((*list)[i], absl::StrCat("jobs[", i, "]")));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::string EventsToJson(const std::vector<Event>& events, int indent) {
  internal::OrderedJson list = internal::OrderedJson::array();
  for (const Event& e : events) {
    list.push_back(
        {{"time", internal::FormatApiTime(e.time)}, {"type", e.type}, {"message", e.message}});
  }
  return internal::DumpJson(internal::OrderedJson{{"events", list}}, indent);
}

std::string ExplanationToJson(const JobExplanation& why, int indent) {
  using internal::OrderedJson;
  return internal::DumpJson(
      OrderedJson{{"id", why.id},
                  {"state", JobStateName(why.state)},
                  {"reason", why.reason},
                  {"position", why.position ? OrderedJson(*why.position) : OrderedJson(nullptr)},
                  {"estimatedStart", internal::OptionalTime(why.estimated_start)},
                  {"trace", why.trace}},
      indent);
}

absl::StatusOr<JobExplanation> ExplanationFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(internal::Json value, internal::ParseJson(json, "a job explanation"));
  if (!value.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  JobExplanation why;
  DLP_RETURN_IF_ERROR(internal::ReadString(value, "", "id", &why.id));
  DLP_ASSIGN_OR_RETURN(why.state, internal::ReadState(value, ""));
  DLP_RETURN_IF_ERROR(internal::ReadString(value, "", "reason", &why.reason));
  DLP_RETURN_IF_ERROR(internal::ReadOptionalInt(value, "", "position", &why.position));
  DLP_RETURN_IF_ERROR(
      internal::ReadOptionalTime(value, "", "estimatedStart", &why.estimated_start));
  DLP_RETURN_IF_ERROR(internal::ReadStringList(value, "", "trace", &why.trace));
  return why;
}

absl::StatusOr<std::vector<Event>> EventsFromJson(std::string_view json) {
  DLP_ASSIGN_OR_RETURN(internal::Json value, internal::ParseJson(json, "an event list"));
  if (!value.is_object()) {
    return absl::InvalidArgumentError("expected {\"events\": [...]}");
  }
  DLP_ASSIGN_OR_RETURN(const internal::Json* list, internal::ReadArray(value, "", "events"));
  std::vector<Event> events;
  if (list == nullptr) return events;
  for (size_t i = 0; i < list->size(); ++i) {
    const internal::Json& item = (*list)[i];
    const std::string path = absl::StrCat("events[", i, "]");
    if (!item.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": expected an object"));
    }
    Event e;
    std::optional<absl::Time> time;
    DLP_RETURN_IF_ERROR(internal::ReadOptionalTime(item, path, "time", &time));
    if (!time) return absl::InvalidArgumentError(absl::StrCat(path, ".time: required"));
    e.time = *time;
    DLP_RETURN_IF_ERROR(internal::ReadString(item, path, "type", &e.type));
    DLP_RETURN_IF_ERROR(internal::ReadString(item, path, "message", &e.message));
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace dlp
