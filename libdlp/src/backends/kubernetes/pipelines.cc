#include "backends/kubernetes/pipelines.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "backends/kubernetes/json_fields.h"
#include "backends/kubernetes/kubernetes_backend.h"
#include "backends/kubernetes/render_input.h"
#include "backends/kubernetes/status_mapping.h"
#include "dlp/job_dependencies.h"
#include "dlp/status.h"
#include "spec/rules.h"

namespace dlp::internal::k8s {
namespace {

constexpr char kSpecKey[] = "spec.json";            // PipelineSpecToJson
constexpr char kPipelineKey[] = "pipeline.json";    // PipelineToJson: ids, recorded states
constexpr char kSubmittedKey[] = "submitted.json";  // names of the jobs created in full

std::string RecordName(std::string_view id) {
  return absl::StrCat("dlp-pipeline-", std::string(id));
}

absl::Status NoPipeline(std::string_view id, std::string_view name_space) {
  return absl::NotFoundError(absl::StrCat("no pipeline ", std::string(id),
                                          " in Kubernetes namespace ", std::string(name_space)));
}

const PipelineJobSpec* MemberOf(const PipelineSpec& spec, const std::string& name) {
  for (const PipelineJobSpec& m : spec.jobs) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace

struct KubernetesPipelines::Record {
  PipelineSpec spec;
  Pipeline pipeline;  // jobs in PipelineOrder, states as last recorded
  std::set<std::string> submitted;
  bool cancelled = false;

  std::map<std::string, std::string> Ids() const {
    std::map<std::string, std::string> ids;
    for (const PipelineJob& j : pipeline.jobs) ids[j.name] = j.job;
    return ids;
  }
};

namespace {

// A member's job as created: dependencies and outputs by job id, and the
// pipeline's labels. Without an output claim no job has an output folder.
absl::StatusOr<JobSpec> MemberJob(const PipelineJobSpec& member, const std::string& pipeline_id,
                                  const std::map<std::string, std::string>& ids, bool claim) {
  JobSpec job = member.spec;
  for (JobDependency& d : job.depends_on) {
    auto id = ids.find(d.job);
    if (id == ids.end()) {
      return absl::DataLossError(absl::StrCat("pipeline ", pipeline_id, ": job ", member.name,
                                              " depends on ", d.job, ", which it does not have"));
    }
    d.job = id->second;
  }
  std::map<std::string, std::string> outputs;
  if (claim) {
    for (const auto& [name, id] : ids) outputs[name] = OutputDirOf(id);
  }
  if (absl::Status s = SubstituteJobOutputs(job, outputs); !s.ok()) {
    std::string message = absl::StrCat("spec.jobs.", member.name, ": ", s.message());
    if (!claim) {
      absl::StrAppend(&message,
                      "; on Kubernetes the output folders live on a shared volume: set the "
                      "context's output-claim field to a ReadWriteMany PersistentVolumeClaim "
                      "(docs/kubernetes.md)");
    }
    return absl::InvalidArgumentError(message);
  }
  job.labels[kPipelineIdLabel] = pipeline_id;
  job.labels[kPipelineJobLabel] = member.name;
  return job;
}

}  // namespace

absl::StatusOr<Pipeline> KubernetesPipelines::Submit(const PipelineSpec& spec) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, backend_.Api());
  DLP_ASSIGN_OR_RETURN(std::vector<size_t> order, PipelineOrder(spec));
  Record r;
  r.spec = spec;
  r.pipeline.id = NewJobId();
  r.pipeline.name = spec.name;
  r.pipeline.created = absl::Now();
  for (size_t i : order) {
    PipelineJob j;
    j.name = spec.jobs[i].name;
    j.job = NewJobId();
    for (const JobDependency& d : spec.jobs[i].spec.depends_on) j.depends_on.push_back(d.job);
    r.pipeline.jobs.push_back(std::move(j));
  }
  // Every job renders now, so that none is refused halfway through.
  RenderOptions render = backend_.render_options();
  render.name_space = backend_.Namespace();
  const std::map<std::string, std::string> ids = r.Ids();
  for (const PipelineJobSpec& member : spec.jobs) {
    DLP_ASSIGN_OR_RETURN(JobSpec job,
                         MemberJob(member, r.pipeline.id, ids, !render.output_claim.empty()));
    render.job_id = ids.at(member.name);
    if (absl::Status s = RenderManifests(job, render).status(); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("spec.jobs.", member.name, ": ", s.message()));
    }
  }
  nlohmann::json map = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}};
  map["metadata"] = {
      {"name", RecordName(r.pipeline.id)},
      {"labels", {{kManagedByLabel, kManagedBy}, {kPipelineIdLabel, r.pipeline.id}}}};
  map["data"] = {{kSpecKey, PipelineSpecToJson(spec)},
                 {kPipelineKey, PipelineToJson(r.pipeline)},
                 {kSubmittedKey, "[]"}};
  DLP_RETURN_IF_ERROR(api->Create(kConfigMaps, backend_.Namespace(), map).status());
  absl::StatusOr<Pipeline> first = Step(r.pipeline.id);
  if (!first.ok()) {
    // Best effort: what was created goes, and the record with it.
    (void)Cancel(r.pipeline.id);
    (void)api->Delete(kConfigMaps, backend_.Namespace(), RecordName(r.pipeline.id));
    return first.status();
  }
  return first;
}

