#include "backends/kubernetes/kubernetes_backend.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "backends/factories.h"
#include "backends/kubernetes/json_fields.h"
#include "backends/kubernetes/render.h"
#include "backends/kubernetes/watch.h"
#include "dlp/codec.h"
#include "dlp/status.h"

namespace dlp::internal::k8s {
namespace {

constexpr char kFlavourAnnotation[] = "dlp.dev/flavour";

std::string NowRfc3339() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}

std::vector<nlohmann::json> Items(const nlohmann::json& list) {
  const nlohmann::json& items = At(list, "items");
  return items.is_array() ? items.get<std::vector<nlohmann::json>>()
                          : std::vector<nlohmann::json>{};
}

// The workloads of a list, each with the kind and apiVersion of `type`: the
// API server leaves them out of a built-in type's items (batch/v1 Jobs),
// while a custom resource's items carry them.
std::vector<nlohmann::json> WorkloadItems(const nlohmann::json& list, const ResourceType& type) {
  std::vector<nlohmann::json> items = Items(list);
  for (nlohmann::json& item : items) {
    if (!item.is_object() || item.contains("kind")) continue;
    item["kind"] = type.kind;
    item["apiVersion"] = type.GroupVersion();
  }
  return items;
}

}  // namespace

std::string NewJobId() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device device;
  std::mt19937_64 random(device());
  std::string id(1, kAlphabet[random() % 26]);  // a letter first (DNS-1035)
  for (int i = 0; i < 7; ++i) id.push_back(kAlphabet[random() % 36]);
  return id;
}

absl::StatusOr<KubernetesOptions> KubernetesOptionsOf(const Context& context) {
  KubernetesOptions options;
  options.kubeconfig = context.Field("kubeconfig");
  options.kube_context = context.Field("context");
  options.name_space = context.Field("namespace");
  DLP_ASSIGN_OR_RETURN(options.render, RenderOptionsFromContext(context));
  return options;
}

KubernetesBackend::KubernetesBackend(KubernetesOptions options) : options_(std::move(options)) {
  name_space_ = options_.name_space;
}

absl::StatusOr<const ApiClient*> KubernetesBackend::Api() {
  std::call_once(connect_once_, [this] {
    absl::StatusOr<ClusterAccess> access =
        LoadKubeConfig(KubeConfigFiles(options_.kubeconfig), options_.kube_context);
    if (!access.ok()) {
      api_ = access.status();
      return;
    }
    if (name_space_.empty()) name_space_ = access->name_space;
    if (name_space_.empty()) name_space_ = "default";
    api_ = std::make_unique<ApiClient>(std::move(*access));
  });
  if (!api_.ok()) return api_.status();
  return api_->get();
}

absl::StatusOr<ResourceType> KubernetesBackend::WorkloadTypeOf(const nlohmann::json& record) const {
  std::string flavour = Annotation(record, kFlavourAnnotation);
  if (flavour.empty()) flavour = options_.render.flavour;
  DLP_ASSIGN_OR_RETURN(WorkloadResource w, WorkloadResourceOf(flavour));
  return ResourceType{w.group, w.version, w.resource, w.kind};
}