absl::StatusOr<KubernetesPipelines::Record> KubernetesPipelines::Read(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, backend_.Api());
  if (id.empty() || CheckLabelValue(absl::string_view(id.data(), id.size()))) {
    return NoPipeline(id, backend_.Namespace());
  }
  absl::StatusOr<nlohmann::json> map = api->Get(kConfigMaps, backend_.Namespace(), RecordName(id));
  if (absl::IsNotFound(map.status())) return NoPipeline(id, backend_.Namespace());
  if (!map.ok()) return map.status();
  return FromConfigMap(*map);
}

absl::StatusOr<KubernetesPipelines::Record> KubernetesPipelines::FromConfigMap(
    const nlohmann::json& map) {
  const std::string where = absl::StrCat("ConfigMap ", Str(map, "metadata/name"), ": ");
  Record r;
  absl::StatusOr<PipelineSpec> spec = PipelineSpecFromJson(Str(map, "data/spec.json"));
  absl::StatusOr<Pipeline> pipeline = PipelineFromJson(Str(map, "data/pipeline.json"));
  const nlohmann::json submitted =
      nlohmann::json::parse(Str(map, "data/submitted.json"), nullptr, false);
  if (!spec.ok() || !pipeline.ok() || !submitted.is_array()) {
    const absl::Status bad = !spec.ok()       ? spec.status()
                             : !pipeline.ok() ? pipeline.status()
                                              : absl::DataLossError("submitted.json is no list");
    return absl::DataLossError(absl::StrCat(where, bad.message()));
  }
  r.spec = *std::move(spec);
  r.pipeline = *std::move(pipeline);
  for (const nlohmann::json& name : submitted) {
    if (name.is_string()) r.submitted.insert(name.get<std::string>());
  }
  r.cancelled = !Annotation(map, kCancelledAnnotation).empty();
  return r;
}

absl::Status KubernetesPipelines::Save(const Record& r) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, backend_.Api());
  const nlohmann::json patch = {{"data",
                                 {{kPipelineKey, PipelineToJson(r.pipeline)},
                                  {kSubmittedKey, nlohmann::json(r.submitted).dump()}}}};
  return api->MergePatch(kConfigMaps, backend_.Namespace(), RecordName(r.pipeline.id), patch)
      .status();
}