absl::StatusOr<JobObjects> KubernetesBackend::Read(const ApiClient& api, std::string_view id) {
  const std::string selector = JobSelector(id);
  DLP_ASSIGN_OR_RETURN(nlohmann::json records, api.List(kConfigMaps, Namespace(), selector));
  std::vector<nlohmann::json> found = Items(records);
  if (found.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no job ", std::string(id), " in Kubernetes namespace ", Namespace()));
  }
  JobObjects objects{std::string(id), std::move(found[0])};
  DLP_ASSIGN_OR_RETURN(ResourceType type, WorkloadTypeOf(objects.record));
  DLP_ASSIGN_OR_RETURN(nlohmann::json workloads, api.List(type, Namespace(), selector));
  if (std::vector<nlohmann::json> items = WorkloadItems(workloads, type); !items.empty()) {
    objects.workload = std::move(items[0]);
  }
  DLP_ASSIGN_OR_RETURN(nlohmann::json pods, api.List(kPods, Namespace(), PodSelector(id)));
  objects.pods = Items(pods);
  // Kueue's Workload says why a suspended job is not admitted; without Kueue
  // (404) or the right to read it (403) the reason is only vaguer.
  if (objects.workload && !Label(*objects.workload, "kueue.x-k8s.io/queue-name").empty()) {
    const std::string uid = Str(*objects.workload, "metadata/uid");
    absl::StatusOr<nlohmann::json> kueue =
        api.List(kKueueWorkloads, Namespace(), absl::StrCat("kueue.x-k8s.io/job-uid=", uid));
    if (kueue.ok() && !Items(*kueue).empty()) objects.kueue_workload = Items(*kueue)[0];
  }
  return objects;
}

namespace {

// 32 bytes of getrandom(2) as hex: a job's rendezvous secret.
absl::StatusOr<std::string> NewRdzvSecret() {
  unsigned char bytes[32];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(absl::StrCat("getrandom: ", std::strerror(errno)));
    got += static_cast<size_t>(n);
  }
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

}  // namespace

absl::StatusOr<Job> KubernetesBackend::Submit(const JobSpec& spec) {
  return SubmitAs(spec, NewJobId(), {});
}

absl::StatusOr<Job> KubernetesBackend::SubmitAs(const JobSpec& spec, const std::string& id,
                                                const std::map<std::string, std::string>& labels) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, Api());
  RenderOptions render = options_.render;
  render.name_space = Namespace();
  render.job_id = id;
  DLP_ASSIGN_OR_RETURN(render.rdzv_secret, NewRdzvSecret());
  DLP_ASSIGN_OR_RETURN(std::vector<nlohmann::json> manifests, RenderManifests(spec, render));
  JobObjects created{render.job_id};
  std::vector<std::pair<ResourceType, std::string>> done;  // to roll back
  for (nlohmann::json& object : manifests) {
    DLP_ASSIGN_OR_RETURN(ResourceType type, ResourceTypeOf(object));
    const bool record = type.kind == kConfigMaps.kind && created.record.is_null();
    for (const auto& [key, value] : labels) object["metadata"]["labels"][key] = value;
    if (record) {
      object["metadata"]["annotations"][kSpecAnnotation] = JobSpecToJson(spec);
      object["metadata"]["annotations"][kFlavourAnnotation] = render.flavour;
    }
    absl::StatusOr<nlohmann::json> made = api->Create(type, Namespace(), object);
    if (absl::IsAlreadyExists(made.status()) && !labels.empty()) {
      // A pipeline's step done before: the names follow from the id.
      made = api->Get(type, Namespace(), Str(object, "metadata/name"));
      if (made.ok() && record && !Annotation(*made, kCancelledAnnotation).empty()) {
        return Get(id);  // cancelled since: its workload stays deleted
      }
      if (made.ok()) {
        if (record) {
          created.record = *made;
        } else if (type.kind != kServices.kind) {
          created.workload = *made;
        }
        continue;
      }
    }
    if (!made.ok()) {
      for (auto it = done.rbegin(); it != done.rend(); ++it) {
        (void)api->Delete(it->first, Namespace(), it->second);  // best effort
      }
      return made.status();
    }
    done.emplace_back(type, Str(*made, "metadata/name"));
    if (record) {
      created.record = *made;
    } else if (type.kind != kServices.kind) {
      created.workload = *made;
    }
  }
  if (created.record.is_null()) {
    return absl::InternalError("the Kubernetes manifests have no ConfigMap to record the job");
  }
  return MapJob(created);
}

absl::StatusOr<Job> KubernetesBackend::Get(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, Api());
  DLP_ASSIGN_OR_RETURN(JobObjects objects, Read(*api, id));
  return MapJob(objects);
}

absl::StatusOr<std::vector<Job>> KubernetesBackend::List(const ListFilter& filter) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, Api());
  const std::string selector = JobSelector();
  DLP_ASSIGN_OR_RETURN(nlohmann::json records, api->List(kConfigMaps, Namespace(), selector));
  DLP_ASSIGN_OR_RETURN(nlohmann::json pods, api->List(kPods, Namespace(), PodSelector()));
  std::map<std::string, JobObjects> by_id;
  for (nlohmann::json& record : Items(records)) {
    const std::string id = Label(record, kJobIdLabel);
    if (!id.empty()) by_id.emplace(id, JobObjects{id, std::move(record)});
  }
  // One list per workload kind in use (contexts may have changed flavour).
  std::map<std::string, ResourceType> types;
  for (const auto& [id, objects] : by_id) {
    if (absl::StatusOr<ResourceType> type = WorkloadTypeOf(objects.record); type.ok()) {
      types.emplace(type->resource, *type);
    }
  }
  for (const auto& [name, type] : types) {
    DLP_ASSIGN_OR_RETURN(nlohmann::json workloads, api->List(type, Namespace(), selector));
    for (nlohmann::json& workload : WorkloadItems(workloads, type)) {
      auto it = by_id.find(Label(workload, kJobIdLabel));
      if (it != by_id.end() && Str(workload, "kind") == type.kind) it->second.workload = workload;
    }
  }
  for (nlohmann::json& pod : Items(pods)) {
    auto it = by_id.find(Label(pod, kJobIdLabel));
    if (it != by_id.end()) it->second.pods.push_back(std::move(pod));
  }
  std::vector<Job> jobs;
  for (const auto& [id, objects] : by_id) {
    Job job = MapJob(objects);
    if (filter.state && job.state != *filter.state) continue;
    if (!filter.queue.empty() && job.queue != filter.queue) continue;
    bool labels_match = true;
    for (const auto& [key, value] : filter.labels) {
      auto label = job.spec.labels.find(key);
      labels_match = labels_match && label != job.spec.labels.end() && label->second == value;
    }
    if (labels_match) jobs.push_back(std::move(job));
  }
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
    return a.created.value_or(absl::InfinitePast()) > b.created.value_or(absl::InfinitePast());
  });
  if (filter.limit > 0 && jobs.size() > static_cast<size_t>(filter.limit)) {
    jobs.resize(filter.limit);
  }
  return jobs;
}

absl::StatusOr<Job> KubernetesBackend::Cancel(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, Api());
  DLP_ASSIGN_OR_RETURN(JobObjects objects, Read(*api, id));
  Job job = MapJob(objects);
  if (IsTerminal(job.state)) return job;
  // The record outlives the workload, so the job reads back as Cancelled.
  const nlohmann::json mark = {
      {"metadata", {{"annotations", {{kCancelledAnnotation, NowRfc3339()}}}}}};
  DLP_ASSIGN_OR_RETURN(objects.record, api->MergePatch(kConfigMaps, Namespace(),
                                                       Str(objects.record, "metadata/name"), mark));
  if (objects.workload) {
    DLP_ASSIGN_OR_RETURN(ResourceType type, WorkloadTypeOf(objects.record));
    absl::Status deleted = api->Delete(type, Namespace(), Str(*objects.workload, "metadata/name"));
    if (!deleted.ok() && !absl::IsNotFound(deleted)) return deleted;
  }
  return MapJob(objects);
}

absl::StatusOr<Job> KubernetesBackend::Wait(std::string_view id, absl::Duration timeout) {
  absl::StatusOr<Job> job = WatchJob(id, timeout);
  if (!absl::IsUnavailable(job.status())) return job;
  // A restarting API server (an upgrade, a crash) refuses or drops every
  // request for a while: a wait that has read the job keeps its last state
  // until the server answers again, or fails once it has not for this long.
  constexpr absl::Duration kUnreachableGrace = absl::Minutes(2);
  if (!last_waited_ || last_waited_->id != id || absl::Now() - last_answer_ > kUnreachableGrace) {
    return job;
  }
  return *last_waited_;
}