absl::StatusOr<Pipeline> KubernetesPipelines::Advance(Record r, bool act) {
  Pipeline& p = r.pipeline;
  ListFilter filter;
  filter.labels[kPipelineIdLabel] = p.id;
  DLP_ASSIGN_OR_RETURN(std::vector<Job> jobs, backend_.List(filter));
  std::map<std::string, Job> live;
  for (Job& j : jobs) live.emplace(j.id, std::move(j));
  const std::map<std::string, std::string> ids = r.Ids();
  const bool claim = !backend_.render_options().output_claim.empty();
  std::map<std::string, JobState> states;  // by job id, as the loop goes
  bool changed = false;
  for (PipelineJob& j : p.jobs) {  // each after those it depends on
    const bool was_terminal = IsTerminal(j.state);
    if (r.submitted.count(j.name) > 0) {
      if (auto it = live.find(j.job); it != live.end()) {
        j.state = it->second.state;
        j.reason = it->second.reason;
      } else if (!was_terminal) {
        j.state = JobState::kCancelled;
        j.reason = absl::StrCat("job ", j.job, " is gone from Kubernetes");
      }
    } else if (!was_terminal && r.cancelled) {
      j.state = JobState::kCancelled;
      j.reason = "pipeline cancelled";
    } else if (!was_terminal) {
      const PipelineJobSpec* member = MemberOf(r.spec, j.name);
      if (member == nullptr) return absl::DataLossError(absl::StrCat("no spec for job ", j.name));
      DLP_ASSIGN_OR_RETURN(JobSpec job, MemberJob(*member, p.id, ids, claim));
      const DependencyCheck check = CheckDependencies(job, [&](const std::string& id) {
        auto s = states.find(id);
        return s == states.end() ? std::nullopt : std::optional<JobState>(s->second);
      });
      if (check.verdict == DependencyVerdict::kNever) {
        j.state = JobState::kCancelled;
        j.reason = check.reason;
      } else if (check.verdict == DependencyVerdict::kWaiting) {
        j.reason = check.reason;
      } else if (!act) {
        j.reason = absl::StrCat("ready: `dlp pipeline resume ", p.id, "` creates it");
      } else {
        const std::map<std::string, std::string> labels = {{kPipelineIdLabel, p.id},
                                                           {kPipelineJobLabel, j.name}};
        DLP_ASSIGN_OR_RETURN(Job created, backend_.SubmitAs(job, j.job, labels));
        r.submitted.insert(j.name);
        j.state = created.state;
        j.reason = created.reason;
        // At once: a step killed after this one does not create it again.
        DLP_RETURN_IF_ERROR(Save(r));
      }
    }
    changed = changed || IsTerminal(j.state) != was_terminal;
    states[j.job] = j.state;
  }
  if (act && r.cancelled) {
    // The last first: a dependent never sees its dependency cancelled.
    for (auto it = p.jobs.rbegin(); it != p.jobs.rend(); ++it) {
      if (IsTerminal(it->state) || r.submitted.count(it->name) == 0) continue;
      absl::StatusOr<Job> cancelled = backend_.Cancel(it->job);
      if (!cancelled.ok() && !absl::IsNotFound(cancelled.status())) return cancelled.status();
      if (cancelled.ok()) {
        it->state = cancelled->state;
        it->reason = cancelled->reason;
      }
      changed = true;
    }
  }
  // Ended states stay in the record, for when the jobs' objects are deleted.
  if (act && changed) DLP_RETURN_IF_ERROR(Save(r));
  p.state = PipelineState(p.jobs);
  return p;
}

absl::StatusOr<Pipeline> KubernetesPipelines::Step(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(Record r, Read(id));
  return Advance(std::move(r), /*act=*/true);
}

absl::StatusOr<Pipeline> KubernetesPipelines::Get(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(Record r, Read(id));
  return Advance(std::move(r), /*act=*/false);
}

absl::StatusOr<std::vector<Pipeline>> KubernetesPipelines::List() {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, backend_.Api());
  DLP_ASSIGN_OR_RETURN(nlohmann::json maps, api->List(kConfigMaps, backend_.Namespace(),
                                                      absl::StrCat(kManagedByLabel, "=", kManagedBy,
                                                                   ",", kPipelineIdLabel)));
  std::vector<Pipeline> out;
  const nlohmann::json& items = At(maps, "items");
  if (!items.is_array()) return out;
  for (const nlohmann::json& map : items) {
    if (!Label(map, kJobIdLabel).empty()) continue;  // a member job's, labelled as well
    DLP_ASSIGN_OR_RETURN(Record r, FromConfigMap(map));
    DLP_ASSIGN_OR_RETURN(Pipeline p, Advance(std::move(r), /*act=*/false));
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const Pipeline& a, const Pipeline& b) {
    return a.created.value_or(absl::InfinitePast()) < b.created.value_or(absl::InfinitePast());
  });
  return out;
}

absl::StatusOr<Pipeline> KubernetesPipelines::Cancel(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, backend_.Api());
  DLP_ASSIGN_OR_RETURN(Record r, Read(id));
  if (!r.cancelled) {
    const nlohmann::json mark = {
        {"metadata",
         {{"annotations",
           {{kCancelledAnnotation,
             absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone())}}}}}};
    DLP_RETURN_IF_ERROR(
        api->MergePatch(kConfigMaps, backend_.Namespace(), RecordName(id), mark).status());
    r.cancelled = true;
  }
  return Advance(std::move(r), /*act=*/true);
}

}  // namespace dlp::internal::k8s