absl::StatusOr<Job> KubernetesBackend::WatchJob(std::string_view id, absl::Duration timeout) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, Api());
  DLP_ASSIGN_OR_RETURN(JobObjects objects, Read(*api, id));
  DLP_ASSIGN_OR_RETURN(ResourceType type, WorkloadTypeOf(objects.record));
  absl::StatusOr<Job> latest = MapJob(objects);
  auto seen = [&] {
    last_waited_ = *latest;
    last_answer_ = absl::Now();
  };
  seen();
  if (IsTerminal(latest->state)) return latest;
  WatchOptions watch;
  watch.name_space = Namespace();
  const std::string selector = JobSelector(id);
  watch.label_selector = selector;
  watch.deadline = absl::Now() + timeout;
  absl::Status watched = WatchUntil(*api, type, watch, [&] {
    latest = Get(id);
    if (latest.ok()) seen();
    return !latest.ok() || IsTerminal(latest->state);
  });
  if (!watched.ok() && !absl::IsDeadlineExceeded(watched)) return watched;
  return latest;
}

absl::StatusOr<std::vector<Event>> KubernetesBackend::Events(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(const ApiClient* api, Api());
  DLP_ASSIGN_OR_RETURN(JobObjects objects, Read(*api, id));
  std::set<std::string> names = {Str(objects.record, "metadata/name")};
  if (objects.workload) names.insert(Str(*objects.workload, "metadata/name"));
  if (objects.kueue_workload) names.insert(Str(*objects.kueue_workload, "metadata/name"));
  for (const nlohmann::json& pod : objects.pods) names.insert(Str(pod, "metadata/name"));
  DLP_ASSIGN_OR_RETURN(nlohmann::json list, api->List(kEvents, Namespace(), ""));
  std::vector<Event> events;
  for (const nlohmann::json& item : Items(list)) {
    const std::string name = Str(item, "involvedObject/name");
    if (names.count(name) == 0) continue;
    Event event;
    for (const char* field :
         {"lastTimestamp", "eventTime", "firstTimestamp", "metadata/creationTimestamp"}) {
      if (std::optional<absl::Time> at = TimeAt(item, field)) {
        event.time = *at;
        break;
      }
    }
    event.type = Str(item, "reason");
    event.message =
        absl::StrCat(Str(item, "involvedObject/kind"), "/", name, ": ", Str(item, "message"));
    events.push_back(std::move(event));
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.time < b.time; });
  return events;
}

absl::StatusOr<Pipeline> KubernetesBackend::SubmitPipeline(const PipelineSpec& spec) {
  return pipelines_.Submit(spec);
}
absl::StatusOr<Pipeline> KubernetesBackend::GetPipeline(std::string_view id) {
  return pipelines_.Get(id);
}
absl::StatusOr<std::vector<Pipeline>> KubernetesBackend::ListPipelines() {
  return pipelines_.List();
}
absl::StatusOr<Pipeline> KubernetesBackend::CancelPipeline(std::string_view id) {
  return pipelines_.Cancel(id);
}
absl::StatusOr<Pipeline> KubernetesBackend::StepPipeline(std::string_view id) {
  return pipelines_.Step(id);
}

}  // namespace dlp::internal::k8s

namespace dlp::internal {

absl::StatusOr<std::unique_ptr<Backend>> CreateKubernetesBackend(const Context& context) {
  DLP_ASSIGN_OR_RETURN(k8s::KubernetesOptions options, k8s::KubernetesOptionsOf(context));
  return std::make_unique<k8s::KubernetesBackend>(std::move(options));
}

}  // namespace dlp::internal
